"""A paged block pool with shared, reference-counted blocks, written from the contract only."""
from __future__ import annotations

import heapq


class OutOfBlocks(RuntimeError):
    pass


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        if block_size <= 0 or num_blocks <= 0:
            raise ValueError("bad pool geometry")
        self.capacity = num_blocks
        self.page = block_size
        self.heap = list(range(num_blocks))  # already a valid min-heap
        self.counts: dict[int, int] = {}
        self.pages: dict[str, list[int]] = {}
        self.lengths: dict[str, int] = {}

    @property
    def num_free_blocks(self) -> int:
        return len(self.heap)

    def _grab(self, how_many: int) -> list[int]:
        if len(self.heap) < how_many:
            raise OutOfBlocks("pool exhausted")
        got = [heapq.heappop(self.heap) for _ in range(how_many)]
        for page in got:
            self.counts[page] = 1
        return got

    def _drop(self, page: int) -> None:
        left = self.counts[page] - 1
        if left:
            self.counts[page] = left
        else:
            del self.counts[page]
            heapq.heappush(self.heap, page)

    def _live(self, name: str) -> list[int]:
        try:
            return self.pages[name]
        except KeyError:
            raise KeyError(name) from None

    def allocate(self, seq_id: str, num_tokens: int) -> tuple[int, ...]:
        if num_tokens <= 0:
            raise ValueError("need a positive token count")
        if seq_id in self.pages:
            raise ValueError("taken")
        pages = self._grab(-(-num_tokens // self.page))
        self.pages[seq_id], self.lengths[seq_id] = pages, num_tokens
        return tuple(pages)

    def append_token(self, seq_id: str) -> int | None:
        pages = self._live(seq_id)
        used = self.lengths[seq_id] - (len(pages) - 1) * self.page
        fresh = None
        if used == self.page:
            fresh = self._grab(1)[0]
            pages.append(fresh)
        elif self.counts[pages[-1]] >= 2:
            fresh = self._grab(1)[0]
            old, pages[-1] = pages[-1], fresh
            self._drop(old)
        self.lengths[seq_id] += 1
        return fresh

    def fork(self, parent_id: str, child_id: str) -> None:
        if child_id in self.pages:
            raise ValueError("exists")
        shared = self._live(parent_id)
        for page in shared:
            self.counts[page] += 1
        self.pages[child_id] = shared[:]
        self.lengths[child_id] = self.lengths[parent_id]

    def free(self, seq_id: str) -> None:
        pages = self._live(seq_id)
        del self.pages[seq_id]
        del self.lengths[seq_id]
        for page in pages:
            self._drop(page)

    def block_table(self, seq_id: str) -> tuple[int, ...]:
        return tuple(self._live(seq_id))

    def num_tokens(self, seq_id: str) -> int:
        self._live(seq_id)
        return self.lengths[seq_id]

    def ref_count(self, block: int) -> int:
        if block < 0 or block >= self.capacity:
            raise ValueError("no such block")
        return self.counts.get(block, 0)
