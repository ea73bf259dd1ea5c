"""The local executor: a pool of fork-server workers (or fresh interpreters) on this machine.

The coordinator hands one job at a time to each idle worker and collects verdicts as they
come. A worker that dies is replaced and its job retried once; a job that kills two workers
gets a verdict that says so. Nothing here decides a status: that is harness.verdict's job.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO, Any

from harness.baseline import Baseline, assemble, chunk_jobs
from harness.errors import HarnessError
from harness.protocol import Job, Verdict, WorkerSetup, receive, send
from harness.tool_state import tool_env
from harness.verdict import control_failure
from harness.worker import FRESH_IMPORT_ALLOWANCE

OnVerdict = Callable[[Job, Verdict], None]
Prepare = Callable[[Job], Job]
STARTUP_TIMEOUT = 900.0  # seconds for a worker to import and collect a large suite
SUBPROCESS_STARTUP = 10.0  # seconds a fresh interpreter may spend before its tests run


TIMEOUT_CONFIRMATION = 2.0  # a timeout is confirmed once with this many times the limit
# A process that had the CPU for at least this share of its wall time was running, not
# waiting for a core: its timeout stands without a second run.
BUSY_SHARE = 0.5


def needs_confirmation(verdict: Verdict) -> bool:
    """Whether a timeout may be the machine's fault rather than the mutant's.

    A test gets `factor x its baseline time + base` seconds. Had it been given at least half a
    core it would have needed over 1.5x its baseline CPU time to run out of that, so a timeout
    with a busy process is the mutant looping (or doing more work), and only a starved, sleeping
    or blocked one deserves the second, longer run. Without a CPU figure, always confirm.
    """
    return verdict.cpu is None or verdict.cpu < BUSY_SHARE * verdict.elapsed


def confirm_timeout(job: Job) -> Job:
    """The same job with a longer limit: a loaded machine must not turn slow tests into
    timeouts, while a mutant that loops forever costs only one more, longer wait."""
    return replace(
        job,
        timeout=job.timeout * TIMEOUT_CONFIRMATION,
        limits=tuple(limit * TIMEOUT_CONFIRMATION for limit in job.limits),
    )


def worker_env(root: str | Path) -> dict[str, str]:
    """Single-threaded numeric libraries (a forked child that runs OpenMP after its parent did
    hangs otherwise), no bytecode or tool caches written into the user's tree, stable hashing."""
    env = dict(os.environ)
    env.update(tool_env(root))
    env.update(
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        NUMEXPR_NUM_THREADS="1",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        BUGSMITH_MUTANT_RUN="1",  # lets a suite skip work that only helps humans (shrinking)
    )
    return env


class _Worker:
    def __init__(self, setup: WorkerSetup, number: int, log_dir: Path) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{number}.log"
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                cwd=setup.root, env=worker_env(setup.root), start_new_session=True,
            )
        assert self.process.stdin and self.process.stdout
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        send(self.stdin, setup)
        self.job: Job | None = None
        self.sent_at = 0.0

    def wait_ready(self) -> list[tuple[str, str]]:
        """The collected tests, as (id, file) in collection order."""
        message = receive(self.stdout)
        if message is None:
            raise HarnessError(f"a worker died while collecting the tests; see {self.log_path}")
        if "error" in message:
            raise HarnessError(f"a worker could not collect the tests: {message['error']}")
        return list(zip(message["tests"], message["files"]))

    def submit(self, job: Job) -> None:
        self.job = job
        self.sent_at = time.monotonic()
        send(self.stdin, {"job": asdict(job)})

    def overdue(self) -> bool:
        """A backstop: the worker enforces limits itself, so this only fires if it is stuck."""
        return self.job is not None and (
            time.monotonic() - self.sent_at > self.job.timeout + FRESH_IMPORT_ALLOWANCE + 30
        )

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()


class ForkPool:
    """`jobs` fork-server workers, each of which collected the suite once.

    Entering starts the workers and returns at once, so that the caller can do its own work
    (generating mutants) while they import and collect; the first call that needs them waits.
    """

    def __init__(self, setup: WorkerSetup, jobs: int, log_dir: Path) -> None:
        self.setup = setup
        self.size = jobs
        self.log_dir = log_dir
        self.workers: list[_Worker] = []
        self.tests: list[tuple[str, str]] = []  # (id, file) in collection order
        self.attempts: dict[str, int] = {}
        self.confirmed: set[str] = set()
        self._started = 0
        self._ready = False

    def __enter__(self) -> ForkPool:
        try:
            self.workers = [self._spawn() for _ in range(self.size)]
        except BaseException:
            self.__exit__()  # no worker outlives a failed start
            raise
        return self

    def _wait_ready(self) -> None:
        if self._ready:
            return
        for worker in self.workers:
            self.tests = worker.wait_ready()
        self._ready = True

    def baseline(self) -> Baseline:
        """The suite once on unmutated code, with per-test coverage, on every worker at once."""
        started = time.monotonic()
        self._wait_ready()
        runs: list[tuple[Job, Verdict]] = []
        self.run(chunk_jobs([test for test, _ in self.tests], len(self.workers)),
                 lambda job, verdict: runs.append((job, verdict)))
        return assemble(self.tests, runs, started)

    def __exit__(self, *exc: object) -> None:
        for worker in self.workers:
            worker.stop()

    def _spawn(self) -> _Worker:
        self._started += 1
        return _Worker(self.setup, self._started, self.log_dir)

    def control(self, tests: Sequence[str], timeout: float) -> None:
        """Run unmutated code through every worker's machinery; all of it must pass."""
        jobs = [Job.unmutated(f"control-{n}", tuple(tests), timeout) for n in range(len(self.workers))]
        failures: list[str] = []

        def check(job: Job, verdict: Verdict) -> None:
            reason = control_failure(verdict)
            if reason:
                failures.append(reason)

        self.run(jobs, check)
        if failures:
            raise HarnessError(f"the control run of unmutated code failed in a worker: {failures[0]}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        """Run `jobs`; `prepare` may rewrite each job just before it is sent (test order)."""
        self._wait_ready()
        pending = deque(jobs)
        selector = selectors.DefaultSelector()
        for worker in self.workers:
            selector.register(worker.stdout, selectors.EVENT_READ, worker)
        try:
            self._loop(pending, selector, on_verdict, prepare or (lambda job: job))
        finally:
            selector.close()

    def _loop(self, pending: deque[Job], selector: Any, on_verdict: OnVerdict, prepare: Prepare) -> None:
        idle = list(self.workers)
        busy = 0
        while pending or busy:
            while idle and pending:
                idle.pop().submit(prepare(pending.popleft()))
                busy += 1
            for key, _ in selector.select(timeout=5.0):
                worker: _Worker = key.data
                message = receive(worker.stdout)
                job = worker.job
                assert job is not None
                worker.job = None
                busy -= 1
                if message is None:
                    replacement = self._replace(worker, selector)
                    self._retry_or_fail(job, pending, on_verdict, "the worker process died")
                    idle.append(replacement)
                    continue
                verdict = Verdict.from_dict(message)
                if (verdict.timed_out and job.mutant_id not in self.confirmed
                        and needs_confirmation(verdict)):
                    self.confirmed.add(job.mutant_id)
                    pending.append(confirm_timeout(job))
                else:
                    on_verdict(job, verdict)
                idle.append(worker)
            for worker in [w for w in self.workers if w.overdue()]:
                job = worker.job
                assert job is not None
                worker.job = None
                busy -= 1
                idle = [w for w in idle if w is not worker]
                idle.append(self._replace(worker, selector))
                self._retry_or_fail(job, pending, on_verdict, "the worker stopped responding")

    def _retry_or_fail(self, job: Job, pending: deque[Job], on_verdict: OnVerdict, why: str) -> None:
        self.attempts[job.mutant_id] = self.attempts.get(job.mutant_id, 0) + 1
        if self.attempts[job.mutant_id] < 2:
            pending.appendleft(job)
        else:
            on_verdict(job, Verdict(mutant_id=job.mutant_id, died=f"{why}, twice"))

    def _replace(self, worker: _Worker, selector: Any) -> _Worker:
        selector.unregister(worker.stdout)
        worker.stop()
        fresh = self._spawn()
        fresh.wait_ready()
        self.workers[self.workers.index(worker)] = fresh
        selector.register(fresh.stdout, selectors.EVENT_READ, fresh)
        return fresh


class SubprocessPool:
    """The portable mode: every job in a fresh interpreter, `jobs` at a time."""

    def __init__(self, setup: WorkerSetup, jobs: int) -> None:
        self.setup = setup
        self.size = jobs

    def __enter__(self) -> SubprocessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def control(self, tests: Sequence[str], timeout: float) -> None:
        reason = control_failure(self._one(Job.unmutated("control", tuple(tests), timeout)))
        if reason:
            raise HarnessError(f"the control run of unmutated code failed in a fresh interpreter: {reason}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        prepared = [(prepare or (lambda job: job))(job) for job in jobs]
        with ThreadPoolExecutor(max_workers=self.size) as threads:
            for job, verdict in zip(prepared, threads.map(self._confirmed, prepared)):
                on_verdict(job, verdict)

    def _confirmed(self, job: Job) -> Verdict:
        verdict = self._one(job)
        return self._one(confirm_timeout(job)) if verdict.timed_out else verdict

    def _one(self, job: Job) -> Verdict:
        request = json.dumps({"setup": asdict(self.setup), "job": asdict(job)}).encode() + b"\n"
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "harness.isolated"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.setup.root,
            env=worker_env(self.setup.root), start_new_session=True,
        )
        try:
            out, _ = process.communicate(request, timeout=job.timeout + SUBPROCESS_STARTUP)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return Verdict(mutant_id=job.mutant_id, timed_out=True, elapsed=time.monotonic() - started)
        elapsed = time.monotonic() - started
        for line in out.decode(errors="replace").splitlines():
            data = json.loads(line)
            if "mutant_id" in data:
                return Verdict.from_dict({**data, "elapsed": elapsed})
        return Verdict(
            mutant_id=job.mutant_id, elapsed=elapsed,
            died=f"the test process ended with status {process.returncode} before reporting",
        )
