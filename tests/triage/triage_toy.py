"""A tiny project whose survivors are one of each triage class, and the toy mutators that make them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Mutator
from bugsmith.mutators.mutant import Family
from tests.harness.toyproject import SwapLessThan

SHAPES = '''\
def floor_at(x, lo):
    if x < lo:
        return lo
    return x


def spin(n):
    i = 0
    while i < n:
        i += 1
    return i


def scale(xs, k):
    return [x * k for x in xs]
'''

TESTS = '''\
from shapes.shapes import floor_at, scale, spin


def test_floor_at():
    assert floor_at(5, 0) == 5
    assert floor_at(-1, 0) == 0


def test_spin():
    assert spin(3) == 3


def test_scale_keeps_the_length():
    assert len(scale([1, 2], 3)) == 2
'''

# (line, original, mutated) of the three survivors, by the class triage must give them.
EQUIVALENT = (2, "<", "<=")  # x == lo returns lo, which is x, either way
UNDERTESTED = (8, "0", "1")  # spin(0) returns 1, and no test calls spin(0)
UNASSERTED = (15, "*", "+")  # test_scale_keeps_the_length sees [4, 5] instead of [3, 6]


class ZeroToOne(Mutator):
    """The integer 0 becomes 1."""

    name = "toy/zero-to-one"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Integer(value="0")
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(value="1")


class TimesToPlus(Mutator):
    """`*` becomes `+`."""

    name = "toy/times-to-plus"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.BinaryOperation(operator=m.Multiply())
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(operator=cst.Add(
            whitespace_before=node.operator.whitespace_before,
            whitespace_after=node.operator.whitespace_after))


TOY_MUTATORS = (SwapLessThan(), ZeroToOne(), TimesToPlus())


def make_project(tmp_path: Path) -> Path:
    """Write the package, its weak tests and `[tool.bugsmith]` under tmp_path; return the root."""
    root = tmp_path / "proj"
    (root / "shapes").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shapes" / "__init__.py").write_text("")
    (root / "shapes" / "shapes.py").write_text(SHAPES)
    (root / "tests" / "test_shapes.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["shapes"]
        tests = ["tests"]
        jobs = 1
        '''))
    return root
