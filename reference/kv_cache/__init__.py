"""Paged KV-cache block allocator: lowest-free allocation, ref counts, copy-on-write."""

from .allocator import BlockAllocator, OutOfBlocks

__all__ = ["BlockAllocator", "OutOfBlocks"]
