"""How hard an exercise is: how hard its bugs are to *find*, from the evidence of findability.

The README ("Difficulty of an exercise") documents the formula; in short, per bug:

- locate (0-6): the Ochiai rank of the bug's line over the visible tests (rank 1: 0, 2-3: 1,
  4-9: 2, else 3) plus the tries an automatic repair search needs (up to 5: 0, 20: 1, 50: 2,
  not found within 50: 3);
- clues cap locate: a nearby comment that states the intent the bug contradicts, a name the bug
  leaves bound and unread (what a linter flags), a line the bug made unlike its twin
  (harness.exercises.measure.tells), a warning the code raised at the bug's line in the visible
  tests' run, or a failing test's traceback that ends at the bug's line or at a `raise` whose
  guard the bug changed (`Findability.shown`) caps it at 1, a failing test's name or message that names the
  buggy code at 2, both at 0;
- read (0-2): lines of the functions on the failing tests' path (< 50: 0, < 120: 1, else 2);
- helper (0-1): no visible test calls the buggy function by name;
- silent (0-1): the failures are wrong answers, no traceback into the code.

An exercise takes its hardest bug's points, plus 2 per further bug, plus 1 when its bugs interact
(a visible test fails with either bug alone: fixing one leaves that symptom red), plus 1 when they
hide behind each other (`masked`: each fix uncovers the next bug's symptom); the score is 1 plus the
points, clipped to 1-10. Levels: easy up to 4, medium up to 7, hard above. An exercise whose every
bug has a sentence nearby that states what it contradicts (harness.exercises.measure.intent),
leaves a name unread, breaks a twin, warns at its line or ends a traceback is never "hard",
whatever else it has: the reader compares the sentence with the line, asks why the name is there,
reads the pair side by side, or goes to the line the warning or the traceback names. (A medium or
hard handout loses those sentences, and its evidence says so: harness.exercises.measure.levels.)
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from bugsmith.harness.exercises.findability import Findability
from bugsmith.harness.exercises.records import Difficulty, ExerciseError

LEVELS = ((4, "easy"), (7, "medium"), (10, "hard"))
LEVEL_NAMES = tuple(name for _, name in LEVELS)
RANK_POINTS = ((1, 0), (3, 1), (9, 2))  # rank up to .. -> points; beyond: 3
REPAIR_POINTS = ((5, 0), (20, 1), (50, 2))  # tries up to .. -> points; not found: 3
READ_POINTS = ((49, 0), (119, 1))  # lines up to .. -> points; beyond: 2
INTENT_CAP, NAMED_CAP, BOTH_CAP = 1, 2, 0
EXTRA_BUG_POINTS = 2


def _step(value: int | None, steps: tuple[tuple[int, int], ...], beyond: int) -> int:
    if value is None:
        return beyond
    return next((points for limit, points in steps if value <= limit), beyond)


def bug_factors(evidence: Findability, *, silent: bool) -> dict[str, int]:
    """The points one bug's evidence gives, by factor."""
    found = _step(evidence.fl_rank, RANK_POINTS, 3)
    repair = _step(evidence.repair_tries, REPAIR_POINTS, 3)
    shown = evidence.shown  # a sentence, a linter, a twin or a warning says where to look
    cap = (BOTH_CAP if shown and evidence.named else INTENT_CAP if shown
           else NAMED_CAP if evidence.named else found + repair)
    clue = min(cap, found + repair) - (found + repair)  # zero or negative: what the clues give away
    return {"fault_localisation": found, "repair_search": repair, "clues": clue,
            "reading": _step(evidence.lines_to_read, READ_POINTS, 2), "helper": int(evidence.helper),
            "silent": int(silent)}


def interacting(alone: Sequence[Sequence[str]]) -> bool:
    """Whether two bugs fail a common test alone: a symptom with two causes."""
    return any(set(a) & set(b) for i, a in enumerate(alone) for b in alone[i + 1:])


def masked(alone: Sequence[Sequence[str]]) -> bool:
    """Whether the bugs hide behind each other: ordered by how many visible tests each fails
    alone, every bug's failing tests are among the previous one's. The first run then shows one
    bug's symptom, and each fix uncovers the next bug's: a solver who fixes what the tests show
    needs a round per bug, where bugs with symptoms of their own are all seen at once."""
    chain = sorted((set(tests) for tests in alone), key=len, reverse=True)
    return len(chain) > 1 and all(chain[i] and chain[i] <= chain[i - 1] for i in range(1, len(chain)))


def difficulty(evidence: Sequence[Findability], *, silent: bool, interact: bool = False,
               hidden: bool = False) -> Difficulty:
    """Score an exercise from the findability of its bugs (one record per bug); `interact`: its
    bugs share a failing visible test; `hidden`: they hide behind each other (`masked`)."""
    per_bug = [bug_factors(e, silent=silent) for e in evidence]
    hardest = max(per_bug, key=lambda f: (sum(f.values()), sorted(f.items())))
    factors = {**hardest, "extra_bugs": EXTRA_BUG_POINTS * (len(evidence) - 1)}
    if len(evidence) > 1:
        factors["interaction"] = int(interact)
        factors["masked"] = int(hidden)
    score = max(1, min(10, 1 + sum(factors.values())))
    level = next(name for limit, name in LEVELS if score <= limit)
    if level == "hard" and all(e.shown for e in evidence):
        score, level = LEVELS[1][0], LEVELS[1][1]  # something the candidate sees points at every bug
    return Difficulty(score=score, level=level, factors=factors)


FIT_PACKAGE, FIT_FILE = "bugsmith.harness.exercises.measure", "minutes_fit.json"
FEWEST_MINUTES = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class MinutesFit:
    """A mid-level engineer's minutes for an exercise: a + b * difficulty score, plus
    `per_further_bug` for each bug past the first, plus `margin` (a limit most finish within,
    not the typical time). A fitted line has nothing per bug: the score counts further bugs
    already (harness.exercises.measure.difficulty), and the trials' estimates of two-bug
    exercises are what it was fitted on."""

    a: float
    b: float
    n: int  # blind solve trials behind a and b; 0 while they are the formula's guess
    source: str
    per_further_bug: float = 0.0
    margin: float = 0.0


# The guess the time limits used before any trial was fitted (benchmarks/solve_trials.py writes the fit).
FORMULA = MinutesFit(a=15.0, b=5.0, n=0, source="formula (no fit file)", per_further_bug=10.0)


def parse_minutes_fit(text: str | None) -> MinutesFit:
    """The fit in the text of minutes_fit.json; the formula when there is no file."""
    if text is None:
        return FORMULA
    try:
        data = json.loads(text)
        a, b, n = data["a"], data["b"], data["n"]
        extra, margin = data.get("per_further_bug", 0.0), data.get("margin", 0.0)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                   for v in (a, b, extra, margin)):
            raise ValueError("a, b, per_further_bug and margin must be numbers")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError("n must be a count")
        return MinutesFit(a=float(a), b=float(b), n=n, source=str(data.get("source", "")),
                          per_further_bug=float(extra), margin=float(margin))
    except (ValueError, TypeError, KeyError) as error:  # JSONDecodeError is a ValueError
        raise ExerciseError(f"{FIT_FILE} is malformed ({error}); rewrite it with benchmarks/solve_trials.py") from None


@functools.cache
def minutes_fit() -> MinutesFit:
    """The fit shipped with bugsmith, read once."""
    try:
        text = resources.files(FIT_PACKAGE).joinpath(FIT_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    return parse_minutes_fit(text)


def minutes_for(fit: MinutesFit, score: int, bugs: int) -> int:
    """The time limit `fit` gives for the score and the bugs, rounded to 5, at least 10."""
    minutes = fit.a + fit.b * score + fit.per_further_bug * (bugs - 1) + fit.margin
    return max(FEWEST_MINUTES, int(5 * round(minutes / 5)))


def time_limit_minutes(score: int, bugs: int) -> int:
    """A suggested time limit from the fit shipped with bugsmith (the formula 15 + 5 x score when none ships)."""
    return minutes_for(minutes_fit(), score, bugs)
