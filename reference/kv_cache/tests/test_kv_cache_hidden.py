"""Held-back tests for the block allocator: a dict-based model under random calls, invariants
and the remaining edges of `reference/kv_cache/problem.md`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from reference.kv_cache import BlockAllocator, OutOfBlocks
from reference.kv_cache.strategies import SEQ_IDS, History, call_strategies, histories

pytestmark = pytest.mark.hidden


@dataclass
class Model:
    """The contract of problem.md longhand: tables and token counts in dicts, and everything
    else (reference counts, the free pool) recounted from the tables on every question."""

    num_blocks: int
    block_size: int
    tables: dict[str, list[int]] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)

    def refs(self) -> Counter[int]:
        return Counter(block for table in self.tables.values() for block in table)

    def free_pool(self) -> list[int]:
        refs = self.refs()
        return [block for block in range(self.num_blocks) if refs[block] == 0]

    def blocks_for(self, tokens: int) -> int:
        blocks = 0
        while blocks * self.block_size < tokens:
            blocks += 1
        return blocks

    # Each operation returns its result, or the set of exception types it may raise (and then
    # changes nothing).
    def allocate(self, seq_id: str, tokens: int) -> tuple[int, ...] | set[type]:
        errors: set[type] = set()
        if seq_id in self.tables or tokens < 1:
            errors.add(ValueError)
        if tokens >= 1 and self.blocks_for(tokens) > len(self.free_pool()):
            errors.add(OutOfBlocks)
        if errors:
            return errors
        self.tables[seq_id] = self.free_pool()[: self.blocks_for(tokens)]
        self.tokens[seq_id] = tokens
        return tuple(self.tables[seq_id])

    def append_token(self, seq_id: str) -> int | None | set[type]:
        if seq_id not in self.tables:
            return {KeyError}
        table = self.tables[seq_id]
        full = self.tokens[seq_id] == len(table) * self.block_size
        shared = self.refs()[table[-1]] > 1
        new = None
        if full or shared:
            if not self.free_pool():
                return {OutOfBlocks}
            new = self.free_pool()[0]
            if full:
                table.append(new)
            else:
                table[-1] = new
        self.tokens[seq_id] += 1
        return new

    def fork(self, parent: str, child: str) -> None | set[type]:
        errors: set[type] = set()
        if parent not in self.tables:
            errors.add(KeyError)
        if child in self.tables:
            errors.add(ValueError)
        if errors:
            return errors
        self.tables[child] = list(self.tables[parent])
        self.tokens[child] = self.tokens[parent]
        return None

    def free(self, seq_id: str) -> None | set[type]:
        if seq_id not in self.tables:
            return {KeyError}
        del self.tables[seq_id], self.tokens[seq_id]
        return None


def same_outcome(call, expected) -> None:
    """The allocator's call returns what the model returned, or raises a type the model allows.

    The contract's own errors are answers, compared as data: refusing a call that should succeed
    is a wrong answer like any other. Any other exception is a crash and propagates."""
    try:
        got = call()
    except (ValueError, KeyError, OutOfBlocks) as error:
        assert isinstance(expected, set), f"raised {type(error).__name__}, expected {expected!r}"
        assert isinstance(error, tuple(expected)), f"raised {type(error).__name__}, expected one of {expected}"
        return
    assert not isinstance(expected, set), f"returned {got!r}, expected one of {expected} raised"
    assert got == expected


class AllocatorMachine(RuleBasedStateMachine):
    """Random calls, valid or not, to the allocator and to the model; the whole observable state
    must agree after every call."""

    @initialize(num_blocks=st.integers(1, 9), block_size=st.integers(1, 3))
    def start(self, num_blocks: int, block_size: int) -> None:
        self.real = BlockAllocator(num_blocks, block_size)
        self.model = Model(num_blocks, block_size)

    @rule(seq_id=st.sampled_from(SEQ_IDS), tokens=st.integers(-1, 8))
    def allocate(self, seq_id: str, tokens: int) -> None:
        expected = self.model.allocate(seq_id, tokens)
        same_outcome(lambda: self.real.allocate(seq_id, tokens), expected)

    @rule(seq_id=st.sampled_from(SEQ_IDS))
    def append_token(self, seq_id: str) -> None:
        expected = self.model.append_token(seq_id)
        same_outcome(lambda: self.real.append_token(seq_id), expected)

    @rule(seq_id=st.sampled_from(SEQ_IDS), times=st.integers(2, 4))
    def append_several(self, seq_id: str, times: int) -> None:
        for _ in range(times):
            self.append_token(seq_id)

    @rule(parent=st.sampled_from(SEQ_IDS), child=st.sampled_from(SEQ_IDS))
    def fork(self, parent: str, child: str) -> None:
        expected = self.model.fork(parent, child)
        same_outcome(lambda: self.real.fork(parent, child), expected)

    @rule(seq_id=st.sampled_from(SEQ_IDS))
    def free(self, seq_id: str) -> None:
        expected = self.model.free(seq_id)
        same_outcome(lambda: self.real.free(seq_id), expected)

    @invariant()
    def same_state(self) -> None:
        if not hasattr(self, "real"):
            return
        for seq_id in SEQ_IDS:
            if seq_id in self.model.tables:
                assert self.real.block_table(seq_id) == tuple(self.model.tables[seq_id]), seq_id
                assert self.real.num_tokens(seq_id) == self.model.tokens[seq_id], seq_id
            else:
                for lookup in (self.real.block_table, self.real.num_tokens):
                    with pytest.raises(KeyError):
                        lookup(seq_id)
        refs = self.model.refs()
        assert [self.real.ref_count(b) for b in range(self.model.num_blocks)] == [
            refs[b] for b in range(self.model.num_blocks)]
        assert self.real.num_free_blocks == len(self.model.free_pool())


def test_matches_a_dict_model_under_random_calls() -> None:
    """Allocations, appends, forks and frees, valid or not, leave the allocator exactly where the
    model is: tables, token counts, reference counts, free pool, results and errors."""
    run_state_machine_as_test(AllocatorMachine, settings=settings(stateful_step_count=25))


def observed(history: History) -> tuple[dict[str, tuple[int, ...]], list[int], int]:
    a = history.allocator
    tables = {seq_id: a.block_table(seq_id) for seq_id in history.live}
    return tables, [a.ref_count(b) for b in range(history.num_blocks)], a.num_free_blocks


@given(history=histories())
def test_invariants_hold_after_any_history(history: History) -> None:
    """free + referenced = num_blocks, free blocks are in no table, counts sum to table lengths,
    and every sequence holds ceil(tokens / block_size) blocks."""
    tables, refs, free = observed(history)
    assert free + sum(1 for count in refs if count > 0) == history.num_blocks
    assert sum(refs) == sum(len(table) for table in tables.values())
    held = Counter(block for table in tables.values() for block in table)
    assert all(refs[block] == held[block] for block in range(history.num_blocks))
    for seq_id, table in tables.items():
        tokens = history.allocator.num_tokens(seq_id)
        assert len(table) == -(-tokens // history.block_size)
        assert len(set(table)) == len(table)


@given(history=histories(min_live=1), data=st.data())
def test_rejected_calls_change_nothing(history: History, data: st.DataObject) -> None:
    """Every refused call (bad ids, bad counts, an empty pool) leaves the state as it was."""
    a = history.allocator
    before = observed(history)
    live = data.draw(st.sampled_from(history.live))
    calls = [
        (ValueError, lambda: a.allocate(live, 1)),
        (ValueError, lambda: a.allocate("new", 0)),
        (ValueError, lambda: a.allocate("new", -3)),
        (OutOfBlocks, lambda: a.allocate("new", (a.num_free_blocks + 1) * history.block_size)),
        (KeyError, lambda: a.fork("new", "other")),
        (ValueError, lambda: a.fork(live, live)),
        (KeyError, lambda: a.append_token("new")),
        (KeyError, lambda: a.free("new")),
        (ValueError, lambda: a.ref_count(history.num_blocks)),
        (ValueError, lambda: a.ref_count(-1)),
    ]
    for error, call in calls:
        with pytest.raises(error):
            call()
        assert observed(history) == before


def test_allocate_exactly_the_free_blocks() -> None:
    """A request for exactly the free blocks succeeds; one token more needs one block too many."""
    a = BlockAllocator(num_blocks=3, block_size=2)
    with pytest.raises(OutOfBlocks):
        a.allocate("big", 7)
    assert a.num_free_blocks == 3
    assert a.allocate("s", 6) == (0, 1, 2)
    assert a.num_free_blocks == 0
    with pytest.raises(OutOfBlocks):
        a.allocate("t", 1)


def test_append_out_of_blocks_changes_nothing() -> None:
    """A full last block (rule 1) or a shared one (rule 2) with an empty pool: OutOfBlocks, and
    the sequence keeps its table and token count."""
    a = BlockAllocator(num_blocks=2, block_size=2)
    a.allocate("full", 4)
    with pytest.raises(OutOfBlocks):
        a.append_token("full")
    assert (a.block_table("full"), a.num_tokens("full")) == ((0, 1), 4)
    b = BlockAllocator(num_blocks=1, block_size=2)
    b.allocate("p", 1)
    b.fork("p", "c")
    with pytest.raises(OutOfBlocks):
        b.append_token("c")
    assert (b.block_table("c"), b.num_tokens("c"), b.ref_count(0)) == ((0,), 1, 2)


def test_append_after_the_other_holder_copied_writes_in_place() -> None:
    """Once the child copied the shared block, the parent holds it alone: no second copy."""
    a = BlockAllocator(num_blocks=4, block_size=4)
    a.allocate("p", 2)
    a.fork("p", "c")
    assert a.append_token("c") == 1
    assert a.ref_count(0) == 1
    assert a.append_token("p") is None
    assert (a.block_table("p"), a.num_tokens("p")) == ((0,), 3)


def test_full_shared_block_is_not_copied() -> None:
    """A shared last block that is full stays shared: the writer only appends a new block."""
    a = BlockAllocator(num_blocks=4, block_size=2)
    a.allocate("p", 4)
    a.fork("p", "c")
    assert a.append_token("c") == 2
    assert a.block_table("c") == (0, 1, 2)
    assert [a.ref_count(b) for b in range(4)] == [2, 2, 1, 0]


def test_fork_of_a_fork_counts_every_holder() -> None:
    """Three sequences on one block: count 3; copies and frees bring it down one at a time."""
    a = BlockAllocator(num_blocks=4, block_size=4)
    a.allocate("a", 1)
    a.fork("a", "b")
    a.fork("b", "c")
    assert a.ref_count(0) == 3
    assert a.append_token("b") == 1
    assert a.ref_count(0) == 2
    a.free("a")
    assert a.ref_count(0) == 1
    assert a.append_token("c") is None
    a.free("c")
    assert (a.ref_count(0), a.num_free_blocks) == (0, 3)


def test_block_size_one_takes_a_block_per_token() -> None:
    """With one token per block every append takes a new block, even right after a fork."""
    a = BlockAllocator(num_blocks=5, block_size=1)
    assert a.allocate("s", 2) == (0, 1)
    a.fork("s", "t")
    assert a.append_token("t") == 2
    assert a.append_token("s") == 3
    assert (a.block_table("s"), a.block_table("t")) == ((0, 1, 3), (0, 1, 2))


def test_freed_id_may_be_used_again() -> None:
    """After free the id is unknown, then free for a new allocation or fork."""
    a = BlockAllocator(num_blocks=4, block_size=2)
    a.allocate("s", 3)
    a.free("s")
    with pytest.raises(KeyError):
        a.num_tokens("s")
    with pytest.raises(KeyError):
        a.free("s")
    assert a.allocate("s", 1) == (0,)
    a.allocate("t", 1)
    a.free("t")
    a.fork("s", "t")
    assert a.block_table("t") == (0,)


def test_fork_and_allocate_refuse_live_ids() -> None:
    """A live id, a forked one included, cannot be allocated or forked onto."""
    a = BlockAllocator(num_blocks=4, block_size=2)
    a.allocate("p", 1)
    a.fork("p", "c")
    for seq_id in ("p", "c"):
        with pytest.raises(ValueError):
            a.allocate(seq_id, 1)
        with pytest.raises(ValueError):
            a.fork("p", seq_id)
    with pytest.raises(KeyError):
        a.fork("gone", "x")
    assert a.num_free_blocks == 3


def test_ref_count_of_every_valid_block_and_no_other() -> None:
    """ref_count answers for 0 .. num_blocks - 1, 0 when free, and refuses ids outside."""
    a = BlockAllocator(num_blocks=3, block_size=1)
    a.allocate("s", 1)
    assert [a.ref_count(b) for b in range(3)] == [1, 0, 0]
    for block in (-1, 3, 10):
        with pytest.raises(ValueError):
            a.ref_count(block)


def test_smallest_sizes_are_accepted() -> None:
    """One block of one token is a working, if tiny, allocator."""
    a = BlockAllocator(1, 1)
    assert a.allocate("s", 1) == (0,)
    with pytest.raises(OutOfBlocks):
        a.append_token("s")


def test_out_of_blocks_is_a_runtime_error() -> None:
    """OutOfBlocks is a RuntimeError, so generic handlers catch it."""
    assert issubclass(OutOfBlocks, RuntimeError)
    a = BlockAllocator(1, 1)
    with pytest.raises(RuntimeError):
        a.allocate("s", 2)


@pytest.mark.parametrize("name", sorted(call_strategies()))
def test_call_strategies_give_valid_calls(name: str) -> None:
    """Every strategy yields arguments the public callable accepts (OutOfBlocks aside)."""
    function = getattr(BlockAllocator, name.split(".")[1]) if "." in name else BlockAllocator

    @settings(max_examples=5)
    @given(call=call_strategies()[name])
    def check(call: tuple[tuple, dict]) -> None:
        args, kwargs = call
        try:
            function(*args, **kwargs)
        except OutOfBlocks:
            assert name == "BlockAllocator.append_token"

    check()
