"""Re-check one verdict without bugsmith: apply the mutant's diff to a fresh copy of the pristine
project with `patch`, run plain `python -m pytest` there in a new process, and compare.

Nothing here imports bugsmith's harness: the diff is the one a user reads (`bugsmith show`),
the test selection is the project's (`tests` and `pytest-args` of its `[tool.bugsmith]`
table), and the outcome is pytest's exit status within a time limit.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PASSED, FAILED, TIMED_OUT, NO_TESTS, BAD_DIFF = "passed", "failed", "timed out", "no tests", "diff does not apply"
CUT_SHORT = "ended without a summary"  # e.g. os._exit(0) in a test: status 0, suite unfinished
_FIRST_FAILURE = re.compile(r"^(FAILED|ERROR) (\S+)", re.MULTILINE)
_SUMMARY = re.compile(r"\d+ passed|no tests ran")
_PAST_LIMIT = re.compile(r"^(\S+) ran past its limit of ([\d.]+) s")
_CALL_TIME = re.compile(r"^([\d.]+)s call\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """One verdict to re-check, as bugsmith stored it."""

    mutant_id: str
    file: str
    line: int
    operator: str
    diff: str
    status: str  # bugsmith's: killed, survived, no coverage, timeout, error
    detail: str  # bugsmith's reason (the error's claim, the timeout's limit)
    killed_by: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PytestRun:
    outcome: str  # PASSED, FAILED, TIMED_OUT, NO_TESTS, BAD_DIFF, CUT_SHORT
    exit_code: int | None
    seconds: float
    test_seconds: float | None = None  # with `only`: that test's own call time (pytest --durations)
    first_failure: str  # "FAILED tests/x.py::test_y" or ""
    tail: str  # the last lines pytest printed, for the disagreement file


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    sample: Sample
    runs: tuple[PytestRun, ...]  # one, or up to three when the first disagreed
    agree: bool
    flaky: bool  # a later run agreed where an earlier one did not


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """A pristine copy and how to test it, with plain pytest's own time on it."""

    pristine: Path
    tests: tuple[str, ...]
    pytest_args: tuple[str, ...]
    limit: float  # seconds a mutant's pytest run may take before it counts as hung


def expected(status: str, detail: str) -> frozenset[str]:
    """pytest outcomes that agree with bugsmith's verdict.

    killed: a test fails (a hang also reveals the bug; pytest's -x order is not bugsmith's
    fastest-first order, so a later hanging test may come first). survived and no coverage: the
    suite passes; a failing suite on a "no coverage" mutant is the worst disagreement, a bug
    bugsmith said no test could see. timeout: pytest does not finish in time, or fails; a
    timeout that names its test and limit is checked as that claim (see `check`).
    error: every claim bugsmith makes of an error (the mutant breaks the import, exits the test
    process, kills it) means a plain run cannot pass either.
    """
    if status in ("survived", "no coverage"):
        return frozenset({PASSED})
    return frozenset({FAILED, TIMED_OUT, CUT_SHORT})


def baseline(pristine: Path, tests: tuple[str, ...], pytest_args: tuple[str, ...],
             scratch: Path) -> tuple[PytestRun, float]:
    """Plain pytest on the unmutated project (it must pass) and the hang limit it implies:
    10x the slower of two runs, at least 15 s (the machine is shared and loaded)."""
    project = Project(pristine=pristine, tests=tests, pytest_args=pytest_args, limit=600.0)
    runs = [run_pytest(project, _fresh_copy(pristine, scratch / f"baseline-{i}"), None)
            for i in range(2)]
    bad = next((run for run in runs if run.outcome != PASSED), None)
    return bad or runs[-1], max(15.0, 10 * max(run.seconds for run in runs))


def check(project: Project, sample: Sample, scratch: Path, tries: int = 3) -> Check:
    """Re-run plain pytest on the mutant until it agrees or `tries` runs disagreed (flaky
    suites and a loaded machine must not make a disagreement)."""
    wanted = expected(sample.status, sample.detail)
    claim = _PAST_LIMIT.match(sample.detail) if sample.status == "timeout" else None
    # "T ran past its limit of L s" is a claim about one test, which plain pytest can check:
    # run T alone on the mutant; it agrees when T fails, hangs, or its own call takes over L s
    # (a mutant that makes a test 20x slower is a timeout by the documented rule, while the
    # whole suite may still finish within a generous hang limit).
    only, limit = (claim.group(1), float(claim.group(2))) if claim else (None, None)
    runs: list[PytestRun] = []
    for attempt in range(tries):
        folder = _fresh_copy(project.pristine, scratch / f"{_safe(sample.mutant_id)}-{attempt}")
        try:
            run = run_pytest(project, folder, sample.diff, only=only)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        runs.append(run)
        if _agrees(run, wanted, limit) or run.outcome == BAD_DIFF:
            break
    agree = _agrees(runs[-1], wanted, limit)
    return Check(sample=sample, runs=tuple(runs), agree=agree, flaky=agree and len(runs) > 1)


def _agrees(run: PytestRun, wanted: frozenset[str], limit: float | None) -> bool:
    past = limit is not None and run.test_seconds is not None and run.test_seconds > limit
    return run.outcome in wanted or past


def run_pytest(project: Project, folder: Path, diff: str | None, only: str | None = None) -> PytestRun:
    if diff is not None:
        applied = subprocess.run(["patch", "-p1", "--forward", "--no-backup-if-mismatch", "-s"],
                                 input=diff, text=True, cwd=folder, capture_output=True, check=False)
        if applied.returncode != 0:
            return PytestRun(outcome=BAD_DIFF, exit_code=applied.returncode, seconds=0.0,
                             first_failure="", tail=(applied.stdout + applied.stderr)[-2000:])
    selection = [only, "--durations=0", "--durations-min=0"] if only else list(project.tests)
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-rfE", "-p", "no:cacheprovider",
               *project.pytest_args, *selection]
    started = time.monotonic()
    # A session of its own: a hung run is killed with every process it started.
    process = subprocess.Popen(command, cwd=folder, env=_plain_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=project.limit)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        output, _ = process.communicate()
        timed_out = True
    finally:
        _kill_group(process.pid)  # whatever the mutant left running in the session
    seconds = time.monotonic() - started
    code = None if timed_out else process.returncode
    found = _FIRST_FAILURE.search(output or "")
    outcome = _outcome(code)
    if outcome == PASSED and not _SUMMARY.search("\n".join((output or "").splitlines()[-3:])):
        outcome = CUT_SHORT
    calls = [float(t) for t, test in _CALL_TIME.findall(output or "") if test == only]
    return PytestRun(outcome=outcome, exit_code=code, seconds=round(seconds, 2),
                     test_seconds=calls[0] if calls else None,
                     first_failure=f"{found.group(1)} {found.group(2)}" if found else "",
                     tail="\n".join((output or "").splitlines()[-15:]))


def _outcome(code: int | None) -> str:
    if code is None:
        return TIMED_OUT
    if code == 0:
        return PASSED
    if code == 5:
        return NO_TESTS
    # 1: tests failed; 2: interrupted (a collection error: the mutant broke an import);
    # 3: internal error; 4: usage error. Each is a run that did not pass.
    return FAILED


def _plain_env() -> dict[str, str]:
    # bugsmith's workers announce themselves to the suite; a plain run must not.
    env = {key: value for key, value in os.environ.items() if not key.startswith("BUGSMITH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONPATH", None)
    return env


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _fresh_copy(pristine: Path, folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(pristine, folder, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".bugsmith", ".pytest_cache",
                                                  ".hypothesis"))
    return folder


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)
