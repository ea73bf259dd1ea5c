"""A grade as one self-contained HTML page for the interviewer: the verdict, the process, the attempt.

The page is one file that reads offline: inline styles, no script, no external resource (a
Content-Security-Policy forbids them, behind jinja2's autoescaping), plain `<details>` to
expand. It shows the verdict with its evidence, the process summary (`process`), and the
attempt as a timeline: one row per recorded test run, in order, with its time since the first
run, a marker (green as `Process` defines a green run; red when a test failed or errored;
amber otherwise), the tests it selected with their outcomes, and the code's diff since the run
before. A log that is missing or does not verify is one line and no timeline.

It names held-back tests and the size of the exercise's fix: it is for the interviewer, and
says so at the top. Everything shown is computed here from the grade; the template only lays
it out.
"""

from __future__ import annotations

import datetime
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import jinja2

from bugsmith.harness.exercises.judge.attempt_log import LogStatus
from bugsmith.harness.exercises.judge.grade_text import FIX_KINDS, function_names, reverts_text, verdict_reason
from bugsmith.harness.exercises.judge.grading import Grade, TestResult
from bugsmith.harness.exercises.judge.process import Process, Run
from bugsmith.harness.shared.protocol import TestOutcome

TEMPLATE = "grade_page.html.j2"
GREEN, RED, AMBER = "green", "red", "amber"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffLine:
    kind: str  # file, hunk, add, del, same, mark ("\ No newline at end of file")
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TimelineRow:
    """One recorded test run, as its row of the timeline."""

    number: int  # 1-based
    since: str  # time since the first run, "+m:ss"
    time: str  # the run's own time, as logged
    marker: str  # GREEN, RED or AMBER
    verdict: str  # what the marker means for this run, in words
    tests: tuple[tuple[str, str], ...]  # (node id, outcome) for each selected test, then unselected outcomes
    selected: int
    command: str
    diff: tuple[DiffLine, ...]
    change: str  # the diff in a few words, or why there is none
    revert: str  # "back to run 2", "back to the handout" or ""
    note: str  # what went wrong in the recorder during this run


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    name: str
    value: str


def grade_page(grade: Grade) -> str:
    """The grade as one HTML document (see the module's docstring)."""
    process = grade.process
    readable = process.log not in (LogStatus.MISSING, LogStatus.BROKEN)
    return _environment().get_template(TEMPLATE).render(
        grade=grade,
        reason=verdict_reason(grade),
        fix_kind=FIX_KINDS[grade.fix],
        counts=_counts(grade.tests),
        failing=[t for t in grade.tests if t.outcome != TestOutcome.PASSED],
        passing=[t for t in grade.tests if t.outcome == TestOutcome.PASSED],
        readable=readable,
        log_line=_log_line(process),
        process_facts=_process_facts(process) if readable else (),
        change_facts=_change_facts(process),
        rows=_timeline(process) if readable else (),
    )


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bugsmith.harness.exercises", "templates"),
        autoescape=True,  # an HTML page of test names, messages and code the candidate wrote
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _counts(tests: Sequence[TestResult]) -> dict[str, tuple[int, int]]:
    """(passed, total) for the visible and the held-back tests."""
    return {kind: (sum(t.outcome == TestOutcome.PASSED for t in part), len(part))
            for kind, part in (("visible", [t for t in tests if not t.hidden]),
                               ("held-back", [t for t in tests if t.hidden]))}


def _log_line(process: Process) -> str:
    if process.log in (LogStatus.MISSING, LogStatus.BROKEN):
        return f"log {process.log}: {process.note}; the end state is graded as usual"
    if process.log == LogStatus.OK:
        return "log ok: whole (every line verifies), and its last run saw the submitted code"
    return f"log {process.log}: {process.note}"


def _yes(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]


def _process_facts(process: Process) -> tuple[Fact, ...]:
    """The measures read from the log (only for a log that can be read)."""
    runs = len(process.runs)
    untested = process.untested_states or 0
    facts = [
        Fact(name="tests first", value=_yes(process.tests_first)),
        Fact(name="re-run after each change", value=_yes(process.rerun_after_each_change)
             + (f" ({untested} code state{'s' if untested != 1 else ''} never run)" if untested else "")),
        Fact(name="runs", value=f"{runs}" + (f" over {process.minutes_total} min" if runs else "")),
        Fact(name="code states", value=str(process.code_states)),
        Fact(name="time to green", value="never green" if process.minutes_to_green is None
             else f"{process.minutes_to_green} min"),
        Fact(name="narrowed to one failing case", value=_narrowed(process)),
        Fact(name="edits outside the fix", value=", ".join(function_names(process.outside_ever)) or "none"),
        Fact(name="reverts", value=reverts_text(process)),
    ]
    return tuple(facts)


def _narrowed(process: Process) -> str:
    if not process.narrowed or process.narrowest is None:
        return _yes(process.narrowed)
    return f"yes (to {process.narrowest} test{'s' if process.narrowest != 1 else ''} at fewest)"


def _change_facts(process: Process) -> tuple[Fact, ...]:
    """The submitted code against the fix: from the code itself, so shown whatever the log's state."""
    change = process.change
    facts = [Fact(name="final change", value=change.verdict or "no change"),
             Fact(name="lines changed", value=f"{change.lines} (the fix: {change.solution_lines})"),
             Fact(name="functions changed", value=", ".join(function_names(change.functions)) or "none"),
             Fact(name="functions the fix changes", value=", ".join(function_names(change.solution_functions))
                  or "none")]
    if change.outside:
        facts.append(Fact(name="changed outside the fix", value=", ".join(function_names(change.outside))))
    if change.rewritten:
        facts.append(Fact(name="written anew", value=", ".join(function_names(change.rewritten))))
    return tuple(facts)


def _timeline(process: Process) -> tuple[TimelineRow, ...]:
    first = _moment(process.runs[0].time) if process.runs else None
    reverts = {r.run: r.back_to for r in process.reverted}
    rows = []
    for number, run in enumerate(process.runs, 1):
        marker, verdict = _marker(run)
        rows.append(TimelineRow(
            number=number, since=_since(first, _moment(run.time)), time=run.time, marker=marker, verdict=verdict,
            tests=_tests(run), selected=len(run.selected), command=_command(run), diff=_diff_lines(run.diff),
            change=_change_words(run, number, process.tests_first), note=run.note,
            revert=("" if number not in reverts
                    else f"back to run {reverts[number]}" if reverts[number] else "back to the handout")))
    return tuple(rows)


def _marker(run: Run) -> tuple[str, str]:
    if run.green:
        return GREEN, "green: every visible test ran and passed"
    if run.failed:
        return RED, f"red: {run.failed} failed or errored, {run.passed} passed"
    if not run.full:
        return AMBER, "no failure, but not every visible test was selected"
    return AMBER, f"no failure, but pytest exited with status {run.exit_status}"


def _moment(time: str) -> datetime.datetime | None:
    try:
        moment = datetime.datetime.fromisoformat(time)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def _since(first: datetime.datetime | None, moment: datetime.datetime | None) -> str:
    if first is None or moment is None:
        return "?"
    seconds = max(0, round((moment - first).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    return f"+{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"+{rest // 60}:{rest % 60:02d}"


def _tests(run: Run) -> tuple[tuple[str, str], ...]:
    """Each selected test with its outcome, then outcomes of tests not selected (collection errors)."""
    selected = [(test, run.outcomes.get(test, "not reported")) for test in run.selected]
    chosen = set(run.selected)
    return tuple(selected + [(test, outcome) for test, outcome in run.outcomes.items() if test not in chosen])


def _command(run: Run) -> str:
    command = shlex.join(["pytest", *run.args])
    return command if run.cwd in ("", ".") else f"{command}  (in {run.cwd})"


def _diff_lines(diff: str) -> tuple[DiffLine, ...]:
    lines = []
    for text in diff.splitlines():
        if text.startswith(("--- ", "+++ ")):
            kind = "file"
        elif text.startswith("@@"):
            kind = "hunk"
        elif text.startswith("\\"):
            kind = "mark"
        else:
            kind = {"+": "add", "-": "del"}.get(text[:1], "same")
        lines.append(DiffLine(kind=kind, text=text))
    return tuple(lines)


def _change_words(run: Run, number: int, tests_first: bool | None) -> str:
    if run.diff:
        body = [line for line in run.diff.splitlines() if not line.startswith(("--- ", "+++ "))]
        files = sorted({line[6:] for line in run.diff.splitlines() if line.startswith("+++ b/")})
        added = sum(line.startswith("+") for line in body)
        removed = sum(line.startswith("-") for line in body)
        return f"+{added} −{removed} in {', '.join(files)}"
    if number == 1:
        return "the code as handed out" if tests_first else "the recorder could not read this run's code"
    return "no change since the run before" + (" (or its code was not read: see the note)" if run.note else "")
