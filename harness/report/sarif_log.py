"""SARIF 2.1.0: one warning per surviving mutant, so code scanning shows survivors inline.

Only `survived` mutants become results: they are the bugs a covering test let through. A
mutant no test covers is a coverage gap that coverage tools already report.
Regions are 1-based with an exclusive end column, counted in code points as ours are.
"""

from __future__ import annotations

from typing import Any

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report.about import NAME, homepage, version
from bugsmith.harness.report.view import MutantView, TriageFindings, build_view

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "bugsmithMutantId/v1"


def sarif(result: RunResult, *, triage: TriageFindings | None = None) -> dict[str, Any]:
    """The run's survivors as a SARIF 2.1.0 log (a JSON-ready dict)."""
    view = build_view(result, triage)
    survivors = [m for m in view.mutants if m.status == Status.SURVIVED]
    first: dict[str, MutantView] = {}  # per operator, the survivor whose explanation describes the rule
    for mutant in survivors:
        first.setdefault(mutant.mutant.operator, mutant)
    rules = {operator: index for index, operator in enumerate(first)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": NAME,
                        "version": version(),
                        **({"informationUri": homepage()} if homepage() else {}),
                        "rules": [_rule(first[operator]) for operator in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": True, "startTimeUtc": result.started}],
                "results": [_result(mutant, rules[mutant.mutant.operator]) for mutant in survivors],
            }
        ],
    }


def _rule(example: MutantView) -> dict[str, Any]:
    operator = example.mutant.operator
    return {
        "id": operator,
        "name": "".join(part.capitalize() for part in operator.replace("/", "-").split("-")),
        "shortDescription": {"text": f"A {example.family} bug that no test catches ({operator})"},
        "fullDescription": {"text": example.mutant.explanation},
        "help": {
            "text": (
                f"bugsmith injected this {example.family} bug and every covering test still "
                "passed. Add a test that fails on the mutated code; `bugsmith show ID` prints "
                "the mutant."
            )
        },
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["mutation-testing", example.family]},
    }


def _result(view: MutantView, rule_index: int) -> dict[str, Any]:
    mutant, span = view.mutant, view.span
    message = (
        f"Surviving mutant {mutant.id}: {mutant.explanation} "
        f"No test fails when `{_short(mutant.original)}` becomes `{_short(mutant.mutated)}`. "
        f"Run `bugsmith show {mutant.id}` to see it."
    )
    properties: dict[str, Any] = {"mutantId": mutant.id, "family": view.family, "mutated": mutant.mutated}
    if view.triage is not None:
        message += f" Triage: {view.triage.classification}."
        properties["triage"] = {
            "classification": view.triage.classification,
            "witness": view.triage.witness,
            "suggestedTest": view.triage.suggested_test,
        }
    return {
        "ruleId": mutant.operator,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": mutant.file, "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": span.line,
                        "startColumn": span.column + 1,
                        "endLine": span.end_line,
                        "endColumn": span.end_column + 1,
                        "snippet": {"text": mutant.original},
                    },
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT: mutant.id},
        "properties": properties,
    }


def _short(text: str) -> str:
    text = " ".join(text.split()) or "(nothing)"
    return text if len(text) <= 60 else text[:57] + "..."
