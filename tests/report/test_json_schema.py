"""The Stryker mutation-testing report JSON: valid against the schema, and faithful to the run."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report import stryker_json
from bugsmith.harness.report.stryker import STATUS, schema
from bugsmith.harness.report.view import PENDING

from .runs import SNIPPET, make_run


def validate(report: dict) -> None:
    validator = jsonschema.Draft7Validator(schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(report), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_report_validates_against_the_schema(run: RunResult) -> None:
    """Every status, extra bugsmith keys, test files and performance pass the draft-07 schema."""
    report = stryker_json(run)
    validate(report)
    assert report["schemaVersion"] == "2"
    assert report["files"]["pkg/snippet.py"]["language"] == "python"


def test_the_validator_rejects_a_broken_report(run: RunResult) -> None:
    """The schema check can fail: a column of 0 (positions are 1-based) is an error."""
    report = stryker_json(run)
    report["files"]["pkg/snippet.py"]["mutants"][0]["location"]["start"]["column"] = 0
    with pytest.raises(AssertionError, match="minimum"):
        validate(report)


def test_locations_are_one_based_with_an_exclusive_end(run: RunResult) -> None:
    """Slicing the source at a mutant's location (1-based, end exclusive) gives its original text."""
    file = stryker_json(run)["files"]["pkg/snippet.py"]
    lines = file["source"].splitlines(keepends=True)
    starts = [sum(map(len, lines[:i])) for i in range(len(lines) + 1)]
    originals = {m.id: m.original for m in run.mutants}
    for mutant in file["mutants"]:
        start, end = mutant["location"]["start"], mutant["location"]["end"]
        text = file["source"][starts[start["line"] - 1] + start["column"] - 1 : starts[end["line"] - 1] + end["column"] - 1]
        assert text == originals[mutant["id"]]


def test_statuses_map_to_the_schema_and_equivalent_says_why(run: RunResult) -> None:
    """Each status maps as specified; an equivalent mutant is Ignored with its reason."""
    assert STATUS == {
        "killed": "Killed", "survived": "Survived", "timeout": "Timeout", "error": "RuntimeError",
        "no coverage": "NoCoverage", "equivalent": "Ignored", PENDING: "Pending",
    }
    statuses = {o.mutant_id: o.status for o in run.outcomes}
    for mutant in stryker_json(run)["files"]["pkg/snippet.py"]["mutants"]:
        assert mutant["status"] == STATUS[statuses[mutant["id"]].value]
        if statuses[mutant["id"]] is Status.EQUIVALENT:
            assert mutant["statusReason"] == "same bytecode"
        if statuses[mutant["id"]] is Status.KILLED:
            assert mutant["statusReason"].startswith("AssertionError: assert")


def test_mutants_carry_bugsmith_fields_and_test_links(run: RunResult) -> None:
    """Family, failure and explanation ride along; killedBy ids are tests listed in testFiles."""
    report = stryker_json(run)
    test_ids = {t["id"] for f in report["testFiles"].values() for t in f["tests"]}
    killed = [m for m in report["files"]["pkg/snippet.py"]["mutants"] if m["status"] == "Killed"]
    assert killed and all(set(m["killedBy"]) <= test_ids and m["killedBy"] for m in killed)
    for mutant in report["files"]["pkg/snippet.py"]["mutants"]:
        source = next(m for m in run.mutants if m.id == mutant["id"])
        assert mutant["family"] == source.family.value
        assert mutant["explanation"] == mutant["description"] == source.explanation
        assert mutant["mutatorName"] == source.operator and mutant["replacement"] == source.mutated
    assert killed[0]["failure"] == "silent"
    assert report["testFiles"]["tests/test_snippet.py"]["tests"][0]["name"] == "test_window"


def test_performance_adds_up_to_the_run_time(run: RunResult) -> None:
    """The three phases sum to the wall time, in milliseconds, even when workers overlap."""
    perf = stryker_json(run)["performance"]
    assert sum(perf.values()) == pytest.approx(run.duration * 1000)
    busy = dataclasses.replace(run, duration=0.5)  # mutant time summed over workers exceeds wall time
    perf = stryker_json(busy)["performance"]
    assert sum(perf.values()) == pytest.approx(500) and min(perf.values()) >= 0


def test_pending_mutants_and_odd_options_still_validate(tmp_path: Path) -> None:
    """An interrupted run with non-JSON option values (paths, tuples) gives a valid report."""
    run = make_run({"m.py": SNIPPET}, (Status.KILLED,), options={"root": tmp_path, "paths": ("a", "b")})
    run = dataclasses.replace(run, outcomes=run.outcomes[:2])
    report = stryker_json(run)
    validate(report)
    json.dumps(report)
    assert [m["status"] for m in report["files"]["m.py"]["mutants"]].count("Pending") == 4
    assert report["config"]["paths"] == ["a", "b"]


def test_triage_goes_into_the_mutant(run: RunResult) -> None:
    """A survivor's triage findings appear on its mutant and the report still validates."""
    survivor = next(o.mutant_id for o in run.outcomes if o.status is Status.SURVIVED)
    triage = {survivor: {"classification": "undertested", "witness": "x=[0]", "suggested_test": "def test(): ..."}}
    report = stryker_json(run, triage=triage)
    validate(report)
    (mutant,) = [m for m in report["files"]["pkg/snippet.py"]["mutants"] if "triage" in m]
    assert mutant["id"] == survivor and mutant["triage"]["witness"] == "x=[0]"
