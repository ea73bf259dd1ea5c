"""A tiny project whose survivors need a search that reaches: a boundary only 100 tells apart, a
private helper only its public caller reaches, and a dead store no input can show."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import libcst.matchers as m
from triage_toy import ZeroToOne

from bugsmith.mutators.base import Mutator
from bugsmith.mutators.mutant import Family

LIMITS = '''\
def tier(n):
    if n > 100:
        return "big"
    return "small"


def _weight(size):
    if size > 100:
        return 2
    return 1


def shipping(sizes):
    return sum(_weight(s) for s in sizes)


def count_items(xs):
    seen = 0
    return len(xs)
'''

TESTS = '''\
from limits.limits import count_items, shipping, tier


def test_tier():
    assert tier(5) == "small"
    assert tier(500) == "big"


def test_shipping():
    assert shipping([5, 500]) == 3


def test_count_items():
    assert count_items([1, 2]) == 2
'''

# (line, original, mutated) of the three survivors.
BOUNDARY = (2, ">", ">=")  # tier(100) is "small", the mutant says "big"
PRIVATE = (8, ">", ">=")  # _weight(100) is 1, the mutant says 2; only shipping calls it
DEAD_STORE = (18, "0", "1")  # `seen` is never read


class GreaterToGreaterEqual(Mutator):
    """`>` becomes `>=`."""

    name = "toy/gt-to-ge"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.ComparisonTarget(operator=m.GreaterThan())
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(operator=cst.GreaterThanEqual(
            whitespace_before=node.operator.whitespace_before,
            whitespace_after=node.operator.whitespace_after))


REACH_MUTATORS = (GreaterToGreaterEqual(), ZeroToOne())


def make_project(tmp_path: Path) -> Path:
    """Write the package, its tests and `[tool.bugsmith]` under tmp_path; return the root."""
    root = tmp_path / "proj"
    (root / "limits").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "limits" / "__init__.py").write_text("")
    (root / "limits" / "limits.py").write_text(LIMITS)
    (root / "tests" / "test_limits.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["limits"]
        tests = ["tests"]
        jobs = 1
        '''))
    return root
