"""Plain-text summaries of exercises, grades and suite scores, for the CLI to print."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.grading import Grade
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.scoring import SuiteScore
from bugsmith.harness.exercises.stats import ProblemPool


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


FIX_KINDS = {"reference": "restores the reference code",
             "different": "a different valid fix (it passes, the code differs from the reference)",
             "none": "not fixed"}
SHOWN_FAILURES = 3


def grade_text(grade: Grade, *, verbose: bool = False) -> str:
    """A short summary of a grade (every test too when `verbose`)."""
    lines = []
    if verbose:
        lines += [f"{'hidden ' if t.hidden else 'visible'}  {t.outcome:<8} {t.id}"
                  + (f"\n    {t.message}" if t.message and t.outcome != "passed" else "") for t in grade.tests]
    lines.append(f"{grade.exercise_id} ({grade.problem}): {'PASS' if grade.passed else 'FAIL'}: {_reason(grade)}")
    lines.append("  tests      " + _tests_line(grade))
    if not verbose:
        for test in [t for t in grade.tests if t.outcome != "passed"][:SHOWN_FAILURES]:
            lines.append(f"             {test.outcome}: {test.id}" + (f": {test.message}" if test.message else ""))
    for bug in grade.bugs:
        state = {True: "fixed", False: f"not fixed ({len(bug.failing)} of its tests fail)",
                 None: "unknown (this pack does not record which tests each bug fails)"}[bug.fixed]
        lines.append(f"  bug {bug.index}      {bug.location}: {state}")
    lines.append("  reporting  " + ("TAMPERED WITH: " + "; ".join(grade.tampering) if grade.tampering
                                    else f"honest ({grade.canaries} canary tests failed, as they must)"))
    lines.append("  outputs    " + _outputs_line(grade))
    where = ("sandboxed (bubblewrap)" if grade.sandboxed
             else "NOT SANDBOXED (--no-sandbox): the submission's code ran with your rights")
    lines.append(f"  fix        {FIX_KINDS[grade.fix]}; diff {grade.diff_lines} lines; {grade.duration:.1f} s; {where}")
    if grade.detail:
        lines += ["  output of the last test run:", *("    " + line for line in grade.detail.splitlines()[-20:])]
    return "\n".join(lines)


def _reason(grade: Grade) -> str:
    if grade.tampering:
        return "the test reporting was tampered with"
    if grade.timed_out:
        return "the grading ran out of time"
    if not grade.tests_pass:
        return "some tests fail"
    if grade.differential is not None and not grade.differential.agrees:
        return "the tests pass, but the code's outputs differ from the reference's"
    return "every test passes" + (" and the outputs agree with the reference" if grade.differential
                                  and grade.differential.calls else "")


def _tests_line(grade: Grade) -> str:
    passed = sum(t.outcome == "passed" for t in grade.tests)
    failing = [t for t in grade.tests if t.outcome != "passed"]
    line = f"{passed}/{len(grade.tests)} pass"
    if failing:
        hidden = sum(t.hidden for t in failing)
        line += f"; {len(failing)} do not ({len(failing) - hidden} visible, {hidden} held back)"
    timeouts = sum(t.outcome == "timeout" for t in grade.tests)
    if timeouts:
        line += f"; {timeouts} ran past the time limit per test"
    return line + ("; the grading ran out of time" if grade.timed_out else "")


def _outputs_line(grade: Grade) -> str:
    check = grade.differential
    if check is None:
        return "not compared (the verdict is already a fail)"
    if not check.calls:
        return f"not compared: {check.note}"
    functions = ", ".join(check.functions)
    if check.agrees:
        return (f"{check.calls} calls of {functions} return what the reference returns"
                + (f"; {check.note}" if check.note else ""))
    first = check.examples[0]
    return (f"{check.mismatches} of {check.calls} calls differ from the reference, e.g. {first.call}"
            f" (called by {first.test}): {first.difference}")


def score_text(score: SuiteScore) -> str:
    lines = [f"{score.problem}: {score.tests} tests; mutation score "
             + (f"{score.score:.1f}%" if score.score is not None else "n/a")]
    for family, (detected, counted) in score.per_family.items():
        lines.append(f"  {family:<11} {detected}/{counted}")
    if not score.sandboxed:
        lines.append("  NOT SANDBOXED (--no-sandbox): the candidate's tests ran with your rights")
    else:
        controls = f"; {score.controls} disguised controls passed" if score.controls else ""
        lines.append(f"  the tests ran sandboxed (bubblewrap){controls}")
    if score.survivors:
        lines.append(f"{len(score.survivors)} surviving mutants:")
        for survivor in score.survivors:
            lines.append(f"  {survivor.mutant_id}  {survivor.location}  {survivor.operator}"
                         + (f"  [{survivor.classification}]" if survivor.classification else ""))
            if survivor.explanation:
                lines.append(f"      {survivor.explanation}")
            if survivor.witness:
                lines.append(f"      missed: {survivor.witness}")
            if survivor.suggested_test:
                lines.append("      a test that catches it:")
                lines.extend("        " + line for line in survivor.suggested_test.splitlines())
    return "\n".join(lines)


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
