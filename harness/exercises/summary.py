"""Plain-text summaries of exercises, problem pools and suite scores, for the CLI to print (a
grade's text is harness.exercises.judge.grade_text)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.assemble.stats import ProblemPool
from bugsmith.harness.exercises.judge.scoring import SuiteScore
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.outcome import Status


def statistics(exercises: Sequence[Exercise]) -> dict[str, Any]:
    """Counts per family and problem, the share of silent bugs, the difficulty distribution."""
    families = Counter(f for e in exercises for f in e.families)
    scores = Counter(e.difficulty.score for e in exercises)
    levels = Counter(e.difficulty.level for e in exercises)
    return {
        "exercises": len(exercises),
        "per_problem": dict(sorted(Counter(e.problem for e in exercises).items())),
        "per_family": dict(sorted(families.items())),
        "silent_share": round(sum(e.silent for e in exercises) / len(exercises), 3) if exercises else None,
        "difficulty": dict(sorted(scores.items())),
        "levels": {level: levels.get(level, 0) for level in ("easy", "medium", "hard")},
    }


def exercises_text(exercises: Sequence[Exercise]) -> str:
    lines = [f"{e.id}  {e.problem:<17} {', '.join(e.operators):<34} {'silent' if e.silent else 'loud  '} "
             f"difficulty {e.difficulty.score:>2} ({e.difficulty.level})  failing {len(e.fail_to_pass)}"
             for e in exercises]
    stats = statistics(exercises)
    lines.append(
        f"{stats['exercises']} exercises; silent {100 * (stats['silent_share'] or 0):.0f}%; per family "
        + ", ".join(f"{k} {v}" for k, v in stats["per_family"].items())
        + "; difficulty " + ", ".join(f"{k}: {v}" for k, v in stats["levels"].items()))
    return "\n".join(lines)


SHOWN_TESTS = 2  # suggested tests printed in full; the others with --verbose (all of them in --json)


def score_text(score: SuiteScore, *, verbose: bool = False) -> str:
    """The score, then what the suite never checks (one line per behaviour), the code no test
    runs, and the suggested tests, the two most telling in full; every missed bug when `verbose`."""
    missed = len(score.survivors)
    unrun = sum(not s.covered for s in score.survivors)
    detected = score.counts.get(Status.KILLED, 0) + score.counts.get(Status.TIMEOUT, 0)
    where = ("NOT SANDBOXED (--no-sandbox): the candidate's tests ran with your rights" if not score.sandboxed
             else "sandboxed" + (f", {score.controls} disguised controls passed" if score.controls else ""))
    lines = [f"{score.problem}: {score.tests} tests; mutation score "
             + (f"{score.score:.1f}%" if score.score is not None else "n/a")
             + (f": {detected} bugs detected, {missed} missed ({unrun} on lines no test runs)" if score.counts else ""),
             "  per family: " + ", ".join(f"{family} {found}/{counted}"
                                          for family, (found, counted) in score.per_family.items()) + f"; {where}"]
    if score.lessons:
        lines += ["", f"What the tests never check ({len(score.lessons)} behaviours, most missed bugs first):"]
        for number, lesson in enumerate(score.lessons, 1):
            count = len(lesson.mutants)
            unseen = f", {lesson.uncovered} on lines no test runs" if lesson.uncovered else ""
            lines.append(f"{number:>3}. {lesson.title} [{count} bug{'s' if count > 1 else ''}{unseen}]")
            if lesson.contract and number <= SHOWN_TESTS:
                lines.append(f"       the contract: {lesson.contract}")
    if score.unrun:
        lines += ["", "Code no test runs: " + "; ".join(f"{file} lines {_ranges(list(found))}"
                                                       for file, found in score.unrun.items())]
    if score.lessons:
        lines += ["", "Suggested tests, one per behaviour, through the public API:"]
        for number, lesson in enumerate(score.lessons, 1):
            if number > SHOWN_TESTS and not verbose:
                rest = score.lessons[SHOWN_TESTS:]
                verified = sum(bool(r.verified_on) for r in rest)
                lines.append(f"{SHOWN_TESTS + 1:>3}. … {len(score.lessons)}. one for each behaviour above "
                             f"({verified} verified, {len(rest) - verified} sketches): see --verbose or --json")
                break
            how = (f"verified: passes on the reference, catches {lesson.verified_on} of its {len(lesson.mutants)} bugs"
                   if lesson.verified_on else "a sketch: fill in the input and the expected result")
            lines.append(f"{number:>3}. {lesson.test_name}  ({how})")
            code = [line for line in lesson.suggested_test.rstrip().splitlines() if line.strip()]
            lines.extend("       " + line for line in code)
    if verbose and score.survivors:
        lines += ["", f"{missed} missed bugs:"]
        for survivor in score.survivors:
            state = survivor.classification or (Status.SURVIVED if survivor.covered else "no test runs it")
            lines.append(f"  {survivor.mutant_id}  {survivor.location}  {survivor.operator}  [{state}]")
            if survivor.explanation:
                lines.append(f"      {survivor.explanation}")
            if survivor.witness:
                lines.append(f"      missed: {survivor.witness}")
    return "\n".join(lines)


def _ranges(numbers: list[int]) -> str:
    """`54, 57, 70-74`: runs of consecutive line numbers."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def pool_text(pools: Sequence[ProblemPool]) -> str:
    """`bugsmith exercises --stats`: candidates and validated bugs per problem and family."""
    lines = [f"{'problem':<17} {'family':<11} {'candidates':>10} {'silent':>7} {'loud':>5}"]
    for pool in pools:
        for part in pool.families:
            lines.append(f"{pool.problem:<17} {part.family:<11} {part.candidates:>10} {part.silent:>7} {part.loud:>5}")
        lines.append(f"{pool.problem:<17} {'all':<11} {pool.candidates:>10} {pool.silent:>7} {pool.loud:>5}")
    lines.append("candidates: eligible edits without a machine's trace; silent, loud: validated single bugs"
                 " (each fails a visible test; silent ones only by wrong answers)")
    return "\n".join(lines)
