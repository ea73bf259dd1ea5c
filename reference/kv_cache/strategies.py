"""Hypothesis strategies for valid `BlockAllocator` inputs.

Pools stay small (up to 12 blocks of 1 to 4 tokens) so that they run out, and histories mix
allocations, appends, forks and frees, so that shared blocks, copies-on-write and reused block
ids are the rule rather than the exception.

`call_strategies` keys methods as `"BlockAllocator.<name>"`; their `args` start with a ready
`BlockAllocator`, so `BlockAllocator.fork(*args, **kwargs)` calls the method generically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from . import BlockAllocator, OutOfBlocks

Call = tuple[tuple[Any, ...], dict[str, Any]]
SEQ_IDS = ("a", "b", "c", "d", "e")


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """An allocator after a few valid calls, and the ids of the sequences live in it."""

    allocator: BlockAllocator
    live: tuple[str, ...]
    num_blocks: int
    block_size: int


def sizes() -> SearchStrategy[tuple[int, int]]:
    """Valid `(num_blocks, block_size)` pairs."""
    return st.tuples(st.integers(min_value=1, max_value=12), st.integers(min_value=1, max_value=4))


@st.composite
def histories(draw: st.DrawFn, min_live: int = 0, max_calls: int = 12) -> History:
    """A fresh allocator put through up to `max_calls` calls, each valid when it is made.

    Every new sequence gets a fresh id (`s0`, `s1`, ...), so a history never depends on an id
    being free again after `free`; the suites test that rule on its own."""
    num_blocks, block_size = draw(sizes())
    allocator = BlockAllocator(num_blocks, block_size)
    live: list[str] = []
    named = 0
    # `sampled_from(tuple(live))`: hypothesis reuses a strategy over a tuple it has seen, while one
    # over a list is built and validated anew for every draw.
    for _ in range(draw(st.integers(min_value=0, max_value=max_calls))):
        kind = draw(st.sampled_from(("allocate", "append", "fork", "free") if live else ("allocate",)))
        try:
            if kind == "allocate":
                allocator.allocate(f"s{named}", draw(st.integers(min_value=1, max_value=3 * block_size)))
                live.append(f"s{named}")
                named += 1
            elif kind == "append":
                allocator.append_token(draw(st.sampled_from(tuple(live))))
            elif kind == "fork":
                allocator.fork(draw(st.sampled_from(tuple(live))), f"s{named}")
                live.append(f"s{named}")
                named += 1
            else:
                seq_id = draw(st.sampled_from(tuple(live)))
                allocator.free(seq_id)
                live.remove(seq_id)
        except OutOfBlocks:
            pass  # the pool ran dry; the call changed nothing
    if len(live) < min_live:  # the smallest sequence the pool can hold: it is empty
        allocator.allocate(f"s{named}", 1)
        live.append(f"s{named}")
    return History(allocator=allocator, live=tuple(live), num_blocks=num_blocks, block_size=block_size)


def _on_live(history: History) -> SearchStrategy[Call]:
    return st.sampled_from(history.live).map(lambda seq_id: ((history.allocator, seq_id), {}))


@st.composite
def _allocate_calls(draw: st.DrawFn) -> Call:
    history = draw(histories().filter(lambda history: history.allocator.num_free_blocks > 0))
    tokens = st.integers(min_value=1, max_value=history.allocator.num_free_blocks * history.block_size)
    return (history.allocator, "new", draw(tokens)), {}


@st.composite
def _fork_calls(draw: st.DrawFn) -> Call:
    history = draw(histories(min_live=1))
    return (history.allocator, draw(st.sampled_from(history.live)), "new"), {}


@st.composite
def _ref_count_calls(draw: st.DrawFn) -> Call:
    history = draw(histories())
    return (history.allocator, draw(st.integers(min_value=0, max_value=history.num_blocks - 1))), {}


def call_strategies() -> dict[str, SearchStrategy[Call]]:
    """For each public callable, a strategy of valid `(args, kwargs)`; an `append_token` call
    may still find the pool empty, which its contract answers with `OutOfBlocks`."""
    live = histories(min_live=1).flatmap(_on_live)
    return {
        "BlockAllocator": sizes().map(lambda pair: (pair, {})),
        "BlockAllocator.allocate": _allocate_calls(),
        "BlockAllocator.append_token": live,
        "BlockAllocator.fork": _fork_calls(),
        "BlockAllocator.free": live,
        "BlockAllocator.block_table": live,
        "BlockAllocator.num_tokens": live,
        "BlockAllocator.ref_count": _ref_count_calls(),
    }
