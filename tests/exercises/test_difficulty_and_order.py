"""Which mutants qualify, in what order they are tried, and how difficulty is scored."""

from __future__ import annotations

import dataclasses
import random

from bugsmith.harness.exercises.difficulty import changed_characters, difficulty, time_limit_minutes
from bugsmith.harness.exercises.selection import eligible, ordered
from bugsmith.mutators.mutant import Family, Mutant, Span, unified_diff


def mutant(ident: str, family: Family = Family.CLASSIC, *, function: str | None = "f",
           original: str = "a < b", mutated: str = "a <= b", diff: str = "") -> Mutant:
    return Mutant(id=ident, operator=f"{family.value}/op", family=family, file="m.py", module="m",
                  function=function, scope=function or "",
                  span=Span(line=2, column=4, end_line=2, end_column=9),
                  original=original, mutated=mutated, explanation="", diff=diff)


def test_import_time_sites_and_large_deletions_are_not_exercises():
    """A bug at import time is loud before any test; a deleted block is trivially visible."""
    body = "".join(f"    x{i} = {i}\n" for i in range(6))
    deleted = unified_diff("m.py", f"def f():\n{body}    return 1\n", "def f():\n    return 1\n")
    assert eligible(mutant("a"))
    assert not eligible(mutant("b", function=None))
    assert not eligible(mutant("c", diff=deleted))


def test_order_is_a_family_round_robin_fixed_by_the_seed():
    """Families alternate (domain first) and the same seed always gives the same order."""
    pool = [mutant(f"c{i}") for i in range(3)] + [mutant(f"w{i}", Family.WINDOW) for i in range(3)]
    first = ordered(pool, random.Random("1:p"))
    assert [m.family for m in first] == [Family.WINDOW, Family.CLASSIC] * 3
    assert [m.id for m in ordered(list(reversed(pool)), random.Random("1:p"))] == [m.id for m in first]


def test_operators_alternate_within_a_family():
    """Many sites of one operator do not crowd out the family's other operators."""
    other = dataclasses.replace(mutant("n0"), operator="classic/other")
    pool = [mutant(f"b{i}") for i in range(4)] + [other]
    first_two = {m.operator for m in ordered(pool, random.Random("3:p"))[:2]}
    assert first_two == {"classic/op", "classic/other"}


def test_silent_rare_domain_bugs_score_harder_than_loud_common_classic_ones():
    """Each piece of evidence moves the score the documented way."""
    hard = difficulty([mutant("a", Family.WINDOW)], silent=True, failing=1, total=100, visible_failing=1)
    easy = difficulty([mutant("b", original="x", mutated="None + 1")], silent=False, failing=60, total=100,
                      visible_failing=9)
    assert (hard.score, hard.level) == (10, "hard")
    assert (easy.score, easy.level) == (1, "easy")
    assert hard.factors["silent"] == 3 and easy.factors["silent"] == 0


def test_more_bugs_add_difficulty_and_time():
    """Two bugs at once are harder than either alone, and get more time."""
    one = difficulty([mutant("a")], silent=False, failing=30, total=100, visible_failing=3)
    two = difficulty([mutant("a"), mutant("b")], silent=False, failing=30, total=100, visible_failing=3)
    assert two.score == one.score + 2
    assert time_limit_minutes(two.score, 2) > time_limit_minutes(one.score, 1)


def test_changed_characters_counts_the_edit_not_the_site():
    """`<` to `<=` is a one-character edit, however long the expression."""
    assert changed_characters(mutant("a")) == 1
