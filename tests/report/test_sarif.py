"""SARIF 2.1.0: survivors as warnings at their exact location, with rules for their operators."""

from __future__ import annotations

import json

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report import sarif


def test_one_warning_per_survivor_at_its_location(run: RunResult) -> None:
    """Only survived mutants become results, each a warning at a 1-based region with a relative uri."""
    log = sarif(run)
    assert log["version"] == "2.1.0"
    (results,) = [r["results"] for r in log["runs"]]
    survivors = {o.mutant_id for o in run.outcomes if o.status is Status.SURVIVED}
    assert {r["partialFingerprints"]["bugsmithMutantId/v1"] for r in results} == survivors
    mutants = {m.id: m for m in run.mutants}
    for result in results:
        mutant = mutants[result["properties"]["mutantId"]]
        assert result["level"] == "warning" and result["ruleId"] == mutant.operator
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "pkg/snippet.py"
        assert location["region"] == {
            "startLine": mutant.span.line, "startColumn": mutant.span.column + 1,
            "endLine": mutant.span.end_line, "endColumn": mutant.span.end_column + 1,
            "snippet": {"text": mutant.original},
        }
        assert mutant.explanation in result["message"]["text"]
        assert f"bugsmith show {mutant.id}" in result["message"]["text"]


def test_rules_describe_the_operators_and_indices_match(run: RunResult) -> None:
    """Each result's ruleIndex points at its rule in tool.driver.rules, which carries an explanation."""
    log = sarif(run)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "bugsmith" and driver["rules"]
    for result in log["runs"][0]["results"]:
        rule = driver["rules"][result["ruleIndex"]]
        assert rule["id"] == result["ruleId"] and rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] == "warning"
    json.dumps(log)


def test_no_survivors_gives_an_empty_but_valid_log(run: RunResult) -> None:
    """A run where nothing survived has no results and no rules."""
    import dataclasses

    outcomes = tuple(dataclasses.replace(o, status=Status.KILLED) for o in run.outcomes)
    log = sarif(dataclasses.replace(run, outcomes=outcomes))
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []
