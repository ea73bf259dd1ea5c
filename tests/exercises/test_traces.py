"""Edits that read as generated are not handed out; the slips people really make still are."""

from __future__ import annotations

from pathlib import Path

from bugsmith.harness.exercises.assemble.traces import machine_trace
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants

SOURCE = '''\
def fits(size, budget, running, limit):
    if size > budget:
        return False
    return running < limit


def valid(n_left, n_right, leaf):
    return (n_left >= leaf) & (n_right >= leaf)


def flatten(array):
    if array.ndim == 2:
        array = array.ravel()
    return array


def total(values):
    result = sum(values)
    return result


def is_empty(queue):
    return False
'''


def traces(tmp_path: Path) -> list[tuple[str, int, str, str, str | None]]:
    """Each mutant of SOURCE as (operator, line, original, mutated, its machine trace)."""
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    mutants = enumerate_mutants([path], root=tmp_path, mutators=registry.select(())).mutants
    return [(m.operator, m.span.line, m.original, m.mutated, machine_trace(m, SOURCE)) for m in mutants]


def test_a_lone_pass_left_by_a_deletion_is_a_trace(tmp_path):
    deleted = [why for _, _, original, _, why in traces(tmp_path) if original == "array = array.ravel()"]
    assert deleted and all(why == "a statement deleted leaves a lone `pass`" for why in deleted)


def test_a_bare_return_none_is_a_trace(tmp_path):
    found = traces(tmp_path)
    nones = [why for op, _, _, _, why in found if op == "classic/return-none"]
    assert nones and set(nones) == {"a returned value replaced by a bare `return None`"}


def test_a_flipped_guard_is_a_trace_but_a_flipped_result_is_not(tmp_path):
    flips = {line: why for op, line, _, _, why in traces(tmp_path) if op == "classic/return-bool"}
    assert flips == {3: "a guard's `return False` turned into `return True`", 23: None}


def test_one_half_of_a_parallel_pair_is_a_trace_but_a_copy_paste_slip_is_not(tmp_path):
    found = traces(tmp_path)
    halves = [original for _, _, original, _, why in found if why == "one half of a parallel pair changed"]
    # The operator or the right-hand side of one half: both break the symmetry.
    assert halves and set(halves) <= {">=", "leaf"} and ">=" in halves
    # `n_right` written where `n_left` belongs is what copying one half produces: kept.
    slips = [why for _, _, original, mutated, why in found if (original, mutated) == ("n_left", "n_right")]
    assert slips and all(why is None for why in slips)


def test_ordinary_edits_have_no_trace(tmp_path):
    kept = [(line, original) for _, line, original, _, why in traces(tmp_path) if why is None]
    assert {line for line, _ in kept} >= {2, 4, 8, 12, 23}


QUEUE = '''\
def admit(waiting, budget):
    admitted = []
    while waiting:
        entry = waiting[0]
        if entry > budget:
            break
        waiting.popleft()
        budget -= entry
        admitted.append(entry)
    return admitted


def check(df, columns):
    for column in columns:
        if column not in df:
            raise KeyError(column)
    return df


def fits(size, budget, running, limit):
    if size > budget:
        return False
    return running < limit
'''


def queue_traces(tmp_path: Path) -> list[tuple[str, int, str, str | None]]:
    path = tmp_path / "q.py"
    path.write_text(QUEUE)
    mutants = enumerate_mutants([path], root=tmp_path, mutators=registry.select(())).mutants
    return [(m.operator, m.span.line, m.mutated, machine_trace(m, QUEUE)) for m in mutants]


def test_a_peek_left_dangling_before_a_pop_is_a_trace_but_popping_the_wrong_end_is_not(tmp_path):
    """Moving the check after the removal (or dropping it) leaves `entry = waiting[0]` right
    above a bare `waiting.popleft()`; `pop()` for `popleft()` reads as a slip and stays."""
    found = queue_traces(tmp_path)
    moved = [why for op, line, _, why in found if line == 5 and op in
             ("scheduling/check-after-insert", "beyond/remove-guard")]
    assert moved and set(moved) == {"a peek left dangling before a pop"}
    wrong_end = [why for op, _, _, why in found if op == "scheduling/pop-wrong-end"]
    assert wrong_end and set(wrong_end) == {None}


def test_a_guard_removed_from_a_loop_leaves_a_lone_pass(tmp_path):
    found = [why for op, line, mutated, why in queue_traces(tmp_path) if line == 15 and mutated.strip() == "pass"]
    assert found and set(found) == {"a statement deleted leaves a lone `pass`"}


def test_a_check_replaced_by_a_constant_is_a_trace(tmp_path):
    """`return running < limit` becoming `return True` makes the predicate ignore its inputs."""
    constants = {why for _, line, mutated, why in queue_traces(tmp_path)
                 if line == 23 and mutated.strip() in ("True", "False", "return True", "return False")}
    assert constants == {"a computed check replaced by a constant"}
