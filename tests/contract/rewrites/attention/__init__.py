"""An independent rewrite of the attention problem, written from problem.md alone (test data)."""
from .sdpa import attention, softmax

__all__ = ["attention", "softmax"]
