"""How hard an exercise is, from evidence only: what the failures look like and what changed.

Each factor adds points to a base of 1; the sum is clipped to 1-10. The factors and their
weights are documented in the README ("Difficulty of an exercise").
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from bugsmith.harness.exercises.records import Difficulty
from bugsmith.mutators.mutant import Mutant

LEVELS = ((5, "easy"), (7, "medium"), (10, "hard"))


def changed_characters(mutant: Mutant) -> int:
    """How many characters differ between the original and the mutated text of the site."""
    matcher = difflib.SequenceMatcher(None, mutant.original, mutant.mutated, autojunk=False)
    return sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    )


def difficulty(
    mutants: Sequence[Mutant], *, silent: bool, failing: int, total: int, visible_failing: int
) -> Difficulty:
    """Score an exercise from its bugs and the evidence of its validation run."""
    share = failing / total if total else 1.0
    factors = {
        # A traceback into the code points at the bug; a wrong number points nowhere.
        "silent": 3 if silent else 0,
        "few_failing_tests": 2 if share < 0.05 else 1 if share < 0.2 else 0,
        "one_visible_symptom": 1 if visible_failing == 1 else 0,
        "family": max(m.family.info.difficulty for m in mutants),  # points set in the Family table
        "small_diff": 1 if all(changed_characters(m) <= 3 for m in mutants) else 0,
        "extra_bugs": 2 * (len(mutants) - 1),
    }
    score = max(1, min(10, 1 + sum(factors.values())))
    level = next(name for limit, name in LEVELS if score <= limit)
    return Difficulty(score=score, level=level, factors=factors)


def time_limit_minutes(score: int, bugs: int) -> int:
    """A suggested time limit: 15 minutes plus 5 per difficulty point, rounded to 5."""
    minutes = 15 + 5 * score + 10 * (bugs - 1)
    return int(5 * round(minutes / 5))
