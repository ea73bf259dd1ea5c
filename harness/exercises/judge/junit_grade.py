"""A grade as JUnit XML, for CI systems and test-report viewers (an instructor's view: everything).

One `<testsuite>` per exercise, one `<testcase>` per test, held-back ones included, named as
pytest's own JUnit XML names them (classname: the test file's dotted module path and class;
name: the function with its parameters). A failed test is a `<failure>`; an error, a timeout or
a test that never ran is an `<error>`; a skipped one is `<skipped>`. The verdict is one more
test case, `bugsmith.grade` / `verdict`, that fails exactly when the grade fails, so a viewer
that only counts failures still sees a failed grade whose tests all pass (reporting tampered
with, outputs that differ from the reference's). The suite's properties say which tests were
held back and hold the candidate's process summary (one `process` property a line: the lines of
`grade_text.process_lines`, which the CLI passes); its system-out is the text summary, which has
the grade's own Process section. Elements and attributes keep to what Jenkins' and Ant's JUnit
schemas allow.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from bugsmith.harness.exercises.judge.grade_text import grade_text
from bugsmith.harness.exercises.judge.grading import Grade, TestResult
from bugsmith.harness.shared.protocol import TestOutcome

VERDICT_CLASS, VERDICT_NAME = "bugsmith.grade", "verdict"
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ERRORS = frozenset({TestOutcome.ERROR, TestOutcome.TIMEOUT, TestOutcome.NOT_RUN})


def junit_grade(grade: Grade, *, process_lines: Sequence[str] = ()) -> str:
    """The grade as a JUnit XML document."""
    cases = [_case(test) for test in grade.tests] + [_verdict(grade)]
    counts = _counts(cases)
    root = _element("testsuites", name="bugsmith grade", time=f"{grade.duration:.3f}", **counts)
    suite = ET.SubElement(root, "testsuite", _attributes(name=grade.exercise_id, time=f"{grade.duration:.3f}",
                                                         **counts))
    properties = ET.SubElement(suite, "properties")
    facts = [("problem", grade.problem), ("passed", str(grade.passed).lower()), ("fix", grade.fix),
             ("diff_lines", str(grade.diff_lines)), ("sandboxed", str(grade.sandboxed).lower()),
             ("canaries", str(grade.canaries)),
             *(("held_back", t.id) for t in grade.tests if t.hidden),
             *(("tampering", reason) for reason in grade.tampering),
             *(("process", line) for line in process_lines)]
    for name, value in facts:
        properties.append(_element("property", name=name, value=value))
    suite.extend(cases)
    _text(suite, "system-out", grade_text(grade, verbose=False))  # its Process section included
    return _document(root)


def junit_failure(exercise_id: str, message: str) -> str:
    """A run that produced no grade: its one test case, the verdict, is an error with the reason."""
    root = _element("testsuites", name="bugsmith grade", tests="1", failures="0", errors="1", skipped="0")
    suite = ET.SubElement(root, "testsuite", _attributes(name=exercise_id, tests="1", failures="0", errors="1",
                                                         skipped="0"))
    case = ET.SubElement(suite, "testcase", _attributes(classname=VERDICT_CLASS, name=VERDICT_NAME))
    case.append(_element("error", type="not graded", message=message))
    return _document(root)


def _case(test: TestResult) -> ET.Element:
    file, _, rest = test.id.partition("::")
    parts = rest.split("::") if rest else [file]
    module = file.removesuffix(".py").replace("/", ".")
    case = _element("testcase", classname=".".join([module, *parts[:-1]]), name=parts[-1], file=file)
    message = test.message or str(test.outcome)
    if test.outcome == TestOutcome.FAILED:
        _text(case, "failure", test.message, type=str(test.outcome), message=message)
    elif test.outcome in _ERRORS:
        _text(case, "error", test.message, type=str(test.outcome), message=message)
    elif test.outcome == TestOutcome.SKIPPED:
        case.append(_element("skipped", message=f"{message} (a skipped test does not pass a grade)"))
    return case


def _verdict(grade: Grade) -> ET.Element:
    case = _element("testcase", classname=VERDICT_CLASS, name=VERDICT_NAME)
    if not grade.passed:
        lines = grade_text(grade, verbose=False).splitlines()
        _text(case, "failure", "\n".join(lines[1:]), type="grade", message=lines[0])
    return case


def _counts(cases: Sequence[ET.Element]) -> dict[str, str]:
    return {"tests": str(len(cases)),
            "failures": str(sum(c.find("failure") is not None for c in cases)),
            "errors": str(sum(c.find("error") is not None for c in cases)),
            "skipped": str(sum(c.find("skipped") is not None for c in cases))}


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> None:
    child = ET.SubElement(parent, tag, _attributes(**attributes))
    child.text = _clean(text)


def _element(tag: str, **attributes: str) -> ET.Element:
    return ET.Element(tag, _attributes(**attributes))


def _attributes(**attributes: str) -> dict[str, str]:
    return {key: _clean(value) for key, value in attributes.items()}


def _clean(text: str) -> str:
    # XML 1.0 cannot hold NUL or most control characters at all, and test output may carry them.
    return _NOT_XML.sub("\ufffd", text)


def _document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
