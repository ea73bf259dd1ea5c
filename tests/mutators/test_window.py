"""Golden and edge-case tests for the window family."""

from __future__ import annotations

import libcst as cst
import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import window
from bugsmith.mutators.families.window.bounds import is_bound
from bugsmith.mutators.families.window.nudge import nudged
from bugsmith.mutators.testing import check_example, mutated_sources

CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in window.MUTATORS
    for index in range(len(cls.examples))
]


def _codes(expressions):
    return [cst.Module([]).code_for_node(expression) for _, expression in expressions]


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator makes exactly the mutants its golden example lists, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_every_mutator_has_a_positive_and_a_negative_example():
    """A mutator without a near-miss example could match everything without any test noticing."""
    for cls in window.MUTATORS:
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("n - 1", ["n - 2", "n"]),
        ("i + 1", ["i", "i + 2"]),
        ("len(x)", ["len(x) - 1", "len(x) + 1"]),
        ("-w", ["-w - 1", "-w + 1"]),
        ("3", ["2", "4"]),
        ("1", ["2"]),
        ("-1", ["-2"]),
        ("a * b", ["a * b - 1", "a * b + 1"]),
        ("(a << b)", ["(a << b) - 1", "(a << b) + 1"]),
        ("a << b", []),
        ("not x", []),
        ("a if c else b", []),
    ],
)
def test_nudged_writes_bounds_as_a_person_would(code, expected):
    """`n - 1` moves to `n` (not `n - 1 + 1`), and nothing is proposed where precedence is unclear."""
    assert _codes(nudged(cst.parse_expression(code))) == expected


def test_nudged_floor_and_from_end():
    """Literals stay at or above the floor; a negative index never becomes 0 unless it is a plain number."""
    assert _codes(nudged(cst.parse_expression("0"), floor=0)) == ["1"]
    assert _codes(nudged(cst.parse_expression("-1"), floor=-1, from_end=False)) == ["0"]


@pytest.mark.parametrize(
    ("code", "bound"),
    [
        ("len(x)", True), ("self.max_batch_tokens", True), ("windowSize", True), ("i", True),
        ("sizes[j]", True), ("used + 1", False), ("used + n", True), ("score", False),
        ("temperature", False), ("0.5", False), ("x.shape", False),
    ],
)
def test_is_bound(code, bound):
    """Only lengths, limits, indexes and window edges count as boundaries."""
    assert is_bound(cst.parse_expression(code)) is bound


def test_range_insertion_is_explained_with_the_whole_bound():
    """`len(x)` → `len(x) - 1` is a pure insertion; the explanation quotes both whole bounds."""
    source = "def f(x):\n    return [i for i in range(len(x))]\n"
    result = mutants_of_source(source, file="f.py", module="f", mutators=[window.RangeBound()])
    assert sorted(mutant.explanation.split(":")[0] for mutant in result.mutants) == [
        "`len(x)` became `len(x) + 1`",
        "`len(x)` became `len(x) - 1`",
    ]


def test_chained_comparison_mutates_each_boundary_separately():
    """`lo <= i < hi` gives one mutant per boundary operator, spacing untouched."""
    got = mutated_sources(window.BoundaryComparison(), "def f(lo, i, hi):\n    return lo  <=  i < hi\n")
    assert got == [
        "def f(lo, i, hi):\n    return lo  <  i < hi\n",
        "def f(lo, i, hi):\n    return lo  <=  i <= hi\n",
    ]


def test_slice_keeps_its_spacing_and_comments():
    """A bound changes inside `x[a : b]` without touching the spaces around the colon or a comment."""
    source = "def f(x, t, w):\n    return x[\n        t - w : t  # the window\n    ]\n"
    got = mutated_sources(window.SliceBound(), source)
    assert "def f(x, t, w):\n    return x[\n        t - w : t + 1  # the window\n    ]\n" in got
    assert all("# the window" in text and " : " in text for text in got)


def test_window_in_a_string_branch_is_left_alone():
    """Under `isinstance(w, str)` the window is an offset such as "7D": `w + 1` would only raise."""
    source = "def f(s, w):\n    if isinstance(w, str):\n        return s.rolling(w).mean()\n    return s.rolling(w).mean()\n"
    got = mutated_sources(window.WindowSize(), source)
    assert len(got) == 2 and all("rolling(w).mean()\n    return" in text for text in got)
