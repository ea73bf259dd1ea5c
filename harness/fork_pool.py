"""The default executor: a pool of fork-server workers on this machine (harness.executor).

Each worker (`python -m bugsmith.harness.child.worker`) imports and collects the suite once,
then forks once per job. The coordinator keeps each worker one job ahead (the next job waits in
its pipe) and collects verdicts as they come. A worker that dies is replaced and its running
job retried once; a job that kills two workers gets a verdict that says so. Nothing here
decides a status: that is harness.verdict's job.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from bugsmith.errors import BaselineError, HarnessError
from bugsmith.harness import leftovers
from bugsmith.harness.baseline import Baseline, assemble, chunk_jobs, refused_arguments
from bugsmith.harness.executor import OnVerdict, Prepare, Spare, confirm_timeout
from bugsmith.harness.interpreter import helper_launch
from bugsmith.harness.protocol import FRESH_IMPORT_ALLOWANCE, Job, Ready, Verdict, WorkerSetup, encode, send
from bugsmith.harness.sandbox import Sandbox
from bugsmith.harness.verdict import control_failure

_EXCEPTION_LINE = re.compile(r"[\w.]+(Error|Exception|Warning|Exit|Interrupt)\b(:|$)")
More = Callable[[Sequence[Job]], Job | None]  # a job for a worker with these queued, when none is pending
QUEUE_DEPTH = 2  # jobs sent ahead to each worker
PIPE_ROOM = 60_000  # bytes: a job queued behind another must fit in the pipe (64 KiB on Linux),
# so that sending it never blocks this process while the worker is busy


class _Worker:
    """One fork-server process, with the jobs sent to it in order (the first one is running)."""

    def __init__(self, setup: WorkerSetup, number: int, log_dir: Path, mark: str,
                 sandbox: Sandbox | None = None) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{number}.log"
        self.mark = f"{mark}/{number}"  # what this worker starts inherits it (harness.leftovers)
        launch = helper_launch("bugsmith.harness.child.worker", setup, sandbox, {leftovers.VARIABLE: self.mark})
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                launch.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0,
                cwd=launch.cwd, env=launch.env, start_new_session=True,
            )
        assert self.process.stdin and self.process.stdout
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        send(self.stdin, setup)
        self.jobs: deque[Job] = deque()
        self.started_at = 0.0  # when the first job of `jobs` began
        self._buffer = b""

    def wait_ready(self) -> list[tuple[str, str]]:
        """The collected tests, as (id, file) in collection order."""
        ready = self._next_message()
        if ready is None:
            self.process.wait()
            try:
                refused = refused_arguments(self.log_path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                refused = None
            if refused is not None:
                raise refused
            # Collection runs the project's conftest and test modules: when it dies, it is
            # the suite that cannot run unmutated (exit 3), as with a collection error.
            raise BaselineError(f"a worker died while collecting the tests: {self._last_words()} "
                                f"(see {self.log_path})")
        if ready.error is not None:
            raise BaselineError(f"a worker could not collect the tests: {ready.error}")
        return list(zip(ready.tests, ready.files))

    def _last_words(self) -> str:
        """The error that ended the worker: the last exception line of its log (a traceback's
        last line, unless a note follows it), else its exit status."""
        self.process.wait()
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            lines = []
        stripped = (line.strip().removeprefix("E ").strip() for line in lines)  # pytest marks errors "E"
        errors = [line for line in stripped if _EXCEPTION_LINE.match(line)]
        return (errors or [f"exit status {self.process.returncode}"])[-1][:300]

    def _next_message(self) -> Ready | None:
        while b"\n" not in self._buffer:
            chunk = os.read(self.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return Ready.from_dict(json.loads(line))

    def read(self) -> list[Verdict] | None:
        """The verdicts that arrived whole (call when readable); None once the worker is gone.

        Raw reads: a buffered readline could swallow a second verdict that select never
        announces again.
        """
        chunk = os.read(self.stdout.fileno(), 1 << 16)
        if not chunk:
            return None
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return [Verdict.from_dict(json.loads(line)) for line in lines if line]

    def offer(self, job: Job) -> bool:
        """Send `job` unless it would wait behind another and not fit in the pipe meanwhile."""
        data = encode(job)
        if self.jobs and len(data) > PIPE_ROOM:
            return False
        if not self.jobs:
            self.started_at = time.monotonic()
        self.jobs.append(job)
        self.stdin.write(data)
        self.stdin.flush()
        return True

    def finished(self) -> Job:
        """The job a verdict just came for; the next one starts now."""
        self.started_at = time.monotonic()
        return self.jobs.popleft()

    def overdue(self) -> bool:
        """A backstop: the worker enforces limits itself, so this only fires if it is stuck."""
        return bool(self.jobs) and (
            time.monotonic() - self.started_at > self.jobs[0].timeout + FRESH_IMPORT_ALLOWANCE + 30
        )

    def stop(self) -> None:
        """Kill the worker, its running job (which dies with it), and what that job started."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        leftovers.kill_marked(self.mark)


class ForkPool:
    """`jobs` fork-server workers, each of which collected the suite once.

    Entering starts the workers and returns at once, so that the caller can do its own work
    (generating mutants) while they import and collect; the first call that needs them waits.
    """

    def __init__(self, setup: WorkerSetup, jobs: int, log_dir: Path, sandbox: Sandbox | None = None) -> None:
        self.setup = setup
        self.size = jobs
        self.log_dir = log_dir
        self.sandbox = sandbox  # each worker in a sandbox of its own (harness.sandbox), if given
        self.workers: list[_Worker] = []
        self.tests: list[tuple[str, str]] = []  # (id, file) in collection order
        self.attempts: dict[str, int] = {}
        self.confirmed: set[str] = set()
        self._started = 0
        self._ready = False
        self._mark = leftovers.new_mark()

    def __enter__(self) -> ForkPool:
        try:
            self.workers = [self._spawn() for _ in range(self.size)]
        except BaseException:
            self.__exit__()  # no worker outlives a failed start
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self.workers:
            worker.stop()

    def _wait_ready(self) -> None:
        if self._ready:
            return
        for worker in self.workers:
            self.tests = worker.wait_ready()
        self._ready = True

    def baseline(self) -> Baseline:
        """The suite once on unmutated code, with per-test coverage, on every worker at once."""
        return self.baseline_with(None)

    def baseline_with(self, spare: Spare | None) -> Baseline:
        """`baseline()`; a worker with no chunk left to run takes `spare`'s jobs meanwhile."""
        started = time.monotonic()
        self._wait_ready()
        runs: list[tuple[Job, Verdict]] = []
        chunks = chunk_jobs([test for test, _ in self.tests], len(self.workers))
        left = {job.mutant_id for job in chunks}

        def on_verdict(job: Job, verdict: Verdict) -> None:
            if job.mutant_id not in left:
                assert spare is not None
                spare.settle(job, verdict)
                return
            left.discard(job.mutant_id)
            runs.append((job, verdict))
            if spare is not None:
                spare.chunk_done(verdict)

        def more(queued: Sequence[Job]) -> Job | None:
            # Only behind no chunk: a spare job must not wait for one, nor delay the last one.
            if spare is None or not left or any(job.mutant_id in left for job in queued):
                return None
            return spare.next_job()

        self.run(chunks, on_verdict, more=more)
        return assemble(self.tests, runs, started)

    def _spawn(self) -> _Worker:
        self._started += 1
        return _Worker(self.setup, self._started, self.log_dir, self._mark, self.sandbox)

    def control(self, tests: Sequence[str], timeout: float) -> None:
        """Run unmutated code through every worker's machinery; all of it must pass."""
        jobs = [Job.unmutated(f"control-{n}", tuple(tests), timeout) for n in range(len(self.workers))]
        failures: list[str] = []

        def check(job: Job, verdict: Verdict) -> None:
            reason = control_failure(verdict)
            if reason:
                failures.append(reason)

        self.run(jobs, check, depth=1)  # one each: every worker must prove itself
        if failures:
            raise HarnessError(f"the control run of unmutated code failed in a worker: {failures[0]}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None,
            depth: int = QUEUE_DEPTH, more: More | None = None) -> None:
        """Run `jobs`; `prepare` may rewrite each job just before it is sent (test order); when
        none is left, `more` may give a worker one (it sees the jobs the worker has queued).

        Each worker has up to `depth` jobs sent ahead, so that it starts the next one as soon
        as it reports a verdict, without waiting for this process to read it and answer.
        """
        self._wait_ready()
        pending = deque(jobs)
        selector = selectors.DefaultSelector()
        for worker in self.workers:
            selector.register(worker.stdout, selectors.EVENT_READ, worker)
        try:
            self._loop(pending, selector, on_verdict, prepare or (lambda job: job), depth,
                       more or (lambda queued: None))
        finally:
            selector.close()

    def _loop(self, pending: deque[Job], selector: Any, on_verdict: OnVerdict, prepare: Prepare,
              depth: int, more: More) -> None:
        while pending or any(worker.jobs for worker in self.workers):
            for worker in self.workers:
                while len(worker.jobs) < depth:
                    if not pending and (extra := more(tuple(worker.jobs))) is not None:
                        pending.append(extra)
                    if not pending or not worker.offer(prepare(pending[0])):
                        break
                    pending.popleft()
            for key, _ in selector.select(timeout=5.0):
                ready: _Worker = key.data
                messages = ready.read()
                if messages is None:
                    self._lost(ready, selector, pending, on_verdict, "the worker process died")
                    continue
                for verdict in messages:
                    self._settle(ready.finished(), verdict, pending, on_verdict)
            for worker in [w for w in self.workers if w.overdue()]:
                self._lost(worker, selector, pending, on_verdict, "the worker stopped responding")

    def _settle(self, job: Job, verdict: Verdict, pending: deque[Job], on_verdict: OnVerdict) -> None:
        if verdict.timed_out and job.mutant_id not in self.confirmed:
            self.confirmed.add(job.mutant_id)
            pending.append(confirm_timeout(job))
        else:
            on_verdict(job, verdict)

    def _lost(self, worker: _Worker, selector: Any, pending: deque[Job], on_verdict: OnVerdict,
              why: str) -> None:
        """Replace a dead or stuck worker: its running job is retried once, the ones queued
        behind it never started and go back first."""
        jobs = list(worker.jobs)
        self._replace(worker, selector)
        pending.extendleft(reversed(jobs[1:]))
        if jobs:
            self._retry_or_fail(jobs[0], pending, on_verdict, why)

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
