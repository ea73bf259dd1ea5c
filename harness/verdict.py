"""Turn the raw facts of a job (a Verdict) into an Outcome. Pure: no processes, no I/O.

The rules that peer tools get wrong live here: a missing verdict is never "survived", a test
the runner could not find is a harness error and never a kill, and a process that ended
without reporting is an error with the reason, not a kill by exit code.
"""

from __future__ import annotations

from typing import Any

from bugsmith.harness.outcome import Failure, Outcome, Status
from bugsmith.harness.shared.protocol import Job, TestOutcome, TestResult, Verdict

SILENT_EXCEPTIONS = frozenset({"AssertionError", "Failed"})
PROCESS_EXITS = frozenset({"SystemExit", "Exit", "KeyboardInterrupt"})
# Errors of the machine rather than of the code: a file not there, a permission, a connection, a
# timeout of I/O. A kill by one is confirmed (harness.mutation_run.execution) before it stands.
ENVIRONMENT_ERRORS = frozenset({
    "OSError", "IOError", "FileNotFoundError", "FileExistsError", "PermissionError", "IsADirectoryError",
    "NotADirectoryError", "BlockingIOError", "InterruptedError", "TimeoutError", "ConnectionError",
    "ConnectionRefusedError", "ConnectionResetError", "ConnectionAbortedError", "BrokenPipeError",
    "gaierror", "herror", "timeout",
})


def failure_kind(result: TestResult) -> Failure:
    """Silent: the test's own assertion saw a wrong value. Loud: the code under test raised."""
    if result.in_source or result.exception not in SILENT_EXCEPTIONS:
        return Failure.LOUD
    return Failure.SILENT


def environment_failure(verdict: Verdict) -> TestResult | None:
    """The failure that killed in `verdict` when it may be the environment's doing rather than
    the code's: an error of the machine (ENVIRONMENT_ERRORS)."""
    failed = next((r for r in verdict.results if r.outcome == TestOutcome.FAILED), None)
    return failed if failed is not None and failed.exception in ENVIRONMENT_ERRORS else None


def outcome_of(job: Job, verdict: Verdict) -> Outcome:
    common: dict[str, Any] = {
        "mutant_id": job.mutant_id,
        "covered_by": job.tests,
        "tests_run": len(verdict.results),
        "duration": round(verdict.elapsed, 4),
    }
    failed = next((r for r in verdict.results if r.outcome == TestOutcome.FAILED), None)
    if failed is not None and failed.exception in PROCESS_EXITS:
        # The mutant tried to end the test process: under a plain pytest run the suite
        # would stop or report nothing useful, so this is neither a kill nor a survival.
        return Outcome(
            status=Status.ERROR,
            exception=failed.exception,
            detail=f"the mutant tried to exit the test process ({failed.exception}"
            f" {failed.message}) during {failed.id}",
            **common,
        )
    if failed is not None:
        return Outcome(
            status=Status.KILLED,
            killed_by=(failed.id,),
            failure=failure_kind(failed),
            exception=failed.exception,
            message=failed.message,
            **common,
        )
    if verdict.timed_out:
        return Outcome(
            status=Status.TIMEOUT, detail=_timeout_detail(job, verdict), **common
        )
    if verdict.error:
        return Outcome(status=Status.ERROR, detail=verdict.error, **common)
    if verdict.missing:
        return Outcome(
            status=Status.ERROR,
            detail="harness error: selected tests not found: " + ", ".join(verdict.missing[:5]),
            **common,
        )
    if verdict.died:
        return Outcome(status=Status.ERROR, detail=verdict.died, **common)
    passed = {r.id for r in verdict.results if r.outcome == TestOutcome.PASSED}
    if not set(job.tests) <= passed:
        return Outcome(
            status=Status.ERROR,
            detail="harness error: no result for " + ", ".join(sorted(set(job.tests) - passed)[:5]),
            **common,
        )
    return Outcome(status=Status.SURVIVED, **common)


def _timeout_detail(job: Job, verdict: Verdict) -> str:
    """Which test ran out of time, and its limit (per test when the job has per-test limits)."""
    if verdict.running in job.tests and len(job.enforced) == len(job.tests):
        limit = job.enforced[job.tests.index(verdict.running)]
        return f"{verdict.running} ran past its limit of {limit:.1f} s"
    return f"no verdict within {job.timeout:.1f} s"


def control_failure(verdict: Verdict, *, environment_ok: bool = False) -> str | None:
    """Why a control run (unmutated code) did not pass cleanly, or None if it did. With
    `environment_ok`, a test that failed on an error of the environment (a file an earlier test
    of the suite writes, not there in a job of its own) still proves the machinery ran it: such
    a test is no sign of a broken worker, and the kills it makes are confirmed one by one."""
    bad = [r for r in verdict.results if r.outcome != TestOutcome.PASSED
           and not (environment_ok and r.exception in ENVIRONMENT_ERRORS)]
    if bad:
        return f"{bad[0].id}: {bad[0].message}"
    if verdict.timed_out:
        return "timed out"
    if verdict.missing:
        return f"tests not found: {', '.join(verdict.missing[:3])}"
    return verdict.error or verdict.died
