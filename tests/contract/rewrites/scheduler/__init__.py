"""An independent rewrite of the scheduler problem, written from problem.md alone (test data)."""
from .engine import Request, Scheduler, State, StepResult

__all__ = ["Request", "Scheduler", "State", "StepResult"]
