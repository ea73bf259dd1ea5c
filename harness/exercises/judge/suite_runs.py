"""Run named tests with pytest in a sandbox: one process per test file, a time limit per test.

Each test file gets a fresh sandboxed pytest process, so that what a submission does to
pytest in one process sees nothing of another file's tests. The process streams each
test's start and outcome (`sandboxed.reporter`); the results are the grader's own record
of those messages, never a file the submission could write. A test that runs past its
time limit, or during which the process dies, is recorded as such, the process is
killed, and a new one runs the tests after it: one hanging test costs that test only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bugsmith.harness.exercises.judge.confined import ENDED, LATE, Confined
from bugsmith.harness.shared.protocol import TestOutcome
from bugsmith.harness.shared.sandbox import Sandbox

REPORTER = "bugsmith_grading.reporter"
STARTUP_SECONDS = 120.0  # before the first test starts: the interpreter, imports, collection
# What the reporter may say of a test (it runs beside the submission, without bugsmith, so it
# sends the values); anything else it says is an error.
REPORTABLE = (TestOutcome.PASSED, TestOutcome.FAILED, TestOutcome.ERROR, TestOutcome.SKIPPED)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reported:
    """What happened to one test: passed, failed, error, skipped, timeout, or not run."""

    outcome: TestOutcome
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteRun:
    """Every reported test by its id (a requested id, or one that id expands to: `id[param]`)."""

    results: dict[str, Reported]
    missing: tuple[str, ...]  # asked for, never reported by a process that ended by itself
    timed_out: bool  # the whole run's deadline passed
    output: str  # the end of the last process's output


@dataclass(slots=True, kw_only=True)
class _Tally:
    """What the processes of one run reported so far."""

    results: dict[str, Reported] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    collect_errors: list[str] = field(default_factory=list)  # of the current process
    timed_out: bool = False
    output: str = ""


def covers(requested: str, reported: str) -> bool:
    """Whether a reported test id is (one case of) a requested one."""
    return reported == requested or (reported.startswith(requested) and reported[len(requested)] == "[")


def pytest_argv(ids: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", REPORTER, "-o",
            "console_output_style=classic", *ids]


def run_files(sandbox: Sandbox, groups: Sequence[Sequence[str]], *, test_seconds: float, deadline: float,
              argv: Callable[[Sequence[str]], list[str]] = pytest_argv) -> SuiteRun:
    """Run each group of test ids (one file's) in its own processes, until `deadline` (monotonic)."""
    run = _Tally()
    for ids in groups:
        if time.monotonic() >= deadline:
            run.timed_out = True
        if run.timed_out:
            run.results.update({i: Reported(outcome=TestOutcome.NOT_RUN, message="the grading time ran out")
                                for i in ids})
            continue
        _run_group(sandbox, list(ids), run, test_seconds, deadline, argv)
    return SuiteRun(results=run.results, missing=tuple(run.missing), timed_out=run.timed_out, output=run.output)


def _run_group(sandbox: Sandbox, ids: list[str], run: _Tally, test_seconds: float, deadline: float,
               argv: Callable[[Sequence[str]], list[str]]) -> None:
    remaining = list(ids)
    while remaining:
        progress, ended = _one_process(sandbox, remaining, run, test_seconds, deadline, argv)
        done = [i for i in remaining if any(covers(i, r) for r in run.results)]
        remaining = [i for i in remaining if i not in done]
        if not remaining:
            return
        if run.timed_out:
            run.results.update({i: Reported(outcome=TestOutcome.NOT_RUN, message="the grading time ran out")
                                for i in remaining})
            return
        if ended and not progress:
            # The process ended by itself and said nothing more about these tests.
            if run.collect_errors:
                error = run.collect_errors[-1]
                run.results.update({i: Reported(outcome=TestOutcome.ERROR, message=error) for i in remaining})
            else:
                run.missing.extend(remaining)
                run.results.update({i: Reported(outcome=TestOutcome.NOT_RUN, message="never reported")
                                    for i in remaining})
            return
        if not progress:  # killed before any test of this process started: it hangs on import
            run.results.update({i: Reported(outcome=TestOutcome.TIMEOUT,
                                            message="no test started: the process hung while"
                                            " importing the code or collecting the tests") for i in remaining})
            return


def _one_process(sandbox: Sandbox, ids: list[str], run: _Tally, test_seconds: float, deadline: float,
                 argv: Callable[[Sequence[str]], list[str]]) -> tuple[bool, bool]:
    """One pytest process on `ids`: (whether any test got a result, whether it ended by itself)."""
    progress = False
    current: str | None = None
    run.collect_errors.clear()
    with Confined(sandbox, argv(ids)) as process:
        started, allowed = time.monotonic(), max(test_seconds, STARTUP_SECONDS)
        while True:
            message = process.message(min(deadline, started + allowed))
            if message is ENDED:
                ended = process.finish(min(deadline, time.monotonic() + test_seconds))
                if current is not None:
                    run.results[current] = Reported(outcome=TestOutcome.ERROR,
                                                    message="the test process died during this test")
                    progress = True
                run.output = process.output_tail()
                return progress, ended
            if message is LATE:
                process.kill()
                run.output = process.output_tail()
                if time.monotonic() >= deadline:
                    run.timed_out = True
                if current is not None:
                    run.results[current] = Reported(
                        outcome=TestOutcome.TIMEOUT if not run.timed_out else TestOutcome.NOT_RUN,
                        message=f"ran past its {test_seconds:.0f} s limit" if not run.timed_out
                        else "the grading time ran out")
                    progress = True
                return progress, False
            assert isinstance(message, dict)
            event, test = message.get("event"), message.get("id")
            if event == "collect-error":
                run.collect_errors.append(str(message.get("message", ""))[:300])
                continue
            if not isinstance(test, str) or not any(covers(i, test) for i in ids):
                continue  # not a test the grader asked for
            if event == "start":
                current, started, allowed = test, time.monotonic(), test_seconds
            elif event == "result":
                outcome = message.get("outcome")
                run.results[test] = Reported(
                    outcome=TestOutcome(outcome) if outcome in REPORTABLE else TestOutcome.ERROR,
                    message=str(message.get("message", ""))[:300])
                progress, current, started = True, None, time.monotonic()
