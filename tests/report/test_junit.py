"""JUnit XML: one test case per mutant, survivors as failures, well-formed whatever the text."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report import junit_xml


def test_one_case_per_mutant_with_file_and_operator(run: RunResult) -> None:
    """Each mutant is a test case named by operator and id, classed by its file."""
    root = ET.fromstring(junit_xml(run))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(run.mutants)
    assert {c.get("name") for c in cases} == {f"{m.operator} {m.id}" for m in run.mutants}
    assert {c.get("classname") for c in cases} == {"pkg/snippet.py"}


def test_statuses_become_failures_skips_and_passes(run: RunResult) -> None:
    """Survived and uncovered fail, equivalent and error skip, killed and timeout pass; totals agree."""
    root = ET.fromstring(junit_xml(run))
    status = {o.mutant_id: o.status for o in run.outcomes}
    diffs = {m.id: m.diff for m in run.mutants}
    for case in root.iter("testcase"):
        kind = status[case.get("name").split()[-1]]
        failure, skipped = case.find("failure"), case.find("skipped")
        assert (failure is not None) == (kind in (Status.SURVIVED, Status.NO_COVERAGE))
        assert (skipped is not None) == (kind in (Status.EQUIVALENT, Status.ERROR))
        if failure is not None:
            assert failure.get("type") == kind.value and "bugsmith show" in failure.get("message")
            assert failure.text == diffs[case.get("name").split()[-1]]
    assert root.get("tests") == "6" and root.get("failures") == "2" and root.get("skipped") == "2"
    assert root.find("testsuite").get("failures") == "2"


def test_control_characters_and_markup_stay_well_formed(run: RunResult) -> None:
    """NUL, escape codes and `<`/`&` from test output still give parseable XML."""
    outcomes = tuple(
        dataclasses.replace(o, detail="\x00\x1b[31m<b>&</b>") if o.status is Status.ERROR else o for o in run.outcomes
    )
    root = ET.fromstring(junit_xml(dataclasses.replace(run, outcomes=outcomes)))
    (skipped,) = [s for s in root.iter("skipped") if s.get("message").startswith("error")]
    assert skipped.get("message") == "error: \ufffd\ufffd[31m<b>&</b>"
