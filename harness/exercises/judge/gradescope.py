"""A grade as Gradescope's autograder `results.json`.

The format is Gradescope's (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
top-level `score`, `execution_time`, `output` and its formats, `visibility`, `stdout_visibility`,
`extra_data` and `tests`, each test with `status`, `name`, `number`, `output`, `tags`,
`visibility` and `extra_data`. tests/grading/gradescope-results.schema.json holds it as a
JSON Schema.

What the candidate sees is chosen here, because Gradescope shows results.json to them:

- Scoring is all or nothing: `points` when the grade passes (every test, the held-back ones
  too; no canary reported passed; the outputs agree with the reference's), else 0. A debugging
  exercise is fixed or it is not, and a fix that passes most tests by special-casing them is
  not most of a fix. The tests carry a status and no points of their own, so Gradescope takes
  the top-level score; each test still shows whether it passed.
- Visible tests are `visible`, with their message (the candidate has these tests anyway).
- Held-back tests are `after_published`: neither their names nor their outcomes are shown
  before the instructor publishes the grades, and never their messages (pytest's assertion
  messages quote the test's own source and expected values). Not `hidden`: once grades are
  out, knowing which held-back behaviour a fix missed is the feedback the exercise exists for.
- The top-level output holds the verdict, the reporting (canary) and output checks, counts of
  the failing tests (visible and held back, never their names), the score policy, and of the
  candidate's process only neutral facts: how many test runs their log recorded and whether it
  verifies. An example of a differing output is shown only when a visible test made the call.
- The process summary itself (`process_lines`) goes to `extra_data`, which Gradescope keeps for
  the instructor and never shows a student: it names the size of the exercise's fix and the
  functions it touches, which would point a student who can resubmit at the bug.
- Without the sandbox (`--no-sandbox`) the submission's code could read the held-back tests
  and write them into any message, so no message is shown at all.
- `stdout_visibility` is `hidden`: the run's standard output (the instructor's log) names
  every test with its message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.judge.attempt_log import LogStatus
from bugsmith.harness.exercises.judge.grade_text import verdict_reason
from bugsmith.harness.exercises.judge.grading import Grade, TestResult
from bugsmith.harness.exercises.judge.process import Process
from bugsmith.harness.exercises.sources.handout_names import HandoutNames
from bugsmith.harness.shared.protocol import TestOutcome

DOCUMENTATION = "https://gradescope-autograders.readthedocs.io/en/latest/specs/"
VISIBLE, AFTER_PUBLISHED, HIDDEN = "visible", "after_published", "hidden"
TEXT = "text"  # never rendered as HTML or Markdown: test messages may contain either


def gradescope_results(grade: Grade, *, points: float = 1.0, process_lines: Sequence[str] = ()) -> dict[str, Any]:
    """The grade as a results.json document (a dict to serialise as JSON); `process_lines`, the
    instructor's process summary (`grade_text.process_lines`), is kept where no student sees it."""
    visible = [t for t in grade.tests if not t.hidden]
    held_back = [t for t in grade.tests if t.hidden]
    shown = HandoutNames(level=grade.handout_level, packages=(grade.problem,))  # the student's file names
    return {
        "score": float(points) if grade.passed else 0.0,
        "execution_time": round(grade.duration),
        "output": _unnamed("\n".join(_summary(grade, points)), held_back),
        "output_format": TEXT,
        "test_output_format": TEXT,
        "test_name_format": TEXT,
        "visibility": VISIBLE,
        "stdout_visibility": HIDDEN,
        "extra_data": {"bugsmith": {**_facts(grade),
                                    "tampering": [_unnamed(r, held_back) for r in grade.tampering],
                                    "process": list(process_lines)}},
        "tests": ([_test(t, f"1.{i}", VISIBLE, grade.sandboxed, shown) for i, t in enumerate(visible, 1)]
                  + [_test(t, f"2.{i}", AFTER_PUBLISHED, grade.sandboxed, shown) for i, t in enumerate(held_back, 1)]),
    }


def gradescope_failure(exercise_id: str, message: str) -> dict[str, Any]:
    """results.json for a run that produced no grade: a score of 0 and the reason, never a pass."""
    return {
        "score": 0.0,
        "output": f"{exercise_id}: NOT GRADED: {message}\nThe score is 0 until the submission can be graded.",
        "output_format": TEXT,
        "visibility": VISIBLE,
        "stdout_visibility": HIDDEN,
        "extra_data": {"bugsmith": {"exercise_id": exercise_id, "graded": False, "error": message}},
        "tests": [],
    }


def _test(test: TestResult, number: str, visibility: str, sandboxed: bool, shown: HandoutNames) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "status": "passed" if test.outcome == TestOutcome.PASSED else "failed",
        "name": shown.test_id(test.id),
        "name_format": TEXT,
        "number": number,
        "tags": ["held back" if test.hidden else "visible"],
        "visibility": visibility,
        "extra_data": {"outcome": str(test.outcome)},
    }
    output = shown.markdown(_test_output(test, sandboxed))
    if output:
        entry["output"] = output
        entry["output_format"] = TEXT
    return entry


def _test_output(test: TestResult, sandboxed: bool) -> str:
    if test.outcome == TestOutcome.PASSED:
        return ""
    if test.hidden:
        return f"{test.outcome} (a held-back test: its message is not shown)"
    if not sandboxed:
        return f"{test.outcome} (graded without the sandbox: no message is shown)"
    return f"{test.outcome}: {test.message}" if test.message else str(test.outcome)


def _summary(grade: Grade, points: float) -> list[str]:
    lines = [f"{grade.exercise_id} ({grade.problem}): {'PASS' if grade.passed else 'FAIL'}: {verdict_reason(grade)}",
             f"Tests: {_tests_line(grade)}",
             "Reporting: " + ("TAMPERED WITH: " + "; ".join(grade.tampering) if grade.tampering
                              else f"honest ({grade.canaries} canary tests failed, as they must)"),
             f"Outputs: {_outputs_line(grade)}"]
    if grade.bugs:
        known = [b for b in grade.bugs if b.fixed is not None]
        lines.append(f"Bugs: {sum(bool(b.fixed) for b in known)} of {len(grade.bugs)} fixed" if known
                     else f"Bugs: {len(grade.bugs)} (this pack does not record which tests each one fails)")
    lines.append(f"Score: all or nothing: {points:g} for a fix that passes every test (the held-back ones too),"
                 " with honest reporting and the reference's outputs; 0 otherwise. Held-back tests are listed"
                 " once grades are published.")
    if not grade.sandboxed:
        lines.append("Graded WITHOUT the sandbox (--no-sandbox): no test message is shown.")
    lines.append(f"Process: {_neutral_process(grade.process)}")
    return lines


def _neutral_process(process: Process) -> str:
    """What a student may read of their process: the runs their log recorded and whether it verifies.
    Nothing measured against the fix (its size, its functions, "outside the fix", "minimal")."""
    if process.log in (LogStatus.MISSING, LogStatus.BROKEN):
        told = f"log {process.log}: {process.note}"
    else:
        runs = len(process.runs)
        told = f"{runs} test run{'' if runs == 1 else 's'} recorded in your log; log {process.log}"
        if process.log == LogStatus.STALE:
            told += f": {process.note}"
    return told + ". How you worked is reported to the instructor beside the score; it never changes the score."


def _tests_line(grade: Grade) -> str:
    failing = [t for t in grade.tests if t.outcome != TestOutcome.PASSED]
    line = f"{len(grade.tests) - len(failing)}/{len(grade.tests)} pass"
    if failing:
        held_back = sum(t.hidden for t in failing)
        line += f"; {len(failing)} do not ({len(failing) - held_back} visible, {held_back} held back)"
    return line + ("; the grading ran out of time" if grade.timed_out else "")


def _outputs_line(grade: Grade) -> str:
    check = grade.differential
    if check is None:
        return "not compared (the verdict is already a fail)"
    if not check.calls:
        return "not compared"
    if check.agrees:
        return f"{check.calls} calls return what the reference returns"
    line = f"{check.mismatches} of {check.calls} calls differ from the reference"
    shown = next((m for m in check.examples if _made_by_visible_test(m.test, grade)), None)
    if shown is None or not grade.sandboxed:
        return line + " (the differing calls come from held-back tests, so none is shown)"
    return line + f", e.g. {shown.call} (called by {shown.test}): {shown.difference}"


def _unnamed(text: str, held_back: Sequence[TestResult]) -> str:
    """`text` with every held-back test's name replaced (a tampering reason may name one)."""
    for test in sorted(held_back, key=lambda t: len(t.id), reverse=True):
        text = text.replace(test.id, "a held-back test")
    return text


def _made_by_visible_test(test: str, grade: Grade) -> bool:
    """Whether `test` (a node id, perhaps without its parameters) is a visible test and no held-back one."""
    def named(t: TestResult) -> bool:
        return t.id == test or t.id.startswith(test + "[")
    return any(named(t) for t in grade.tests if not t.hidden) and not any(named(t) for t in grade.tests if t.hidden)


def _facts(grade: Grade) -> dict[str, Any]:
    """What the instructor's exports keep: counts and kinds, nothing a candidate must not see."""
    return {
        "exercise_id": grade.exercise_id,
        "problem": grade.problem,
        "graded": True,
        "passed": grade.passed,
        "fix": grade.fix,
        "diff_lines": grade.diff_lines,
        "timed_out": grade.timed_out,
        "sandboxed": grade.sandboxed,
        "canaries": grade.canaries,
        "outputs_compared": grade.differential.calls if grade.differential else 0,
        "outputs_differing": grade.differential.mismatches if grade.differential else 0,
        "bugs_fixed": [b.fixed for b in grade.bugs],
    }
