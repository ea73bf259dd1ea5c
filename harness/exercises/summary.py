"""Plain-text summaries of exercises, grades and suite scores, for the CLI to print."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.grading import Grade
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.scoring import SuiteScore


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


def grade_text(grade: Grade) -> str:
    lines = [f"{'hidden ' if t.hidden else 'visible'}  {t.outcome:<8} {t.id}"
             + (f"\n    {t.message}" if t.message and t.outcome != "passed" else "") for t in grade.tests]
    passed = sum(t.outcome == "passed" for t in grade.tests)
    verdict = {"reference": "restores the reference code",
               "different": "a different valid fix (every test passes, the code differs from the reference)",
               "none": "not fixed: some tests fail"}[grade.fix]
    timed_out = " (timed out)" if grade.timed_out else ""
    lines.append(f"{grade.exercise_id}: {passed}/{len(grade.tests)} tests pass{timed_out}; {verdict};"
                 f" diff {grade.diff_lines} lines; {grade.duration:.1f} s")
    if grade.detail:
        lines.append(grade.detail)
    return "\n".join(lines)


def score_text(score: SuiteScore) -> str:
    lines = [f"{score.problem}: {score.tests} tests; mutation score "
             + (f"{score.score:.1f}%" if score.score is not None else "n/a")]
    for family, (detected, counted) in score.per_family.items():
        lines.append(f"  {family:<11} {detected}/{counted}")
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
