"""Leakage-free target encoding: each training row sees only strictly earlier targets."""

from .target_encoding import encode_apply, encode_train

__all__ = ["encode_apply", "encode_train"]
