"""An independent rewrite of the rolling-features problem, written from problem.md alone (test data)."""
from .past_windows import add_rolling_features

__all__ = ["add_rolling_features"]
