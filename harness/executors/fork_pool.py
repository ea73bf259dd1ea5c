"""The default executor: a pool of fork-server workers on this machine (harness.executors.base).

Each worker imports and collects the suite once, then forks once per job. Where the OS allows
(harness.shared.zygote), one process, the zygote, imports and collects, and the workers are forked
from it, a replacement too; elsewhere, or if the zygote is gone, each worker is an interpreter
of its own (`python -m bugsmith.harness.child.worker`). The coordinator keeps each worker one
job ahead (the next job waits in its pipe) and collects verdicts as they come. A worker that
dies is replaced and its running job retried once; a job that kills two workers gets a
verdict that says so. Nothing here decides a status: that is harness.verdict's job.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from bugsmith.errors import BaselineError, HarnessError
from bugsmith.harness.baseline import Baseline, assemble, chunk_jobs, kept_writes, refused_arguments
from bugsmith.harness.executors.base import IdleWork, OnVerdict, Prepare
from bugsmith.harness.executors.confirmation import carried_over, next_confirmation, with_carried
from bugsmith.harness.shared import leftovers, preload, zygote
from bugsmith.harness.shared.interpreter import helper_launch
from bugsmith.harness.shared.preload import Asked
from bugsmith.harness.shared.protocol import (
    FRESH_IMPORT_ALLOWANCE,
    Job,
    Ready,
    TestResult,
    Verdict,
    WorkerSetup,
    encode,
    send,
)
from bugsmith.harness.shared.sandbox import Sandbox
from bugsmith.harness.shared.zygote import ForkedProcess, ForkRefused, ForkRequest
from bugsmith.harness.verdict import control_failure

_EXCEPTION_LINE = re.compile(r"[\w.]+(Error|Exception|Warning|Exit|Interrupt)\b(:|$)")
More = Callable[[Sequence[Job]], Job | None]  # a job for a worker with these queued, when none is pending
QUEUE_DEPTH = 2  # jobs sent ahead to each worker
# How far down the queue `first_without_sibling` looks for a job of a function that no worker holds.
SIBLING_WINDOW = 64
PIPE_ROOM = 60_000  # bytes: a job queued behind another must fit in the pipe (64 KiB on Linux),
# so that sending it never blocks this process while the worker is busy
# A job carries its mutated file twice (whole, and the top-level statement it compiles): from a
# 30 KB file on it outgrows a default pipe, and a worker sent its jobs one at a time waits for
# this process between every two. Linux lets a process widen its pipes up to
# /proc/sys/fs/pipe-max-size (1 MiB by default).
JOB_PIPE_BYTES = 1 << 20
PIPE_MARGIN = 4096
ZYGOTE_GRACE = 5.0  # seconds the zygote may take to collect its stopped workers and end


def _pipe_room(stream: IO[bytes]) -> int:
    """How many bytes of a job can wait in the pipe `stream` writes to, widened to JOB_PIPE_BYTES
    where the OS allows; PIPE_ROOM where it cannot tell (not Linux, not a pipe)."""
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        return PIPE_ROOM
    try:
        fd = stream.fileno()
        try:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, JOB_PIPE_BYTES)
        except OSError:
            pass  # over the user's quota of pipe memory: the size it has
        return max(0, fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) - PIPE_MARGIN)
    except (OSError, ValueError):
        return PIPE_ROOM


class _Worker:
    """One fork-server process, with the jobs sent to it in order (the first one is running)."""

    def __init__(self, process: subprocess.Popen[bytes] | ForkedProcess, stdin: IO[bytes], stdout: IO[bytes],
                 log_path: Path, mark: str, control: socket.socket | None = None) -> None:
        self.process = process
        self.stdin = stdin
        self.stdout = stdout
        self.log_path = log_path
        self.mark = mark  # what this worker starts inherits it (harness.shared.leftovers)
        self.control = control  # a zygote's socket, which it talks on and takes requests for workers on
        self.jobs: deque[Job] = deque()
        self.started_at = 0.0  # when the first job of `jobs` began
        self.gone = False  # a job could not be sent: it is dead
        self.room = _pipe_room(stdin)  # bytes a job queued behind another may take
        self.ready = Ready()  # its first message, once read (a zygote's says what a preloader may import)
        self.preloader = 0  # the pid of the preloader that forked it, if one did
        self._buffer = b""

    @classmethod
    def launch(cls, setup: WorkerSetup, name: str, log_dir: Path, mark: str, sandbox: Sandbox | None = None,
               as_zygote: bool = False) -> _Worker:
        """A worker started as an interpreter; `as_zygote`: one that forks the workers instead."""
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / f"{name}.log"
        launch = helper_launch("bugsmith.harness.child.worker", setup, sandbox, {leftovers.VARIABLE: mark})
        ours, theirs = socket.socketpair() if as_zygote else (None, None)
        try:
            with open(log_path, "ab") as log:
                process = subprocess.Popen(
                    (*launch.argv, zygote.FLAG) if as_zygote else launch.argv,
                    stdin=theirs.fileno() if theirs else subprocess.PIPE,
                    stdout=theirs.fileno() if theirs else subprocess.PIPE, stderr=log, bufsize=0,
                    cwd=launch.cwd, env=launch.env, start_new_session=True,
                )
        except BaseException:
            if ours is not None:
                ours.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()
        if ours is not None:
            return cls._on_socket(process, ours, setup, log_path, mark)
        assert process.stdin and process.stdout
        return cls._sent(cls(process, process.stdin, process.stdout, log_path, mark), setup)

    @classmethod
    def _on_socket(cls, process: subprocess.Popen[bytes] | ForkedProcess, ours: socket.socket,
                   setup: WorkerSetup, log_path: Path, mark: str) -> _Worker:
        """A zygote that talks on `ours`, sent its setup."""
        return cls._sent(cls(process, os.fdopen(os.dup(ours.fileno()), "wb", buffering=0),
                             os.fdopen(os.dup(ours.fileno()), "rb", buffering=0), log_path, mark, ours), setup)

    @staticmethod
    def _sent(worker: _Worker, setup: WorkerSetup) -> _Worker:
        try:
            send(worker.stdin, setup)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it died at once: wait_ready says why, from its log
        return worker

    @classmethod
    def ask_preloader(cls, setup: WorkerSetup, log_dir: Path, mark: str) -> Asked | None:
        """Ask this project's preloader (harness.shared.preload), if one runs, for a zygote."""
        log_dir.mkdir(parents=True, exist_ok=True)
        env = helper_launch("bugsmith.harness.child.worker", setup, None, {leftovers.VARIABLE: mark}).env
        return preload.ask_for_zygote(preload.address(setup.root, setup.origin, env),
                                      preload.Spawn(mark=mark, env=dict(env)), log_dir / "zygote.log")

    @classmethod
    def preloaded(cls, asked: Asked, setup: WorkerSetup, log_dir: Path, mark: str) -> _Worker | None:
        """The zygote `asked` gives, sent its setup as a launched one is; None if it gives none."""
        forked = asked.zygote()
        if forked is None:
            return None
        process, ours = forked
        return cls._on_socket(process, ours, setup, log_dir / "zygote.log", mark)

    def fork_worker(self, number: int, log_dir: Path, mark: str) -> _Worker:
        """A worker forked from this one, a zygote that has collected the suite (ForkRefused if
        it cannot); it says it is ready as a worker started as an interpreter would."""
        assert self.control is not None
        log_path = log_dir / f"worker-{number}.log"
        process, stdin, stdout = zygote.ask_for_worker(self.control, ForkRequest(number=number, mark=mark), log_path)
        return _Worker(process, stdin, stdout, log_path, mark)

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
        self.ready = ready
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
        status = self.process.returncode
        return (errors or [f"exit status {status}" if status is not None else "it ended"])[-1][:300]

    def _next_message(self) -> Ready | None:
        while b"\n" not in self._buffer:
            try:
                chunk = os.read(self.stdout.fileno(), 1 << 16)
            except ConnectionResetError:  # a zygote's socket, closed with a request unread
                chunk = b""
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
        if self.jobs and len(data) > self.room:
            return False
        try:
            self.stdin.write(data)
            self.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            # It died since its last verdict: the job never reached it, so it is no attempt;
            # the pool replaces the worker when it sees the end of its output.
            self.gone = True
            return False
        if not self.jobs:
            self.started_at = time.monotonic()
        self.jobs.append(job)
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

    def stop(self, grace: float = 0.0) -> None:
        """Kill the worker, its running job (which dies with it), and what that job started;
        `grace`: first close its channel and give it that long to end by itself."""
        if grace and self.control is not None:
            self._close()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        if isinstance(self.process, ForkedProcess):
            self.process.kill()  # in a session of its own, which holds what its jobs exec'd: marked
        else:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.process.wait()
        self._close()
        leftovers.kill_marked(self.mark)

    def _close(self) -> None:
        """Close this end of the channel (a Popen's pipes are closed by the Popen)."""
        if not isinstance(self.process, subprocess.Popen) or self.control is not None:
            self.stdin.close()
            self.stdout.close()
        if self.control is not None:
            self.control.close()


class ForkPool:
    """`jobs` fork-server workers, each of which collected the suite once.

    Entering starts the workers and returns at once, so that the caller can do its own work
    (generating mutants) while they import and collect; the first call that needs them waits.
    """

    def __init__(self, setup: WorkerSetup, jobs: int, log_dir: Path, sandbox: Sandbox | None = None,
                 preload: bool = False) -> None:
        self.setup = setup
        # Fork the zygote from a preloader if one runs, and leave one running (harness.shared.preload):
        # trusted tests only, where the zygote runs unconfined.
        self.preload = preload and sandbox is None
        self.size = jobs
        self.log_dir = log_dir
        self.sandbox = sandbox  # each worker in a sandbox of its own (harness.shared.sandbox), if given
        self.workers: list[_Worker] = []
        self.tests: list[tuple[str, str]] = []  # (id, file) in collection order
        self.attempts: dict[str, int] = {}
        self.confirmed: dict[str, int] = {}  # timeouts re-run, by mutant
        # Jobs IdleWork gave (`more`): their timeout is forgotten and the mutant runs whole later,
        # confirmed then; confirming it here would only add the longer waits to the baseline.
        self.from_idle_work: set[str] = set()
        self.firsts: dict[str, Job] = {}  # a timeout being confirmed: its job as it first ran
        self.carried: dict[str, tuple[TestResult, ...]] = {}  # and what passed in its earlier runs
        self._started = 0
        self._ready = False
        # Set first when the pool is left: a baseline running in another thread
        # (harness.early_baseline) then sees its workers die, and must start none again.
        self._closed = False
        self._mark = leftovers.new_mark()
        self.zygote: _Worker | None = None  # the process the workers are forked from, if any
        self._asking: Asked | None = None  # a zygote asked of a preloader, until taken

    def __enter__(self) -> ForkPool:
        try:
            if zygote.available():
                if self.preload:
                    self._asking = _Worker.ask_preloader(self.setup, self.log_dir, self._zygote_mark())
                if self._asking is None:
                    self.zygote = self._launched_zygote()
            else:
                self.workers.extend(self._spawn() for _ in range(self.size))
        except BaseException:
            self.__exit__()  # no worker outlives a failed start
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        if self._asking is not None:  # wakes the baseline's thread if it waits for the answer
            self._asking.cancel()
        for worker in list(self.workers):
            worker.stop()
        if self.zygote is not None:
            self.zygote.stop(grace=ZYGOTE_GRACE)  # it collects its workers: their CPU time counts
            if self.preload and self.zygote.ready.modules:
                self._depart(self.zygote)
            self.zygote = None

    def _depart(self, zygote: _Worker) -> None:
        """The preloader this pool would leave for the next run: started by the run once it has
        ended well (harness.shared.preload.leave), not now (the run may go on with a wider pool)."""
        launch = helper_launch("bugsmith.harness.child.preloader", self.setup, None,
                               {leftovers.VARIABLE: leftovers.member_mark(preload.PLACEHOLDER, leftovers.ZYGOTE)})
        start = preload.Start(address=preload.address(self.setup.root, self.setup.origin, launch.env),
                              root=self.setup.root, origin=self.setup.origin, modules=zygote.ready.modules,
                              plugins=zygote.ready.plugins, environ=zygote.ready.environ)
        preload.depart(preload.Departure(start=start, argv=launch.argv, env=dict(launch.env), cwd=launch.cwd,
                                         log_path=self.log_dir / "preloader.log",
                                         replaces=zygote.preloader if zygote.ready.outgrown else 0))

    def _preloaded_ready(self, asked: Asked) -> list[tuple[str, str]]:
        """The collection of the zygote the preloader forks; a zygote started afresh if it gives
        none, or if the one it forks cannot collect what a fresh one can (the preloader then
        ends: what it imported does not stand for a fresh interpreter any more)."""
        forked = _Worker.preloaded(asked, self.setup, self.log_dir, self._zygote_mark())
        if forked is not None:
            forked.preloader = asked.preloader
            self.zygote = self._kept(forked)
            try:
                return forked.wait_ready()
            except (BaselineError, HarnessError, OSError, ValueError):
                forked.stop()
                self.zygote = None
        self.zygote = self._kept(self._launched_zygote())
        tests = self.zygote.wait_ready()
        if forked is not None:
            asked.retire()
        return tests

    def _zygote_mark(self) -> str:
        return leftovers.member_mark(self._mark, leftovers.ZYGOTE)

    def _launched_zygote(self) -> _Worker:
        self._refuse_if_closed()
        return _Worker.launch(self.setup, "zygote", self.log_dir, self._zygote_mark(), self.sandbox, as_zygote=True)

    def _wait_ready(self) -> None:
        if self._ready:
            return
        if self._asking is not None:
            self.tests = self._preloaded_ready(self._asking)
            self._asking = None
        elif self.zygote is not None and not self.workers:
            self.tests = self.zygote.wait_ready()
        if self.zygote is not None and not self.workers:
            for _ in range(self.size):
                self.workers.append(self._kept(self._spawn()))
        for worker in self.workers:
            self.tests = worker.wait_ready()
        self._ready = True

    @property
    def drains(self) -> bool:
        return True

    def baseline(self) -> Baseline:
        """The suite once on unmutated code, with per-test coverage, on every worker at once."""
        return self.baseline_with(None)

    def baseline_with(self, idle_work: IdleWork | None) -> Baseline:
        """`baseline()`; a worker with no chunk left to run takes `idle_work`'s jobs meanwhile."""
        try:
            return self._baseline_with(idle_work)
        except Exception as error:  # noqa: BLE001 - from another thread the pool was left under it
            self._refuse_if_closed(error)
            raise

    def _baseline_with(self, idle_work: IdleWork | None) -> Baseline:
        started = time.monotonic()
        self._wait_ready()
        runs: list[tuple[Job, Verdict]] = []
        chunks = chunk_jobs([test for test, _ in self.tests], len(self.workers))
        left = {job.mutant_id for job in chunks}

        def on_verdict(job: Job, verdict: Verdict) -> None:
            if job.mutant_id not in left:
                assert idle_work is not None
                idle_work.job_done(job, verdict)
                return
            left.discard(job.mutant_id)
            runs.append((job, verdict))
            if idle_work is not None:
                idle_work.chunk_done(verdict)

        def more(queued: Sequence[Job]) -> Job | None:
            # Only behind no chunk: an idle worker's job must not wait for one, nor delay the last one.
            if idle_work is None or not left or any(job.mutant_id in left for job in queued):
                return None
            return idle_work.next_job()

        self.run(chunks, on_verdict, more=more,
                 width=None if idle_work is None else lambda: idle_work.width(len(self.workers)))
        limit = max((job.timeout for job in chunks), default=0.0)
        found = assemble(self.tests, runs, started, lambda tests: self._passing_alone(tests, limit))
        return kept_writes(found, [verdict for _, verdict in runs], self.setup)

    def _passing_alone(self, tests: Sequence[str], limit: float) -> set[str]:
        """Which of `tests`, each run alone on the unmutated code in a job of its own, pass."""
        passing: set[str] = set()

        def check(job: Job, verdict: Verdict) -> None:
            if control_failure(verdict) is None:
                passing.add(job.tests[0])

        self.run([Job.unmutated(f"alone-{n}", (test,), limit) for n, test in enumerate(tests)], check)
        return passing

    def _spawn(self) -> _Worker:
        """A new worker: forked from the zygote, or an interpreter if there is none (any more)."""
        self._refuse_if_closed()
        self._started += 1
        mark = leftovers.member_mark(self._mark, self._started)
        if self.zygote is not None:
            try:
                return self.zygote.fork_worker(self._started, self.log_dir, mark)
            except ForkRefused:
                self.zygote.stop()  # gone or stuck: interpreters from now on
                self.zygote = None
        return _Worker.launch(self.setup, f"worker-{self._started}", self.log_dir, mark, self.sandbox)

    def control(self, tests: Sequence[str], timeout: float) -> None:
        """Run unmutated code through every worker's machinery; all of it must pass."""
        self._wait_ready()
        jobs = [Job.unmutated(f"control-{n}", tuple(tests), timeout) for n in range(len(self.workers))]
        failures: list[str] = []

        def check(job: Job, verdict: Verdict) -> None:
            reason = control_failure(verdict, environment_ok=True)
            if reason:
                failures.append(reason)

        self.run(jobs, check, depth=1)  # one each: every worker must prove itself
        if failures:
            raise HarnessError(f"the control run of unmutated code failed in a worker: {failures[0]}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None,
            depth: int = QUEUE_DEPTH, more: More | None = None, width: Callable[[], int] | None = None) -> None:
        """Run `jobs`; `prepare` may rewrite each job just before it is sent (test order); when
        none is left, `more` may give a worker one (it sees the jobs the worker has queued);
        `width`, asked before each round of sending, how many workers may take jobs (all).

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
                       more or (lambda queued: None), width or (lambda: len(self.workers)))
        finally:
            selector.close()

    def _loop(self, pending: deque[Job], selector: Any, on_verdict: OnVerdict, prepare: Prepare,
              depth: int, more: More, width: Callable[[], int]) -> None:
        # A mutant's job is prepared once, when it is first sent. A confirmation (harness.executors.base
        # next_confirmation) and a retry come back already in the order they must keep:
        # preparing a confirmation again put the test that hung first again, at the first limit,
        # so its verdict depended on what the adaptive order had learned from other mutants by
        # then (the subprocess pool prepares each job once, up front).
        prepared: set[str] = set()
        while pending or any(worker.jobs for worker in self.workers):
            # Left from another thread (harness.early_baseline), the pool's pipes may have been
            # closed under this select: it would wait for them for ever.
            self._refuse_if_closed()
            # Level by level: every worker gets a job to run before any gets one to queue. Filled
            # one worker after the other, the last jobs of a run (a few long confirmations)
            # queued behind each other on one worker while another sat idle.
            allowed = self.workers[:max(1, width())]
            for level in range(1, depth + 1):
                for worker in allowed:
                    if len(worker.jobs) < level:
                        self._feed(worker, pending, prepare, more, prepared)
            for key, _ in selector.select(timeout=5.0):
                ready: _Worker = key.data
                messages = ready.read()
                if messages is None:
                    self._lost(ready, selector, pending, on_verdict, "the worker process died")
                    continue
                for verdict in messages:
                    self._settle(ready.finished(), verdict, pending, on_verdict)
            for worker in [w for w in self.workers if w.gone]:
                self._lost(worker, selector, pending, on_verdict, "the worker process died")
            for worker in [w for w in self.workers if w.overdue()]:
                self._lost(worker, selector, pending, on_verdict, "the worker stopped responding")

    def _feed(self, worker: _Worker, pending: deque[Job], prepare: Prepare, more: More,
              prepared: set[str]) -> None:
        """Send `worker` the next pending job (or one `more` gives), if there is one and it fits."""
        if not pending and (extra := more(tuple(worker.jobs))) is not None:
            self.from_idle_work.add(extra.mutant_id)
            pending.append(extra)
        if not pending:
            return
        held = {(sent.path, sent.function) for other in self.workers for sent in other.jobs}
        index = first_without_sibling(pending, held)
        job = pending[index] if pending[index].mutant_id in prepared else prepare(pending[index])
        if worker.offer(job):
            prepared.add(job.mutant_id)
            del pending[index]

    def _refuse_if_closed(self, error: Exception | None = None) -> None:
        """HarnessError if the pool was left: what failed since (a read, a pipe closed under a
        baseline's thread) only says so."""
        if self._closed:
            raise HarnessError("the fork pool was closed while it ran") from error

    def _kept(self, worker: _Worker) -> _Worker:
        """`worker`, about to join `workers`; stopped if the pool was closed since it started
        (its closing did not see it)."""
        if self._closed:
            worker.stop()
            self._refuse_if_closed()
        return worker

    def _settle(self, job: Job, verdict: Verdict, pending: deque[Job], on_verdict: OnVerdict) -> None:
        if job.mutant_id in self.from_idle_work:  # once: when the mutant runs whole later, it is confirmed
            self.from_idle_work.discard(job.mutant_id)
            on_verdict(job, verdict)
            return
        first = self.firsts.setdefault(job.mutant_id, job)  # the job as it first ran
        confirmation = next_confirmation(job, verdict, self.confirmed.get(job.mutant_id, 0), first)
        if confirmation is not None:
            self.confirmed[job.mutant_id] = self.confirmed.get(job.mutant_id, 0) + 1
            self.carried[job.mutant_id] = self.carried.get(job.mutant_id, ()) + carried_over(verdict, confirmation)
            # Next, not last: a confirmation is the longest job of a run (twice a limit at least),
            # and the ones queued last ran two by two at the end, one worker idle behind an odd one.
            pending.appendleft(confirmation)
            return
        self._final(job, verdict, on_verdict)

    def _final(self, job: Job, verdict: Verdict, on_verdict: OnVerdict) -> None:
        """`on_verdict` for the last run of `job`'s mutant, with what its earlier runs carried."""
        first = self.firsts.pop(job.mutant_id, job)
        on_verdict(*with_carried(job, verdict, self.carried.pop(job.mutant_id, ()), first))

    def _lost(self, worker: _Worker, selector: Any, pending: deque[Job], on_verdict: OnVerdict,
              why: str) -> None:
        """Replace a dead or stuck worker: its running job is retried once, the ones queued
        behind it never started and go back first."""
        self._refuse_if_closed()  # it died because the pool is being left
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
            self._final(job, Verdict(mutant_id=job.mutant_id, died=f"{why}, twice"), on_verdict)

    def _replace(self, worker: _Worker, selector: Any) -> _Worker:
        selector.unregister(worker.stdout)
        worker.stop()
        fresh = self._spawn()
        fresh.wait_ready()
        self.workers[self.workers.index(worker)] = self._kept(fresh)
        selector.register(fresh.stdout, selectors.EVENT_READ, fresh)
        return fresh


def first_without_sibling(pending: Sequence[Job], held: set[tuple[str, str | None]]) -> int:
    """The index of the next job to send: the first of the next SIBLING_WINDOW whose function no
    worker holds (`held`, by path and function), else the first.

    A job is prepared as it is sent (the adaptive order, harness.mutation_run.kill_order.KillOrder), with what
    the verdicts of its function's other mutants taught; a sibling still running has taught
    nothing yet. The rounds of `KillOrder.interleave` keep siblings apart only by count, while
    one mutant that passes 89 of its 90 tests runs as long as a hundred quick ones on the other
    worker: mutants were then prepared while a sibling that the same rare test kills still ran,
    and ran their passing tests before that killer. Jobs outside any function (a baseline's
    chunks, a control, a mutant of module-level code) are never held back; only the order of the
    jobs changes."""
    for index, job in enumerate(itertools.islice(pending, SIBLING_WINDOW)):
        if job.function is None or (job.path, job.function) not in held:
            return index
    return 0
