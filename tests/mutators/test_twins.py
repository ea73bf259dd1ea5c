"""Twins (issue 40, item 4): which code is written as a pair, where the line lies between a slip
in one of two twins and a generated edit, and the two operators that make the slips."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from bugsmith.harness.exercises.assemble.traces import machine_trace
from bugsmith.mutators import registry
from bugsmith.mutators.analysis.slips import unexplained
from bugsmith.mutators.analysis.twins import all_twins, compare
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families.beyond.twins import TwinCopied, TwinNotUpdated
from bugsmith.mutators.testing import mutated_sources


def pairs(source: str) -> list[tuple[str, str, dict[str, str], tuple[str, str] | None]]:
    """Every pair of twins in `source`: (first, second, renamed names, the other difference)."""
    module = cst.parse_module(textwrap.dedent(source))
    code = module.code_for_node
    return [(code(t.first).strip(), code(t.second).strip(), t.names(),
             None if t.different is None else (code(t.different[0]).strip(), code(t.different[1]).strip()))
            for t in all_twins(module)]


def statement(code: str) -> cst.BaseSmallStatement:
    line = cst.parse_statement(code)
    assert isinstance(line, cst.SimpleStatementLine)
    return line.body[0]


# Which code is written as a pair ------------------------------------------------------------------

def test_the_issue_s_three_shapes_are_twins():
    """A mirrored update, two halves of a condition, the two branches of a binary search."""
    found = pairs('''
        def f(xs, k, lo, hi, n_left, n_right, x):
            left_sum += x
            right_sum -= x
            valid = (n_left >= k) & (n_right >= k)
            if xs[lo] < k:
                lo = mid + 1
            else:
                hi = mid
    ''')
    assert ("left_sum += x", "right_sum -= x", {"left_sum": "right_sum"}, ("+=", "-=")) in found
    assert ("(n_left >= k)", "(n_right >= k)", {"n_left": "n_right"}, None) in found
    assert ("lo = mid + 1", "hi = mid", {"lo": "hi"}, ("mid + 1", "mid")) in found


@pytest.mark.parametrize(("first", "second"), [
    ("x = a + a", "y = a + b"),  # `a` would stand for both `a` and `b`: no consistent renaming
    ("a.append(b)", "c.append(d)"),  # one shared token, and the names share no word
    ("seq = iter(parts[0])", "seq = merge(parts)"),  # two functions, two arguments: two computations
    ("x = f(a) + 1", "y = f(b) * 2"),  # two differences besides the names
    ("total = a + b", "total = a + b"),  # one line written twice is not a pair
])
def test_code_that_only_looks_alike_is_not_twins(first, second):
    assert compare(statement(first), statement(second)) is None


def test_places_that_pair_code_are_neighbours_branches_and_operands():
    """Neighbouring statements only (not every two lines of a block), the same place of an
    `if`'s two branches, neighbouring operands of a chain (`a & b & c` pairs a-b and b-c)."""
    found = {(first, second) for first, second, _, _ in pairs('''
        def f(a, b, c, k):
            a_min = a.min() + k
            unrelated = call()
            b_min = b.min() + k
            ok = (a > k) & (b > k) & (c > k)
            if k:
                lo_count = a.count(k) + 1
                hi_count = b.count(k) + 1
            else:
                lo_count = a.count(k)
                hi_count = b.count(k)
    ''')}
    assert ("a_min = a.min() + k", "b_min = b.min() + k") not in found
    assert {("(a > k)", "(b > k)"), ("(b > k)", "(c > k)")} <= found
    assert ("(a > k)", "(c > k)") not in found
    assert ("lo_count = a.count(k) + 1", "lo_count = a.count(k)") in found
    assert ("lo_count = a.count(k) + 1", "hi_count = b.count(k) + 1") in found
    assert ("lo_count = a.count(k) + 1", "hi_count = b.count(k)") not in found


def test_types_are_not_part_of_a_pair():
    """Annotations are never run: `deque[T]` beside `list[T]` is no name pair, so
    `self._waiting: deque = deque()` and `self._running: list = []` share only `self`."""
    assert compare(statement("self._waiting: deque[int] = deque()"),
                   statement("self._running: list[int] = []")) is None


# Where the line is -------------------------------------------------------------------------------

NEAR = "def f(xs, k):\n    left_sum += x\n    right_sum -= x\n    return left_sum < k\n"


@pytest.mark.parametrize(("before", "after"), [
    ("right_sum -= x", "right_sum += x"),  # the twin's operator
    ("right_sum -= x", "left_sum -= x"),  # the twin's name
    ("right_sum -= x", "right_sum -= k"),  # a name the function uses
    ("n < k", "n <= k"),  # the bound moved by one
    ("mid + 1", "mid + 2"),  # a number one off
    ("x.sum(axis=1)", "x.sum()"),  # a part left out
])
def test_edits_an_earlier_form_explains_are_slips(before, after):
    assert unexplained(before, after, NEAR) is None


@pytest.mark.parametrize(("before", "after", "brought"), [
    ("right_sum -= x", "right_sum *= x", "*"),
    ("right_sum -= x", "right_sum -= y", "y"),
    ("n < k", "n != k", "!="),
    ("mid + 1", "mid + 3", "3"),
    ("mid + 1.0", "mid + 3.0", "3.0"),
])
def test_edits_nothing_near_explains_are_generated(before, after, brought):
    assert unexplained(before, after, NEAR) == brought


def test_an_integer_and_a_float_of_one_value_are_two_tokens():
    """`1` and `1.0` are both in `x[::-1], 1.0`: dropping the `1` of the slice for `2` is still
    the slice's number one off, and `2.0` for `1.0` is the float's."""
    assert unexplained("x[::-1], 1.0", "x[::-2], 1.0", "f(x)") is None
    assert unexplained("x[::-1], 1.0", "x[::-1], 2.0", "f(x)") is None
    assert unexplained("x[::-1], 1.0", "x[::-1], 5", "f(x)") == "5"


# The operators ------------------------------------------------------------------------------------

def test_the_copy_goes_from_the_first_twin_into_the_second_only():
    """The copy is the later line: `fpr`'s names are not replaced by `tpr`'s."""
    source = "def f(fps, tps, last):\n    fpr = fps[last] / fps[-1]\n    tpr = tps[last] / tps[-1]\n    return fpr, tpr\n"
    made = mutated_sources(TwinCopied(), source)
    assert sorted(made) == sorted([
        source.replace("tpr = tps[last]", "tpr = fps[last]"),
        source.replace("/ tps[-1]", "/ fps[-1]"),
    ])


def test_an_else_and_an_elif_pair_with_the_branch_above():
    source = textwrap.dedent('''
        def clamp(x, lo, hi):
            if x < lo:
                lo_hits = lo_hits + 1
            elif x > hi:
                hi_hits = hi_hits - 1
            else:
                mid_hits = mid_hits - 1
    ''')
    made = {text.splitlines()[5].strip() for text in mutated_sources(TwinCopied(), source)
            if text.splitlines()[5] != source.splitlines()[5]}
    assert made == {"hi_hits = lo_hits - 1", "hi_hits = hi_hits + 1"}
    made_else = {text.splitlines()[7].strip() for text in mutated_sources(TwinCopied(), source)
                 if text.splitlines()[7] != source.splitlines()[7]}
    assert made_else == {"mid_hits = hi_hits - 1"}  # the operator is the same: only the name


def test_not_updated_edits_each_twin_once_though_it_has_two_neighbours():
    """The middle line is a twin of the line above and of the line below: its `+ 1` is left out
    once."""
    source = "def f(a, b, c):\n    x = a.n + 1\n    y = b.n + 1\n    z = c.n + 1\n    return x, y, z\n"
    made = mutated_sources(TwinNotUpdated(), source)
    assert len(made) == len(set(made)) == 3
    assert source.replace("y = b.n + 1", "y = b.n") in made


def test_twins_in_noise_and_outside_functions_are_left_alone():
    """A raise message, a logging call and a module-level table are not logic."""
    source = textwrap.dedent('''
        LOW = base + 1
        HIGH = top + 1


        def f(a, b, log):
            log.info("low %s", a + 1)
            log.info("high %s", b + 1)
            raise ValueError(f"{a.low + 1} {b.high + 1}")
    ''')
    assert mutated_sources(TwinNotUpdated(), source) == []
    assert mutated_sources(TwinCopied(), source) == []


def test_the_explanation_quotes_the_twin_even_when_it_holds_braces():
    source = "def f(a, b):\n    x = {'k': a}.get('k') + 1\n    y = {'k': b}.get('k') + 1\n"
    made = mutants_of_source(source, file="m.py", module="m", mutators=[TwinNotUpdated()]).mutants
    assert made and all("{'k': " in mutant.explanation for mutant in made)
    assert {m.explanation.split("`")[5] for m in made} == {"y = {'k': b}.get('k') + 1", "x = {'k': a}.get('k') + 1"}


def test_other_operators_keep_their_mutants_where_a_twin_operator_makes_the_same_code():
    """`~positive` -> `positive` is `classic/drop-unary`'s, `tps` -> `fps` `beyond/wrong-variable`'s:
    appended last, the twin operators propose at an edit's last token, after every other
    operator's proposal of the same code, so no existing id or wording changes."""
    source = textwrap.dedent('''
        import numpy as np


        def rates(weights, positive):
            tps = np.cumsum(weights * positive)
            fps = np.cumsum(weights * ~positive)
            fpr = fps / fps[-1]
            tpr = tps / tps[-1]
            return fpr, tpr
    ''')
    everything = registry.select(())
    others = [mutator for mutator in everything if not mutator.name.startswith("beyond/twin-")]
    with_twins = mutants_of_source(source, file="m.py", module="m", mutators=everything).mutants
    without = mutants_of_source(source, file="m.py", module="m", mutators=others).mutants
    assert {m.id for m in without} <= {m.id for m in with_twins}
    unary = [m for m in with_twins if (m.original, m.mutated) == ("~positive", "positive")]
    assert [m.operator for m in unary] == ["classic/drop-unary"]


def test_no_twin_mutant_reads_as_generated():
    """Both operators make only slips on the realistic side of the line: the exercises' trace
    rule keeps every one of them (a copy never makes two operands one)."""
    source = textwrap.dedent('''
        def split(xs, k, lo, hi, n_left, n_right, rules):
            left_sum = right_sum = 0
            for x in xs:
                if x < k:
                    left_sum += x * 2
                else:
                    right_sum -= x * 3
            valid = (n_left >= rules.leaf) & (n_right >= rules.leaf)
            width = np.where(valid, lo.edge[k] - 1, hi.edge[k] + 1)
            label_length = squeeze(left_sum, axis=-1)
            input_length = squeeze(right_sum, axis=-1)
            return valid, width, label_length, input_length
    ''')
    made = mutants_of_source(source, file="m.py", module="m", mutators=[TwinCopied(), TwinNotUpdated()]).mutants
    assert len({m.operator for m in made}) == 2
    assert [(m.original, m.mutated, machine_trace(m, source)) for m in made if machine_trace(m, source)] == []


def test_a_mirrored_term_is_left_out_of_one_branch():
    """`lo = mid + 1` and `hi = mid - 1`: the `1` of two mirrored updates is one edit made to
    both (a closed interval's bounds); left out of either branch, it reaches only one."""
    source = textwrap.dedent('''
        def find(a, x, lo, hi):
            mid = (lo + hi) // 2
            if a[mid] < x:
                lo = mid + 1
            else:
                hi = mid - 1
            return lo, hi
    ''')
    made = {line.strip() for text in mutated_sources(TwinNotUpdated(), source)
            for line in text.splitlines() if line not in source.splitlines()}
    assert made == {"lo = mid", "hi = mid"}
