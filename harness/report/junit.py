"""JUnit XML: one test case per mutant, so any CI that shows test results shows survivors.

A survivor, and a mutant no test covers, is a failure; an equivalent, errored or pending mutant
is skipped (it says nothing about the suite); a killed or timed-out one passes.
ElementTree escapes markup; characters XML 1.0 cannot hold at all (NUL, most control
characters, which test output can contain) are replaced first.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report.view import PENDING, FileView, MutantView, TriageFindings, build_view

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_FAILED = frozenset({Status.SURVIVED, Status.NO_COVERAGE})
_SKIPPED = frozenset({Status.EQUIVALENT, Status.ERROR, PENDING})


def junit_xml(result: RunResult, *, triage: TriageFindings | None = None) -> str:
    """The run as a JUnit XML document, one `<testsuite>` per mutated file."""
    view = build_view(result, triage)
    root = _element("testsuites", name="bugsmith", time=f"{result.duration:.3f}", **_totals(view.mutants))
    for file in view.files:
        root.append(_suite(file, result.started))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(file: FileView, started: str) -> ET.Element:
    seconds = sum(m.outcome.duration for m in file.mutants if m.outcome)
    suite = _element(
        "testsuite", name=file.path, timestamp=started, time=f"{seconds:.3f}", **_totals(file.mutants)
    )
    for mutant in file.mutants:
        suite.append(_case(mutant))
    return suite


def _case(view: MutantView) -> ET.Element:
    mutant, outcome = view.mutant, view.outcome
    case = _element(
        "testcase",
        classname=mutant.file,
        name=f"{mutant.operator} {mutant.id}",
        file=mutant.file,
        line=str(view.span.line),
        time=f"{outcome.duration if outcome else 0.0:.3f}",
    )
    detail = outcome.detail if outcome else ""
    if view.status in _FAILED:
        what = "survived" if view.status == Status.SURVIVED else "not covered by any test"
        failure = _element(
            "failure",
            type=view.status,
            message=f"{what}: {mutant.explanation} (bugsmith show {mutant.id})",
        )
        failure.text = _clean(mutant.diff)
        case.append(failure)
    elif view.status in _SKIPPED:
        reason = detail or (outcome.message if outcome else "") or "not run yet"
        case.append(_element("skipped", message=f"{view.status}: {reason}"))
    elif outcome and outcome.killed_by:
        out = ET.SubElement(case, "system-out")
        how = f" ({view.failure})" if view.failure else ""
        out.text = _clean(f"{view.status} by {outcome.killed_by[0]}{how}")
    return case


def _totals(mutants: tuple[MutantView, ...]) -> dict[str, str]:
    return {
        "tests": str(len(mutants)),
        "failures": str(sum(m.status in _FAILED for m in mutants)),
        "errors": "0",  # an errored mutant is bugsmith's problem, not a failing test: skipped
        "skipped": str(sum(m.status in _SKIPPED for m in mutants)),
    }


def _element(tag: str, **attributes: str) -> ET.Element:
    return ET.Element(tag, {key: _clean(value) for key, value in attributes.items()})


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
