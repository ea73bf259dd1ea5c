"""LLM inference request scheduler: decode-first, FCFS admission under a per-step token budget."""

from .scheduler import Request, Scheduler, State, StepResult

__all__ = ["Request", "Scheduler", "State", "StepResult"]
