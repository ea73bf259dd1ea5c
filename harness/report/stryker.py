"""The mutation-testing report JSON (schema version 2) that Stryker's viewer and dashboard read.

Positions are 1-based with an exclusive end; our columns are 0-based, so each gains one.
bugsmith's own facts (family, silent or loud failure, explanation, triage) ride along as extra
keys, which the schema allows on every object (none of its objects sets
`additionalProperties: false`).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from bugsmith.harness.outcome import Outcome, RunResult, Status, TestInfo
from bugsmith.harness.report.about import NAME, homepage, version
from bugsmith.harness.report.view import PENDING, FileView, MutantView, TriageFindings, build_view

SCHEMA_VERSION = "2"
STATUS = {
    Status.KILLED: "Killed",
    Status.SURVIVED: "Survived",
    Status.TIMEOUT: "Timeout",
    Status.ERROR: "RuntimeError",
    Status.NO_COVERAGE: "NoCoverage",
    Status.EQUIVALENT: "Ignored",  # the schema has no "equivalent"; the reason says why
    PENDING: "Pending",
}


def stryker_json(
    result: RunResult, *, triage: TriageFindings | None = None
) -> dict[str, Any]:
    """The run as a mutation-testing report (a JSON-ready dict)."""
    view = build_view(result, triage)
    high, low = view.thresholds
    return {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": {"high": high, "low": low},
        "projectRoot": result.root,
        "files": {file.path: _file(file) for file in view.files},
        "testFiles": _test_files(result.tests),
        "framework": {
            "name": NAME,
            "version": version(),
            **({"branding": {"homepageUrl": homepage()}} if homepage() else {}),
        },
        "performance": _performance(result),
        "config": json.loads(json.dumps(result.options, default=str)),
        "bugsmith": {  # facts about the run that the schema has no place for
            "started": result.started,
            "durationSeconds": result.duration,
            "score": view.tally.score,
            "droppedEquivalent": result.dropped_equivalent,
            "droppedDuplicates": result.dropped_duplicates,
            "families": {
                family: {"score": t.score, "mutants": t.total, "survived": t.counts[Status.SURVIVED]}
                for family, t in view.families.items()
            },
        },
    }


def schema() -> dict[str, Any]:
    """The report's JSON Schema, shipped with bugsmith."""
    text = resources.files("bugsmith.harness.report").joinpath(
        "schema", "mutation-testing-report-schema.json"
    ).read_text(encoding="utf-8")
    return json.loads(text)


def _file(file: FileView) -> dict[str, Any]:
    return {
        "language": "python",
        "source": file.source or "",
        "mutants": [_mutant(mutant) for mutant in file.mutants],
    }


def _mutant(view: MutantView) -> dict[str, Any]:
    mutant, outcome, span = view.mutant, view.outcome, view.span
    data: dict[str, Any] = {
        "id": mutant.id,
        "mutatorName": mutant.operator,
        "location": {
            "start": {"line": span.line, "column": span.column + 1},
            "end": {"line": span.end_line, "column": span.end_column + 1},
        },
        "status": STATUS[view.status],
        "replacement": mutant.mutated,
        "description": mutant.explanation,
        # Set when the site runs at import time, which is what the schema's "static" means.
        "static": mutant.function is None,
        "family": view.family,
        "explanation": mutant.explanation,
        "original": mutant.original,
    }
    if outcome is not None:
        data.update(
            killedBy=list(outcome.killed_by),
            coveredBy=list(outcome.covered_by),
            duration=round(outcome.duration * 1000, 3),
            testsCompleted=outcome.tests_run,
        )
        reason = _reason(view.status, outcome)
        if reason:
            data["statusReason"] = reason
        if view.failure:
            data["failure"] = view.failure
        if outcome.exception:
            data["exception"] = outcome.exception
    if view.triage is not None:
        data["triage"] = {
            "classification": view.triage.classification,
            "witness": view.triage.witness,
            "suggestedTest": view.triage.suggested_test,
        }
    return data


def _reason(status: str, outcome: Outcome) -> str:
    """The failure message for a killed mutant, the reason for the others (as the schema asks)."""
    failure = ": ".join(part for part in (outcome.exception, outcome.message) if part)
    if status == Status.EQUIVALENT:
        return outcome.detail or "equivalent: behaves exactly like the original code"
    if status == Status.NO_COVERAGE:
        return outcome.detail or "no test covers this code"
    return "; ".join(part for part in (failure, outcome.detail) if part)


def _test_files(tests: tuple[TestInfo, ...]) -> dict[str, Any]:
    files: dict[str, dict[str, list[dict[str, str]]]] = {}
    for test in tests:
        name = test.id.split("::", 1)[1] if "::" in test.id else test.id
        files.setdefault(test.file, {"tests": []})["tests"].append({"id": test.id, "name": name})
    return files


def _performance(result: RunResult) -> dict[str, float]:
    """Milliseconds per phase, summing to the run's wall time.

    The baseline's net time is the sum of its tests' durations; mutant durations are summed over
    parallel workers, so they are capped at the wall time that remains.
    """
    total = max(result.duration, 0.0)
    initial = min(sum(test.duration for test in result.tests), total)
    mutation = min(sum(outcome.duration for outcome in result.outcomes), total - initial)
    return {
        "setup": round((total - initial - mutation) * 1000, 3),
        "initialRun": round(initial * 1000, 3),
        "mutation": round(mutation * 1000, 3),
    }
