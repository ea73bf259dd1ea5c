"""Which mutants qualify, in what order they are tried, and how difficulty is scored."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.assemble.selection import eligible, ordered
from bugsmith.harness.exercises.findability import Findability
from bugsmith.harness.exercises.measure.difficulty import (
    FORMULA,
    difficulty,
    interacting,
    minutes_for,
    time_limit_minutes,
)
from bugsmith.harness.exercises.records import ExerciseError
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


def found(**evidence) -> Findability:
    facts = {"mutant": "m", "fl_rank": 5, "fl_lines": 40, "repair_tries": 25, "intent": False, "named": False,
             "lines_to_read": 60, "helper": False}
    return Findability(**{**facts, **evidence})


def test_a_rank_one_bug_under_a_contradicting_comment_is_easy_and_never_hard():
    """The tests point at the line and a comment says what it should do: found in minutes."""
    obvious = difficulty([found(fl_rank=1, repair_tries=2, intent=True, lines_to_read=30)], silent=False)
    assert obvious.level == "easy"
    worst_else = found(fl_rank=1, repair_tries=None, intent=True, lines_to_read=400, helper=True)
    assert difficulty([worst_else], silent=True).level != "hard"
    assert difficulty([worst_else] * 3, silent=True).level != "hard"


def test_a_silent_helper_bug_far_from_the_symptom_is_hard():
    """Low in the fault-localisation ranking, not repaired by the search, in a helper on a long path."""
    far = found(fl_rank=12, repair_tries=None, lines_to_read=100, helper=True)
    hard = difficulty([far], silent=True)
    assert hard.level == "hard"
    assert hard.factors["fault_localisation"] == 3 and hard.factors["repair_search"] == 3
    assert difficulty([far], silent=False).score == hard.score - 1


def test_clues_cap_what_the_search_evidence_adds():
    """A comment stating the intent caps locating at 1 point, a test naming the code at 2, both at 0."""
    far = {"fl_rank": 12, "repair_tries": None}
    plain = difficulty([found(**far)], silent=True).score
    assert difficulty([found(**far, named=True)], silent=True).score == plain - 6 + 2
    assert difficulty([found(**far, intent=True)], silent=True).score == plain - 6 + 1
    assert difficulty([found(**far, intent=True, named=True)], silent=True).score == plain - 6


def test_a_name_the_bug_leaves_unread_caps_like_a_comment_and_is_never_hard():
    """A linter points at a bug that leaves a name unread, and a twin at a bug that made its line
    unlike its pair: each counts as a stated intent, in the points and in the rule that no
    exercise of such bugs only is hard."""
    far = {"fl_rank": 12, "repair_tries": None, "lines_to_read": 400, "helper": True}
    assert difficulty([found(**far)], silent=True).factors["clues"] == 0
    assert difficulty([found(**far, unread=True)], silent=True).factors["clues"] == -6 + 1
    assert difficulty([found(**far, unread=True, named=True)], silent=True).factors["clues"] == -6
    assert difficulty([found(**far, twin_broken=True)], silent=True).factors["clues"] == -6 + 1
    assert difficulty([found(**far, unread=True)] * 3, silent=True).level != "hard"
    assert difficulty([found(**far, unread=True), found(**far)] * 2, silent=True).level == "hard"


def test_more_bugs_add_difficulty_and_time():
    """Two bugs at once are harder than the harder one alone, and get more time: strictly more by
    the formula; by the shipped fit, whose slope the trials set (0.8 minutes a point on 21), at
    least as much once both are rounded to 5."""
    one = difficulty([found()], silent=False)
    two = difficulty([found(), found(fl_rank=1)], silent=False)
    assert two.score == one.score + 2
    assert minutes_for(FORMULA, two.score, 2) > minutes_for(FORMULA, one.score, 1)
    assert time_limit_minutes(two.score, 2) >= time_limit_minutes(one.score, 1)


def test_an_unknown_difficulty_is_refused_before_anything_runs():
    """`--difficulty` takes easy, medium or hard; anything else is a one-line error."""
    with pytest.raises(ExerciseError, match="unknown difficulty 'brutal'"):
        build_exercises(ExerciseOptions(problems=("auc",), difficulty="brutal"), root=builtin_root())


def test_bugs_that_share_a_symptom_interact_and_score_one_more():
    """A visible test that either bug fails alone stays red after one fix: harder than two apart."""
    assert interacting([["t1", "t2"], ["t2"]]) and not interacting([["t1"], ["t2"]])
    apart = difficulty([found(), found()], silent=True)
    tangled = difficulty([found(), found()], silent=True, interact=True)
    assert tangled.score == apart.score + 1 and tangled.factors["interaction"] == 1
