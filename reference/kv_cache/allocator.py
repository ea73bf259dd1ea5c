"""A paged KV-cache block allocator, in the manner of vLLM's PagedAttention.

Every sequence owns a table of fixed-size blocks. Forked sequences share their parent's blocks
under ref counts, and a shared block is copied only when a sequence is about to write into
it. The contract is in `problem.md` beside this module.
"""

from __future__ import annotations

from dataclasses import dataclass


class OutOfBlocks(RuntimeError):
    """Too few free blocks for the call; the allocator is unchanged."""


@dataclass
class _Sequence:
    """A live sequence's mutable bookkeeping: its block table and how many tokens it holds."""

    blocks: list[int]
    tokens: int


class BlockAllocator:
    """Hands out KV-cache blocks to sequences, lowest-numbered free block first."""

    def __init__(self, num_blocks: int, block_size: int) -> None:
        if num_blocks < 1:
            raise ValueError(f"num_blocks must be at least 1, got {num_blocks}")
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        self._num_blocks = num_blocks
        self._block_size = block_size
        self._free = set(range(num_blocks))
        self._refs = [0] * num_blocks
        self._sequences: dict[str, _Sequence] = {}

    @property
    def num_free_blocks(self) -> int:
        """How many blocks are in the free pool."""
        return len(self._free)

    def allocate(self, seq_id: str, num_tokens: int) -> tuple[int, ...]:
        """Give a new sequence of `num_tokens` tokens its blocks; return its block table."""
        if seq_id in self._sequences:
            raise ValueError(f"sequence {seq_id!r} already exists")
        if num_tokens < 1:
            raise ValueError(f"num_tokens must be at least 1, got {num_tokens}")
        blocks = self._take((num_tokens + self._block_size - 1) // self._block_size)
        self._sequences[seq_id] = _Sequence(blocks=blocks, tokens=num_tokens)
        return tuple(blocks)

    def append_token(self, seq_id: str) -> int | None:
        """Grow the sequence by one token; return the id of a block it newly got, else None."""
        sequence = self._sequence(seq_id)
        if sequence.tokens % self._block_size == 0:
            (block,) = self._take(1)
            sequence.blocks.append(block)
        elif self._refs[sequence.blocks[-1]] > 1:
            # Copy-on-write: the other holders keep the shared block as it is.
            (block,) = self._take(1)
            self._release(sequence.blocks[-1])
            sequence.blocks[-1] = block
        else:
            block = None
        sequence.tokens += 1
        return block

    def fork(self, parent_id: str, child_id: str) -> None:
        """Start `child_id` as a copy of the parent that shares every one of its blocks."""
        parent = self._sequence(parent_id)
        if child_id in self._sequences:
            raise ValueError(f"sequence {child_id!r} already exists")
        for block in parent.blocks:
            self._refs[block] += 1
        self._sequences[child_id] = _Sequence(blocks=list(parent.blocks), tokens=parent.tokens)

    def free(self, seq_id: str) -> None:
        """End the sequence; blocks nobody else holds return to the free pool."""
        sequence = self._sequence(seq_id)
        del self._sequences[seq_id]
        for block in sequence.blocks:
            self._release(block)

    def block_table(self, seq_id: str) -> tuple[int, ...]:
        """The sequence's block ids, in order."""
        return tuple(self._sequence(seq_id).blocks)

    def num_tokens(self, seq_id: str) -> int:
        """How many tokens the sequence holds."""
        return self._sequence(seq_id).tokens

    def ref_count(self, block: int) -> int:
        """How many live sequences hold `block` (0 when it is free)."""
        if not 0 <= block < self._num_blocks:
            raise ValueError(f"block {block} is not in 0 .. {self._num_blocks - 1}")
        return self._refs[block]

    def _sequence(self, seq_id: str) -> _Sequence:
        return self._sequences[seq_id]  # KeyError for an id that is not live, as the contract asks

    def _take(self, count: int) -> list[int]:
        """The `count` lowest free blocks, now held once each; nothing changes if too few are free."""
        if count > len(self._free):
            raise OutOfBlocks(f"{count} blocks needed, {len(self._free)} free")
        blocks = sorted(self._free)[:count]
        self._free.difference_update(blocks)
        for block in blocks:
            self._refs[block] = 1
        return blocks

    def _release(self, block: int) -> None:
        self._refs[block] -= 1
        if self._refs[block] == 0:
            self._free.add(block)
