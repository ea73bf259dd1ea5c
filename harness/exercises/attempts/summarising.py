"""Set what candidates took against what each exercise's label promised.

Per pack (the digest of its instructor manifest) and exercise:

- *attempts*: the distinct attempts saved. A named candidate counts once per exercise, with
  their latest grading: grading the same person's work again is not a second person's effort.
- *passed*, and *passed without hints*: a pass with no hint recorded as given (an attempt saved
  without `--hints-given` counts as none given).
- *median minutes* and *median runs*: only from whole logs (`process.log` "ok"): the minutes
  from the first test run to the last (`process.minutes_total`; a log with no run has none) and
  the number of runs. A log that is missing, broken or stale says nothing reliable about time;
  how many attempts were timed, and how many had a whole log, is shown next to the medians.
- *median hints*: over the attempts whose hints were recorded.

The verdict, the first rule that applies:

1. Fewer than 3 attempts: "too few attempts". The median of one or two is one or two people's
   day; three is the fewest where the median stands clear of one outlier.
2. Under half passed without hints: "harder than labelled". A label promises that a candidate
   at its level fixes the bug unaided within its limit; when most cannot, it promised too
   little. This needs no log: the grader decides a pass itself, the log is the candidate's own.
3. At least 3 timed attempts and a median over the time limit: "harder than labelled" (the limit is
   the label's own estimate of the effort).
4. Fewer than 3 timed attempts: "too few attempts": the pass rate alone cannot confirm the label.
5. A median under a third of the limit, and at least 80% passed without hints: "easier than
   labelled". A limit is the minutes blind solvers' estimates put on the exercise's score plus
   a margin 9 in 10 of those estimates fall within (`measure.difficulty.time_limit_minutes`,
   fitted by benchmarks/solve_trials.py), so finishing in half the time is ordinary, and a third
   of it is quicker than nearly every trial. The pass rate guards against candidates who gave
   up early looking fast.
6. Otherwise: "label fits".
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence

from bugsmith.harness.exercises.attempts.records import Attempt, ExerciseSummary, Verdict

MIN_ATTEMPTS = 3
HARDER_PASS_RATE = 0.5  # under it, passed without hints: harder than labelled
EASIER_PASS_RATE = 0.8  # at least it, passed without hints, for easier than labelled
EASIER_FRACTION = 1 / 3  # of the time limit: a median under it, for easier than labelled

RULE = (f"at least {MIN_ATTEMPTS} attempts are needed; harder than labelled when under"
        f" {HARDER_PASS_RATE:.0%} pass without hints, or when the median time of at least {MIN_ATTEMPTS}"
        f" attempts timed by whole logs is over the label's limit; easier than labelled when that median"
        f" is under a third of the limit and at least {EASIER_PASS_RATE:.0%} pass without hints")


def summarise(attempts: Iterable[Attempt]) -> tuple[ExerciseSummary, ...]:
    """One summary per pack and exercise, by pack name, pack digest and exercise id."""
    groups: dict[tuple[str, str], list[Attempt]] = {}
    for attempt in attempts:
        groups.setdefault((attempt.pack.manifest_sha256, attempt.exercise_id), []).append(attempt)
    summaries = [_summary(_one_per_candidate(group)) for group in groups.values()]
    return tuple(sorted(summaries, key=lambda s: (s.pack.name, s.pack.manifest_sha256, s.exercise_id)))


def _one_per_candidate(attempts: Sequence[Attempt]) -> list[Attempt]:
    """Unnamed attempts all count; a named candidate's count once, with the latest grading."""
    latest: dict[str, Attempt] = {}
    unnamed = []
    for attempt in attempts:
        if attempt.candidate is None:
            unnamed.append(attempt)
        elif attempt.candidate not in latest or attempt.graded > latest[attempt.candidate].graded:
            latest[attempt.candidate] = attempt
    return sorted([*unnamed, *latest.values()], key=lambda a: a.graded)


def _summary(attempts: Sequence[Attempt]) -> ExerciseSummary:
    last = attempts[-1]  # the latest grading names the pack and states the label
    minutes = [m for a in attempts if (m := a.minutes) is not None]
    runs = [r for a in attempts if (r := a.runs) is not None]
    hints = [h for a in attempts if (h := a.hints_given) is not None]
    passed = sum(a.passed for a in attempts)
    unaided = sum(a.passed and not a.hints_given for a in attempts)
    median_minutes = _median(minutes)
    verdict, reasons = judge(attempts=len(attempts), passed_unaided=unaided, timed=len(minutes),
                             median_minutes=median_minutes, limit=last.label.time_limit_minutes)
    return ExerciseSummary(
        pack=last.pack, exercise_id=last.exercise_id, problem=last.problem, label=last.label,
        attempts=len(attempts), passed=passed, passed_unaided=unaided, with_log=len(runs), timed=len(minutes),
        median_minutes=median_minutes, median_runs=_median(runs), with_hints=len(hints),
        median_hints=_median(hints), verdict=verdict, reasons=reasons,
    )


def judge(*, attempts: int, passed_unaided: int, timed: int, median_minutes: float | None,
          limit: int) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict on a label and why, by the rules of this module's docstring."""
    if attempts < MIN_ATTEMPTS:
        return Verdict.TOO_FEW, (f"{attempts} attempt{'s' * (attempts != 1)}; {MIN_ATTEMPTS} needed",)
    unaided_rate = passed_unaided / attempts
    harder = []
    if unaided_rate < HARDER_PASS_RATE:
        harder.append(f"{passed_unaided} of {attempts} passed without hints, under {HARDER_PASS_RATE:.0%}")
    median = median_minutes if timed >= MIN_ATTEMPTS else None  # a median of fewer logs says nothing
    if median is not None and median > limit:
        harder.append(f"median {median:g} min is over the {limit}-minute limit")
    if harder:
        return Verdict.HARDER, tuple(harder)
    if median is None:
        return Verdict.TOO_FEW, (f"{timed} of {attempts} attempts timed by a whole log of test runs;"
                                 f" {MIN_ATTEMPTS} needed to judge the time",)
    if median < limit * EASIER_FRACTION and unaided_rate >= EASIER_PASS_RATE:
        return Verdict.EASIER, (f"median {median:g} min is under a third of the {limit}-minute limit,"
                                f" and {passed_unaided} of {attempts} passed without hints",)
    return Verdict.FITS, (f"median {median:g} min within the {limit}-minute limit,"
                          f" {passed_unaided} of {attempts} passed without hints",)


def _median(values: Sequence[float]) -> float | None:
    return round(float(statistics.median(values)), 2) if values else None
