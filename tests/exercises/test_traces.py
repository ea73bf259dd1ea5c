"""Edits that read as generated are not handed out; the slips people really make still are."""

from __future__ import annotations

import dataclasses
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


def test_one_of_two_twins_given_an_operator_from_nowhere_is_a_trace_but_a_boundary_slip_is_not(tmp_path):
    """`(n_left >= leaf) & (n_right >= leaf)`: `>` in one half is the off-by-one a person makes
    while editing one of two twins, and is kept; `<=`, which nothing in `valid` uses, is a
    generator's; `n_right` written where `n_left` belongs makes the halves one and the same,
    which a reader sees at once (a subject changed to a third name is kept:
    test_a_third_name_in_one_half_is_kept)."""
    found = [(original, mutated, why) for _, line, original, mutated, why in traces(tmp_path) if line == 8]
    assert {why for original, mutated, why in found if (original, mutated) == (">=", ">")} == {None}
    flips = {why for original, mutated, why in found if (original, mutated) == (">=", "<=")}
    assert flips == {"one of two twins given `<=`, which nothing near it uses"}
    slips = {why for original, mutated, why in found if (original, mutated) == ("n_left", "n_right")}
    assert slips == {"both sides of `&` made the same expression"}


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


# One of two twins ------------------------------------------------------------------------------

SLIPS = '''\
def split(xs, k, lo, hi):
    left_sum = right_sum = 0
    for x in xs:
        if x < k:
            left_sum += x
        else:
            right_sum -= x
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return left_sum, right_sum, lo


class Window:
    def __init__(self, size):
        self.size = size
        self.low = self.high = 0

    def push(self, x):
        self.low_count += x < self.low
        self.high_count += x > self.high
'''


@pytest.mark.parametrize(("context", "token", "new"), [
    ("right_sum -= x", "-=", "+="),  # the twin's operator copied: a sign flipped in one of two mirrored updates
    ("right_sum -= x", "right_sum", "left_sum"),  # the twin's name copied
    ("lo = mid + 1", "1", "2"),  # a number one off
    ("lo = mid + 1", "mid + 1", "mid"),  # a part the other branch lacks left out
    ("hi = mid", "mid", "k"),  # a name the function uses
    ("self.high_count += x > self.high", "high", "size"),  # an attribute the class uses in another method
    ("self.high_count += x > self.high", ">", ">="),  # the bound moved by one
])
def test_a_slip_in_one_of_two_twins_that_the_code_explains_is_no_trace(context, token, new):
    """Each edit leaves the twin in its old form and gives the edited one a form its twin, its
    function or its class already has, or one off-by-one edit away: a slip people make."""
    assert machine_trace(edit(SLIPS, context, token, new), SLIPS) is None


@pytest.mark.parametrize(("context", "token", "new", "brought"), [
    ("right_sum -= x", "-=", "*=", "*"),  # an operator the function never uses
    ("lo = mid + 1", "1", "3", "3"),  # a constant neither one off nor found near
    ("hi = mid", "mid", "middle", "middle"),  # a name that appears nowhere
    ("self.high_count += x > self.high", "high", "width", "width"),  # an attribute the class never has
])
def test_one_of_two_twins_given_a_form_nothing_near_explains_is_a_trace(context, token, new, brought):
    """An edit that no earlier form explains reads as generated: the trace names what it brought."""
    why = machine_trace(edit(SLIPS, context, token, new), SLIPS)
    assert why == f"one of two twins given `{brought}`, which nothing near it uses"


def test_the_same_edit_outside_a_twin_is_no_trace():
    """The rule is about twins: `lo < hi` -> `lo * hi` in the loop's condition, which has no twin,
    is left to the other rules even though nothing in the function multiplies."""
    assert machine_trace(edit(SLIPS, "while lo < hi", "<", "*"), SLIPS) is None


def test_a_domain_family_s_edit_of_one_twin_is_read_as_its_misconception():
    """`fpr = fps / fps[-1]` -> `fps / (fps[-1] + tps[-1])` brings a `+` the function never uses,
    but it is the metric family's rate divided by every sample, a mistake of understanding that
    its own reason explains; the same text from a generic operator is a trace."""
    source = "def rates(fps, tps):\n    fpr = fps / fps[-1]\n    tpr = tps / tps[-1]\n    return fpr, tpr\n"
    generic = edit(source, "fpr = fps / fps[-1]", "fps[-1]", "(fps[-1] + tps[-1])")
    domain = dataclasses.replace(generic, operator="metric/wrong-class-count", family=Family.METRIC)
    assert machine_trace(generic, source) == "one of two twins given `+`, which nothing near it uses"
    assert machine_trace(domain, source) is None
