"""Edits that read as generated are not handed out; the slips people really make still are."""

from __future__ import annotations

from pathlib import Path

import pytest

from bugsmith.harness.exercises.assemble.traces import machine_trace
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants
from bugsmith.mutators.mutant import Family, Mutant, Span

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


def test_one_half_of_a_parallel_pair_is_a_trace_and_so_are_two_equal_halves(tmp_path):
    """Changing one half's operator or bound breaks the symmetry; `n_right` written where
    `n_left` belongs makes the halves one and the same, which a reader sees at once (a subject
    changed to a third name is kept: test_a_third_name_in_one_half_is_kept)."""
    found = traces(tmp_path)
    halves = [original for _, _, original, _, why in found if why == "one half of a parallel pair changed"]
    assert halves and set(halves) <= {">=", "leaf"} and ">=" in halves
    slips = [why for _, _, original, mutated, why in found if (original, mutated) == ("n_left", "n_right")]
    assert slips and set(slips) == {"both sides of `&` made the same expression"}


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


# Two operands made one ---------------------------------------------------------------------------

TWINS = '''\
def f(a, b, c, x, y, lo, hi, count, total, values, other):
    same = a == b
    gone = x - y
    both = count and total
    inside = lo < hi
    top = np.maximum(a, b)
    low = min(x, y)
    pick = a if c else b
    spread = x - (
        y
    )
    square = x * y
    shape = values.reshape(1, 2)
    ratio = np.divide(a, b, out=other)
    nan = x != x
    pair = g(a, a) + b
    third = (lo >= c) & (hi >= c)
    return same
'''


def edit(source: str, context: str, token: str, new: str) -> Mutant:
    """A mutant of `source` that replaces the last `token` of the first `context` by `new`."""
    at = source.index(context) + context.rindex(token)
    line = source.count("\n", 0, at) + 1
    column = at - (source.rfind("\n", 0, at) + 1)
    return Mutant(id=f"{line}:{column}", operator="beyond/wrong-variable", family=Family.BEYOND, file="m.py",
                  module="m", function="f", scope="f",
                  span=Span(line=line, column=column, end_line=line, end_column=column + len(token)),
                  original=token, mutated=new, explanation="", diff="")


@pytest.mark.parametrize(("context", "token", "new", "why"), [
    ("a == b", "b", "a", "both sides of `==` made the same expression"),
    ("x - y", "y", "x", "both sides of `-` made the same expression"),
    ("count and total", "total", "count", "both sides of `and` made the same expression"),
    ("lo < hi", "hi", "lo", "both sides of `<` made the same expression"),
    ("np.maximum(a, b)", "b", "a", "two arguments of a call made the same expression"),
    ("min(x, y)", "x", "y", "two arguments of a call made the same expression"),
    ("a if c else b", "b", "a", "both branches of a conditional expression made the same"),
    ("spread = x - (\n        y", "y", "x", "both sides of `-` made the same expression"),
])
def test_two_operands_made_one_are_a_trace(context, token, new, why):
    """`lo < lo`, `min(x, x)`, `a if c else a`: nobody writes an operation whose two sides are
    the same code; parentheses and line breaks around one side change nothing."""
    assert machine_trace(edit(TWINS, context, token, new), TWINS) == why


@pytest.mark.parametrize(("context", "token", "new"), [
    ("a == b", "b", "c"),  # still two different operands
    ("x * y", "y", "x"),  # a square is written so
    ("values.reshape(1, 2)", "2", "1"),  # equal numbers in a call are shapes and bounds
    ("out=other", "other", "a"),  # `np.divide(a, b, out=a)` works in place
    ("x != x", "!=", "=="),  # the twins were there before the edit (a NaN test)
    ("g(a, a) + b", "+", "-"),
    ("(lo >= c) & (hi >= c)", "hi", "x"),  # a third name in one half: a slip people make
])
def test_operands_that_were_already_the_same_or_stay_different_are_no_trace(context, token, new):
    assert machine_trace(edit(TWINS, context, token, new), TWINS) is None


def test_a_third_name_in_one_half_is_kept():
    """A subject changed to a name that is neither half's breaks no symmetry a reader can see."""
    assert machine_trace(edit(TWINS, "(lo >= c) & (hi >= c)", "lo", "x"), TWINS) is None


QUEUES = '''\
class Scheduler:
    def __init__(self):
        self._waiting = []
        self._running = []

    def busy(self):
        if self._waiting or self._running:
            return len(self._waiting) + len(self._running)
        return 0
'''


def test_the_wrong_attribute_that_repeats_its_neighbour_is_a_trace(tmp_path):
    """The engine's `self._waiting or self._waiting` (issue 38) is refused; the same wrong
    attribute where the other operand differs is kept."""
    path = tmp_path / "s.py"
    path.write_text(QUEUES)
    mutants = enumerate_mutants([path], root=tmp_path, mutators=registry.select(())).mutants
    wrong = {(m.span.line, m.original, m.mutated): machine_trace(m, QUEUES) for m in mutants
             if m.operator == "beyond/wrong-attribute"}
    assert wrong[(7, "self._running", "self._waiting")] == "both sides of `or` made the same expression"
    assert wrong[(7, "self._waiting", "self._running")] == "both sides of `or` made the same expression"
    assert wrong[(8, "self._running", "self._waiting")] == "both sides of `+` made the same expression"
