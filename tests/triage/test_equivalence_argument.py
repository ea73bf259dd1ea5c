"""The two cheap equivalence arguments a "possibly equivalent" survivor carries: a dead store,
and a comparison an earlier guard has already decided."""

from __future__ import annotations

import textwrap

from bugsmith.harness.triage.equivalence import equivalence_argument
from bugsmith.mutators.family import Family
from bugsmith.mutators.mutant import Mutant, Span


def mutant_of(source: str, line: int, original: str, mutated: str) -> Mutant:
    """A mutant that replaces the first `original` on `line` (1-based) with `mutated`."""
    column = source.splitlines()[line - 1].index(original)
    return Mutant(id="m", operator="test/replace", family=Family.CLASSIC, file="toy.py", module="toy",
                  function="f", scope="f", span=Span(line=line, column=column, end_line=line,
                                                     end_column=column + len(original)),
                  original=original, mutated=mutated, explanation="", diff="")


DEAD = textwrap.dedent("""\
    def total(xs, memo=None):
        memo = memo or {}
        count = 0
        for x in xs:
            count += x
        return count
""")

GUARDED = textwrap.dedent("""\
    def bucket(n):
        if n < 0:
            raise ValueError("negative")
        if n == 0:
            return "none"
        return "some"
""")


def test_a_store_never_read_is_a_dead_store():
    found = equivalence_argument(DEAD, mutant_of(DEAD, 2, "memo or {}", "memo and {}"))
    assert found.startswith("a dead store: `memo` is assigned on line 2 and never read after it")


def test_a_store_read_later_is_no_argument():
    """`count = 0` -> `count = 1` changes the sum: `count` is read by `count += x` and the return."""
    assert equivalence_argument(DEAD, mutant_of(DEAD, 3, "0", "1")) == ""


def test_a_store_read_in_the_next_round_of_its_loop_is_no_argument():
    source = textwrap.dedent("""\
        def last_gap(xs):
            gap = 0
            prev = 0
            for x in xs:
                gap = x - prev
                prev = x + 0
            return gap
    """)
    # `prev` is stored after its read in the loop, and read again in the next round.
    assert equivalence_argument(source, mutant_of(source, 6, "x + 0", "x + 1")) == ""


def test_a_comparison_decided_by_an_earlier_guard():
    """Past `if n < 0: raise`, `n == 0` and `n <= 0` disagree only where n < 0, which never gets there."""
    found = equivalence_argument(GUARDED, mutant_of(GUARDED, 4, "n == 0", "n <= 0"))
    assert found.startswith("a condition implied by an earlier guard: `n == 0` and `n <= 0` disagree only at n = -")
    assert "the guard on line 2 (`if n < 0`)" in found


def test_a_comparison_the_guard_does_not_decide_is_no_argument():
    """`n == 0` -> `n >= 0` differs at n = 1, which the guard lets through."""
    assert equivalence_argument(GUARDED, mutant_of(GUARDED, 4, "n == 0", "n >= 0")) == ""
