"""An independent rewrite of the kv_cache problem, written from problem.md alone (test data)."""
from .paging import BlockAllocator, OutOfBlocks

__all__ = ["BlockAllocator", "OutOfBlocks"]
