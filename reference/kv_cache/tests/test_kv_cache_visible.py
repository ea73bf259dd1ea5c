"""Worked examples of the block allocator contract in `problem.md`."""

from __future__ import annotations

import pytest

from reference.kv_cache import BlockAllocator, OutOfBlocks


def test_problem_example() -> None:
    """The example of problem.md: a fork, a copy-on-write, a new block, a free, lowest-free reuse."""
    a = BlockAllocator(num_blocks=6, block_size=4)
    assert a.allocate("p", 6) == (0, 1)
    a.fork("p", "c")
    assert (a.ref_count(0), a.ref_count(1)) == (2, 2)
    assert a.append_token("c") == 2
    assert a.block_table("c") == (0, 2)
    assert a.append_token("c") is None
    assert a.num_tokens("c") == 8
    assert a.append_token("c") == 3
    assert (a.block_table("c"), a.num_tokens("c")) == ((0, 2, 3), 9)
    a.free("p")
    assert (a.ref_count(0), a.ref_count(1)) == (1, 0)
    assert a.num_free_blocks == 3
    assert a.allocate("q", 5) == (1, 4)


@pytest.mark.parametrize(("tokens", "blocks"), [(1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 3)])
def test_allocate_takes_ceil_of_tokens_over_block_size(tokens: int, blocks: int) -> None:
    """A sequence of n tokens gets ceil(n / 4) blocks: 4 tokens fit one block, 5 need two."""
    a = BlockAllocator(num_blocks=8, block_size=4)
    assert a.allocate("s", tokens) == tuple(range(blocks))
    assert a.num_tokens("s") == tokens
    assert a.num_free_blocks == 8 - blocks


def test_lowest_free_blocks_are_reused_first() -> None:
    """After a free, the next allocation takes the lowest free ids, in increasing order."""
    a = BlockAllocator(num_blocks=6, block_size=2)
    assert a.allocate("x", 4) == (0, 1)
    assert a.allocate("y", 2) == (2,)
    assert a.allocate("z", 3) == (3, 4)
    a.free("x")
    assert a.allocate("w", 6) == (0, 1, 5)


def test_append_fills_the_last_block_then_takes_a_new_one() -> None:
    """Appends return None while the last block has room, then the id of a new block."""
    a = BlockAllocator(num_blocks=4, block_size=3)
    a.allocate("s", 2)
    assert a.append_token("s") is None  # the block now holds 3 tokens: full
    assert a.append_token("s") == 1
    assert (a.block_table("s"), a.num_tokens("s")) == ((0, 1), 4)


def test_fork_shares_blocks_and_counts_references() -> None:
    """A fork takes no block: the child has the parent's table and token count, counts rise."""
    a = BlockAllocator(num_blocks=4, block_size=2)
    a.allocate("p", 3)
    a.fork("p", "c")
    assert a.block_table("c") == (0, 1)
    assert a.num_tokens("c") == 3
    assert [a.ref_count(b) for b in range(4)] == [2, 2, 0, 0]
    assert a.num_free_blocks == 2


def test_writer_of_a_shared_block_gets_a_private_copy() -> None:
    """Appending into a shared, non-full last block copies it; the other holder keeps it."""
    a = BlockAllocator(num_blocks=4, block_size=2)
    a.allocate("p", 3)
    a.fork("p", "c")
    assert a.append_token("p") == 2
    assert a.block_table("p") == (0, 2)
    assert a.block_table("c") == (0, 1)
    assert [a.ref_count(b) for b in range(4)] == [2, 1, 1, 0]


def test_free_returns_blocks_nobody_else_holds() -> None:
    """Freeing a parent leaves its shared blocks with the child; freeing the child frees them."""
    a = BlockAllocator(num_blocks=3, block_size=2)
    a.allocate("p", 4)
    a.fork("p", "c")
    a.free("p")
    assert a.num_free_blocks == 1
    assert [a.ref_count(b) for b in range(3)] == [1, 1, 0]
    with pytest.raises(KeyError):
        a.num_tokens("p")
    a.free("c")
    assert a.num_free_blocks == 3


def test_out_of_blocks_changes_nothing() -> None:
    """Asking for more blocks than are free raises OutOfBlocks and allocates nothing."""
    a = BlockAllocator(num_blocks=3, block_size=2)
    a.allocate("s", 3)
    with pytest.raises(OutOfBlocks):
        a.allocate("t", 3)
    assert a.num_free_blocks == 1
    with pytest.raises(KeyError):
        a.block_table("t")
    assert a.allocate("t", 2) == (2,)


def test_copy_without_a_free_block_changes_nothing() -> None:
    """A write into a shared block with an empty pool raises OutOfBlocks; the block stays shared."""
    a = BlockAllocator(num_blocks=1, block_size=2)
    a.allocate("p", 1)
    a.fork("p", "c")
    with pytest.raises(OutOfBlocks):
        a.append_token("c")
    assert (a.block_table("c"), a.num_tokens("c"), a.ref_count(0)) == ((0,), 1, 2)


@pytest.mark.parametrize(("num_blocks", "block_size"), [(0, 4), (4, 0), (-1, 4), (4, -2)])
def test_constructor_rejects_sizes_below_one(num_blocks: int, block_size: int) -> None:
    """A pool without blocks or blocks without room is a ValueError."""
    with pytest.raises(ValueError):
        BlockAllocator(num_blocks, block_size)


def test_unknown_sequence_raises_key_error() -> None:
    """Every per-sequence call refuses an id that is not live."""
    a = BlockAllocator(num_blocks=2, block_size=2)
    for call in (a.append_token, a.free, a.block_table, a.num_tokens):
        with pytest.raises(KeyError):
            call("nope")
