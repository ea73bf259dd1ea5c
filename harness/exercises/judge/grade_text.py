"""The grade of one submission as plain text: the verdict, the tests, the output check and how
the candidate worked (the Process section), for the CLI and the grade formats."""

from __future__ import annotations

from collections.abc import Sequence

from bugsmith.harness.exercises.judge.attempt_log import LogStatus
from bugsmith.harness.exercises.judge.grading import Grade
from bugsmith.harness.exercises.judge.process import Process
from bugsmith.harness.shared.protocol import TestOutcome

FIX_KINDS = {"reference": "restores the reference code",
             "different": "a different valid fix (it passes, the code differs from the reference)",
             "none": "not fixed"}
SHOWN_FAILURES = 3


def grade_text(grade: Grade, *, verbose: bool = False) -> str:
    """A short summary of a grade (every test too when `verbose`)."""
    lines = []
    if verbose:
        lines += [f"{'hidden ' if t.hidden else 'visible'}  {t.outcome:<8} {t.id}"
                  + (f"\n    {t.message}" if t.message and t.outcome != TestOutcome.PASSED else "")
                  for t in grade.tests]
    lines.append(f"{grade.exercise_id} ({grade.problem}): {'PASS' if grade.passed else 'FAIL'}:"
                 f" {verdict_reason(grade)}")
    lines.append("  tests      " + _tests_line(grade))
    if not verbose:
        for test in [t for t in grade.tests if t.outcome != TestOutcome.PASSED][:SHOWN_FAILURES]:
            lines.append(f"             {test.outcome}: {test.id}" + (f": {test.message}" if test.message else ""))
    for bug in grade.bugs:
        state = {True: "fixed", False: f"not fixed ({len(bug.failing)} of its tests fail)",
                 None: "unknown (this pack does not record which tests each bug fails)"}[bug.fixed]
        lines.append(f"  bug {bug.index}      {bug.location}: {state}")
    lines.append("  reporting  " + ("TAMPERED WITH: " + "; ".join(grade.tampering) if grade.tampering
                                    else f"honest ({grade.canaries} canary tests failed, as they must)"))
    lines.append("  outputs    " + _outputs_line(grade))
    where = ("sandboxed (bubblewrap)" if grade.sandboxed
             else "NOT SANDBOXED (--no-sandbox): the submission's code ran with your rights")
    lines.append(f"  fix        {FIX_KINDS[grade.fix]}; diff {grade.diff_lines} lines; {grade.duration:.1f} s; {where}")
    lines += _process_section(grade.process)
    if grade.detail:
        lines += ["  output of the last test run:", *("    " + line for line in grade.detail.splitlines()[-20:])]
    return "\n".join(lines)


SHOWN_RUNS = 12  # failing counts listed in the Process section; the rest are in --json
PROCESS_INDENT = " " * 13  # the column the text summary's values start at


def process_lines(process: Process) -> list[str]:
    """The Process section as plain lines, for any format: how the candidate worked, from their own
    log, beside (never in) the verdict; the last line is their change against the fix's.

    These lines name the fix's size and the functions it touches: they are for the instructor
    (Gradescope keeps them out of what a student sees)."""
    worked, change = _process_parts(process)
    return [*worked, f"change {change}"]


def _process_section(process: Process) -> list[str]:
    """`process_lines` laid out in the text summary's columns."""
    worked, change = _process_parts(process)
    return [f"  process    {worked[0]}", *(PROCESS_INDENT + line for line in worked[1:]), f"  change     {change}"]


def _process_parts(process: Process) -> tuple[list[str], str]:
    """What the log shows (at least one line), and the change line without its label."""
    change = process.change
    changed = (f"{change.lines} lines (the fix: {change.solution_lines}) in "
               + (", ".join(function_names(change.functions)) or "nothing")
               + (f": {change.verdict}" if change.verdict else ""))
    if process.log in (LogStatus.MISSING, LogStatus.BROKEN):
        return [f"log {process.log}: {process.note}; the end state is graded as usual"], changed
    runs = process.runs
    lines = ["from the candidate's own log (.attempt/ in their folder: they could edit it): "
             + _count(len(runs), "run")
             + (f" over {process.minutes_total} min, {_count(process.code_states, 'code state')}" if runs else "")]
    if process.log == LogStatus.STALE:
        lines.append(f"log stale: {process.note}")
    if process.tests_first is not None:
        narrowed = _yes(process.narrowed) + (f" ({process.narrowest} at fewest)" if process.narrowest else "")
        untested = f" ({_count(process.untested_states, 'code state')} never run)" if process.untested_states else ""
        lines.append(f"tests first: {_yes(process.tests_first)}; re-run after each change:"
                     f" {_yes(process.rerun_after_each_change)}{untested}; narrowed to failing tests: {narrowed}")
    if runs:
        failing = ", ".join(str(r.failed) for r in runs[:SHOWN_RUNS]) + (", ..." if len(runs) > SHOWN_RUNS else "")
        lines.append(f"failing per run: {failing}; {_green_text(process)}; reverted: {reverts_text(process)};"
                     f" outside the fix: {', '.join(function_names(process.outside_ever)) or 'none'}")
    return lines, changed


def _green_text(process: Process) -> str:
    """When the first green run came, or that none did."""
    if process.minutes_to_green is None:
        return "never green"
    return f"green after {process.minutes_to_green} min"


def reverts_text(process: Process) -> str:
    """The runs whose code went back to an earlier state, and to which, or "none"."""
    return ", ".join(f"run {r.run} to {f'run {r.back_to}' if r.back_to else 'the handout'}"
                     for r in process.reverted) or "none"


def function_names(names: Sequence[str]) -> list[str]:
    """`file::function` as `function` when every name is in one file."""
    if len({name.split("::", 1)[0] for name in names}) == 1:
        return [name.split("::", 1)[1] for name in names]
    return list(names)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _yes(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]


def verdict_reason(grade: Grade) -> str:
    """Why the grade passed or failed, in a few words."""
    if grade.tampering:
        return "the test reporting was tampered with"
    if grade.timed_out:
        return "the grading ran out of time"
    if not grade.tests_pass:
        return "some tests fail"
    if grade.differential is not None and not grade.differential.agrees:
        return "the tests pass, but the code's outputs differ from the reference's"
    return "every test passes" + (" and the outputs agree with the reference" if grade.differential
                                  and grade.differential.calls else "")


def _tests_line(grade: Grade) -> str:
    passed = sum(t.outcome == TestOutcome.PASSED for t in grade.tests)
    failing = [t for t in grade.tests if t.outcome != TestOutcome.PASSED]
    line = f"{passed}/{len(grade.tests)} pass"
    if failing:
        hidden = sum(t.hidden for t in failing)
        line += f"; {len(failing)} do not ({len(failing) - hidden} visible, {hidden} held back)"
    timeouts = sum(t.outcome == TestOutcome.TIMEOUT for t in grade.tests)
    if timeouts:
        line += f"; {timeouts} ran past the time limit per test"
    return line + ("; the grading ran out of time" if grade.timed_out else "")


def _outputs_line(grade: Grade) -> str:
    check = grade.differential
    if check is None:
        return "not compared (the verdict is already a fail)"
    if not check.calls:
        return f"not compared: {check.note}"
    functions = ", ".join(check.functions)
    if check.agrees:
        return (f"{check.calls} calls of {functions} return what the reference returns"
                + (f"; {check.note}" if check.note else ""))
    first = check.examples[0]
    return (f"{check.mismatches} of {check.calls} calls differ from the reference, e.g. {first.call}"
            f" (called by {first.test}): {first.difference}")
