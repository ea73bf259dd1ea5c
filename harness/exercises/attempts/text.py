"""What `bugsmith attempts summarise` prints: a few lines per exercise, or the summaries as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.attempts import summarising
from bugsmith.harness.exercises.attempts.records import ExerciseSummary


def summaries_text(summaries: Sequence[ExerciseSummary]) -> str:
    lines: list[str] = []
    pack = None
    for summary in summaries:
        if summary.pack != pack:
            pack = summary.pack
            lines += [""] * bool(lines) + [f"pack {pack.name} (manifest {pack.manifest_sha256[:12]})"]
        label = summary.label
        lines.append(f"  {summary.exercise_id} ({summary.problem}): labelled {label.level}"
                     f" (score {label.score}), {label.time_limit_minutes} min")
        lines.append(f"    {_effort(summary)}")
        lines.append(f"    {summary.verdict.value}: {'; '.join(summary.reasons)}")
    lines += ["", f"rule: {summarising.RULE}"]
    return "\n".join(lines)


def _effort(summary: ExerciseSummary) -> str:
    n = summary.attempts
    minutes = (f"median {_number(summary.median_minutes)} min ({summary.timed} of {n} timed)"
               if summary.median_minutes is not None else f"minutes unknown (0 of {n} timed)")
    runs = (f"median {_number(summary.median_runs)} runs ({summary.with_log} of {n} with a whole log)"
            if summary.median_runs is not None else f"runs unknown (0 of {n} with a whole log)")
    hints = (f"median {_number(summary.median_hints)} hints ({summary.with_hints} of {n} recorded)"
             if summary.median_hints is not None else "hints not recorded")
    return (f"{n} attempt{'s' * (n != 1)}, {summary.passed} passed ({summary.pass_rate:.0%};"
            f" {summary.passed_unaided} without hints), {minutes}, {runs}, {hints}")


def _number(value: float | None) -> str:
    return f"{value:g}" if value is not None else "?"


def summaries_json(summaries: Sequence[ExerciseSummary], skipped: Sequence[str]) -> dict[str, Any]:
    return {
        "rule": summarising.RULE,
        "thresholds": {"min_attempts": summarising.MIN_ATTEMPTS, "harder_pass_rate": summarising.HARDER_PASS_RATE,
                       "easier_pass_rate": summarising.EASIER_PASS_RATE,
                       "easier_fraction_of_limit": round(summarising.EASIER_FRACTION, 4)},
        "exercises": [summary.to_dict() for summary in summaries],
        "skipped": list(skipped),
    }
