"""A tiny project built in tmp_path, and toy mutators that make exactly the mutants we need."""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Iterator
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import pytest

from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.mutant import Family

CALC = '''\
import os
import sys

LIMIT = 10


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def total(xs):
    s = 0
    for x in xs:
        s += x
    return s


def over(x):
    return x > LIMIT


def spin(n):
    i = 0
    while i < n:
        i += 1
    return i


def leave(x):
    if x == 1:
        os._exit(0)
    if x == 2:
        sys.exit(0)
    return x


def checked(x):
    if x < 0:
        raise ValueError("negative")
    return x


def unused(x):
    return x + 1


def pick(xs, i):
    return xs[i - 1]
'''

TESTS = '''\
import pytest

from calcpkg.calc import checked, clamp, leave, over, pick, spin, total


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10


def test_total():
    assert total([1, 2, 3]) == 6


def test_over():
    assert over(11)
    assert not over(10)


def test_spin():
    assert spin(3) == 3


def test_leave():
    assert leave(0) == 0


def test_checked():
    assert checked(2) == 2
    with pytest.raises(ValueError):
        checked(-1)


def test_pick():
    assert pick([1, 2], 2) == 2
'''


class SwapLessThan(Mutator):
    """`<` becomes `<=`: a toy operator for harness tests."""

    name = "toy/lt-to-le"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.ComparisonTarget(operator=m.LessThan())
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(operator=cst.LessThanEqual(
            whitespace_before=node.operator.whitespace_before,
            whitespace_after=node.operator.whitespace_after))


class DeleteAugAssign(Mutator):
    """`x += 1` deleted: a toy operator for harness tests."""

    name = "toy/delete-aug-assign"
    family = Family.BEYOND
    explanation = "`{original}` deleted"
    matcher = m.SimpleStatementLine(body=[m.AugAssign()])
    examples = ()

    def mutate(self, node, ctx):
        yield cst.RemovalSentinel.REMOVE


class IntegerToZero(Mutator):
    """Small integers become 0 (or 1 for 0): a toy operator for harness tests."""

    name = "toy/int"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Integer()
    examples = (Example(before="x = 2\n", after=("x = 0\n",)),)

    def mutate(self, node, ctx):
        yield node.with_changes(value="1" if node.value == "0" else "0")


TOY_MUTATORS = (SwapLessThan(), DeleteAugAssign(), IntegerToZero())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a package, its tests, and `[tool.bugsmith]` in pyproject.toml."""
    root = tmp_path / "proj"
    (root / "calcpkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "calcpkg" / "__init__.py").write_text("")
    (root / "calcpkg" / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["calcpkg"]
        tests = ["tests"]
        jobs = 2
        '''))
    return root


def tree_digest(root: Path) -> dict[str, str]:
    """Every file and folder of the tree but bugsmith's own `.bugsmith/`, a file with a hash
    of its bytes: an empty cache folder left behind counts as a change too."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        for path in sorted(root.rglob("*"))
        if ".bugsmith" not in path.relative_to(root).parts
    }


def by_source(result) -> dict[tuple[int, str, str], str]:
    """Outcome status by (line, original, mutated): readable keys for assertions."""
    mutants = {m.id: m for m in result.mutants}
    return {
        (mutants[o.mutant_id].span.line, mutants[o.mutant_id].original, mutants[o.mutant_id].mutated):
            o.status.value
        for o in result.outcomes
    }


@pytest.fixture
def chdir(monkeypatch) -> Iterator:
    yield monkeypatch.chdir
