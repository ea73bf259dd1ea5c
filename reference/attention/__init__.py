"""Scaled dot-product attention with padding and causal masks, and a stable softmax, in numpy."""

from .attention import attention, softmax

__all__ = ["attention", "softmax"]
