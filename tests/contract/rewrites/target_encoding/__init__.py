"""An independent rewrite of the target-encoding problem, written from problem.md alone (test data)."""
from .running import encode_apply, encode_train

__all__ = ["encode_apply", "encode_train"]
