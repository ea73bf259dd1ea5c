"""A long-lived worker: collect the suite once, then fork once per mutant.

Started by the coordinator's fork pool as `python -m bugsmith.harness.child.worker`; speaks
JSON lines of harness.shared.protocol records on stdin/stdout. Inside pytest's run loop it never
returns to pytest's own loop: it serves jobs. Each job runs in a forked child that swaps in the
mutant's code, runs the selected, already-collected tests until the first failure, and writes
its verdict to a pipe while this process watches the clock and kills the child's whole process
group when time is up; then, a subreaper (harness.child.reaper), it kills whatever else the job
started. A job with a task does that task instead (harness.shared.tasks): a baseline
chunk runs here, anything else through HANDLERS.

Started with `--zygote` (harness.shared.zygote), the process collects and then forks the serving
workers (harness.child.fork_workers) instead of serving jobs itself.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import replace
from typing import Any, BinaryIO, Protocol

import coverage
import pytest

from bugsmith.harness.child import coverage_run, huge_pages, private_view, reaper, reexec
from bugsmith.harness.child.activation import (
    FunctionIndex,
    NeedsFreshImport,
    default_spans,
    index_functions,
    swap,
)
from bugsmith.harness.child.fork_workers import Zygote
from bugsmith.harness.child.hypothesis_view import HypothesisSeesTheProject
from bugsmith.harness.child.preloadable import outgrown, preloadable, startup_changes
from bugsmith.harness.child.recorder import Recorder, first_lines
from bugsmith.harness.child.session import (
    CollectErrors,
    StateOutsideTheTree,
    enter_project,
    limit_memory,
    protocol_streams,
    suite_arguments,
)
from bugsmith.harness.child.test_clock import TestClock, waited
from bugsmith.harness.shared.interpreter import FreshRequest, module_command, verdict_of_output
from bugsmith.harness.shared.protocol import (
    FRESH_IMPORT_ALLOWANCE,
    Job,
    Note,
    Patch,
    Ready,
    TestOutcome,
    TestResult,
    Verdict,
    WorkerSetup,
    child_message,
    encode,
    receive,
    send,
)
from bugsmith.harness.shared.tasks import CheckTask, CoverageTask, Findings, ProbeTask, Task
from bugsmith.harness.shared.zygote import FLAG

# A fresh interpreter's start and collection may take this many times this worker's own, plus
# COLLECT_BASE seconds, before a mutant that hangs the import is stopped.
COLLECT_FACTOR, COLLECT_BASE = 3.0, 5.0
STARTED = time.monotonic()


class TaskHandler(Protocol):
    """Does a task in the forked child, after nothing else was activated; never raises (what
    goes wrong is part of its findings)."""

    def __call__(self, task: Any, index: FunctionIndex, patches: tuple[Patch, ...]) -> Findings: ...


# A task's kind -> "module:function" that does it. Imported when the first such job arrives, so
# that a worker that only runs tests never loads triage (hypothesis, its value comparisons).
HANDLERS: dict[str, str] = {
    ProbeTask.kind: "bugsmith.harness.child.triage.probe:probe",
    CheckTask.kind: "bugsmith.harness.child.triage.probe:check",
}


def handler(task: Task) -> TaskHandler:
    module, _, name = HANDLERS[task.kind].partition(":")
    found: TaskHandler = getattr(importlib.import_module(module), name)
    return found


class ForkServer(CollectErrors):
    def __init__(self, setup: WorkerSetup, reader: BinaryIO, writer: BinaryIO, recorder: Recorder,
                 zygote: Zygote | None = None, view: HypothesisSeesTheProject | None = None, *,
                 started: float = STARTED, preloaded: frozenset[str] | None = None) -> None:
        super().__init__()
        self.started = started  # when a fresh interpreter would have started (a preloaded one did earlier)
        self.preloaded = preloaded  # the modules a preloader forked this zygote with
        self.view = view  # settled before each fork (HypothesisSeesTheProject.before_fork)
        self.zygote = zygote  # if given, this process forks the workers that serve jobs
        self.setup = setup
        self.reader = reader
        self.writer = writer
        self.recorder = recorder
        self.items: dict[str, pytest.Item] = {}
        self.index: FunctionIndex = {}
        self.coverage: coverage.Coverage | None = None
        self.startup = 0.0  # seconds from this process's start to collected tests
        self.own: frozenset[int] = frozenset()  # processes of this worker's own, spared by the reaper
        self.surveys: dict[str, reexec.Survey] = {}  # by module: can its import-time mutants run here
        self.collapsed = False  # memory moved into huge pages (harness.child.huge_pages)
        self.launched = dict(os.environ)  # before pytest and the suite's start-up (harness.shared.preload)
        self.private: private_view.View | str | None = None  # in a job's child: its view of the files
        self.no_view: str | None = None  # why this machine gives the jobs no private view (asked once)
        self.view_asked = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        if self.errors:
            send(self.writer, Ready(error="collection failed: " + "; ".join(self.errors)))
            return True
        self.items = {item.nodeid: item for item in session.items}
        self.startup = time.monotonic() - self.started
        self.index = index_functions(frozenset(self.setup.sources))
        if self.view is not None:
            self.view.before_fork()  # before the freeze: what hypothesis' scan keeps is frozen too
        # Everything collected so far lives on in every child: freezing it keeps the child's
        # garbage collector from touching (and so copying) those pages after each fork.
        gc.freeze()
        files = tuple(item.location[0] for item in self.items.values())
        ready = Ready(tests=tuple(self.items), files=files)
        if self.zygote is not None:
            modules, plugins = preloadable(self.setup, session.config)
            preloaded = replace(ready, modules=modules, plugins=plugins, environ=startup_changes(self.launched),
                                outgrown=outgrown(modules, self.preloaded))
            channel = self.zygote.serve(preloaded, session.config)  # returns in a forked worker only
            self.reader.close()  # the zygote's: the pool must see its end when it ends
            self.writer.close()
            self.reader, self.writer = channel  # a worker forked from it
        self.own = frozenset(reaper.descendants(os.getpid()))  # started by the suite's collection
        send(self.writer, ready)
        while (job := receive(self.reader, Job.from_dict)) is not None:
            send(self.writer, self.run(job))
        return True

    def run(self, job: Job) -> Verdict:
        if not self.collapsed and job.task is None:
            # Before the first mutant, not at start-up: a worker that only runs the baseline
            # never pays for it (0.3-0.5 CPU-s), and the memory the baseline grew moves too.
            self.collapsed = True
            huge_pages.collapse()  # each fork then copies a fraction of the page tables
        if isinstance(job.task, CoverageTask) and self.coverage is None:
            self.coverage = coverage_run.ready_coverage(self.setup)  # once here, not in every child
        if job.function is None and job.source and not job.extra and job.module not in self.surveys:
            # Once per module, here and not in each child: the answer outlives the fork.
            self.surveys[job.module] = reexec.survey(job.module, job.path, self.setup.root,
                                                          ours=self.index.values())
            default_spans(job.path)
        if self.view is not None:
            # The unmutated suite's chunks write hypothesis' example database; anything else
            # in the child (a mutant, a patched coverage run, triage) only reads it.
            self.view.before_fork(baseline=isinstance(job.task, CoverageTask) and not job.patches)
        if not self.view_asked:
            self.no_view, self.view_asked = private_view.refused(self.setup), True
        read_end, write_end = os.pipe()
        started = time.monotonic()
        me = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, which never returns
            os.close(read_end)
            reaper.die_with_parent(me)
            try:
                self._child(job, write_end)
            except BaseException as error:  # noqa: BLE001 - else the parent learns only "exited"
                self._crashed(job, write_end, error)
            finally:
                os._exit(0)
        os.close(write_end)
        messages, timed_out = _read_messages(read_end, started, job, pid)
        os.close(read_end)
        lost = waited(pid)  # before the kill: the kernel forgets a process that is reaped
        _kill_group(pid)
        _, status, usage = os.wait4(pid, 0)
        reaper.kill_descendants(self.own)  # what the job started in sessions of its own
        elapsed = time.monotonic() - started
        cpu = usage.ru_utime + usage.ru_stime
        final = next((m for m in messages if isinstance(m, Verdict)), None)
        if final is not None and not timed_out:
            return replace(final, elapsed=elapsed, cpu=cpu, waited=lost or 0.0)
        results = tuple(m.result for m in messages if isinstance(m, Note) and m.result is not None)
        return Verdict(
            mutant_id=job.mutant_id,
            results=results,
            timed_out=timed_out,
            running=job.tests[len(results)] if timed_out and len(results) < len(job.tests) else None,
            died=None if timed_out else _how_it_ended(status),
            elapsed=elapsed,
            cpu=cpu,
            waited=lost or 0.0,
        )

    def _child(self, job: Job, fd: int) -> None:
        os.setpgid(0, 0)
        # First, before the job opens a file: what it writes, no other job sees, nor it theirs.
        self.private = self.no_view or private_view.enter_for(self.setup)
        limit_memory(self.setup.memory_limit_mb)
        out = os.fdopen(fd, "wb", buffering=0)
        if isinstance(job.task, CoverageTask):
            # A job with patches measures the mutated program (an exercise's fault localisation).
            try:
                for patch in job.patches:
                    swap(self.index, patch.path, patch.function, patch.source, patch.unit)
            except BaseException as error:  # noqa: BLE001 - a failure to activate is a verdict
                self._verdict(out, Verdict(mutant_id=job.mutant_id, error=f"{type(error).__name__}: {error}"))
                return
            self._baseline(job, out)
            return
        if job.task is not None:  # e.g. survivor triage, which activates (and toggles) the mutant itself
            findings = handler(job.task)(job.task, self.index, job.patches)
            self._verdict(out, Verdict(mutant_id=job.mutant_id, findings=findings))
            return
        collect_limit = COLLECT_FACTOR * self.startup + COLLECT_BASE
        try:
            for patch in job.patches:
                swap(self.index, patch.path, patch.function, patch.source, patch.unit)
        except NeedsFreshImport:
            verdict = self._import_again(job, out, collect_limit)
            if verdict is not None:
                self._verdict(out, verdict)
                return
        except BaseException as error:  # noqa: BLE001 - any failure to activate is a verdict
            self._verdict(out, Verdict(mutant_id=job.mutant_id, error=f"{type(error).__name__}: {error}"))
            return
        found = [self.items[test] for test in job.tests if test in self.items]
        missing = tuple(test for test in job.tests if test not in self.items)
        results = []
        for position, item in enumerate(found):
            following = found[position + 1] if position + 1 < len(found) else None
            item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
            result = self.recorder.results.get(item.nodeid)
            if result is None:
                break
            results.append(result)
            send(out, Note(result=result))  # survives a later os._exit
            if result.outcome == TestOutcome.FAILED and job.stop_on_failure:
                break
        self._verdict(out, Verdict(mutant_id=job.mutant_id, results=tuple(results), missing=missing))

    def _import_again(self, job: Job, out: BinaryIO, collect_limit: float) -> Verdict | None:
        """Run the mutated module again in place (harness.child.reexec): None when this process
        now stands for a fresh import of the mutant and its collection (the tests run next),
        else the verdict: a collection failed as a fresh one would, or a fresh interpreter's.
        The import gets the time a fresh interpreter would (`collect_limit`), then the tests
        their own limits."""
        survey = self.surveys.get(job.module)
        if survey is not None and survey.refused is None:
            send(out, Note(extend=collect_limit))
            started = time.monotonic()
            try:
                reexec.reexecute(survey, job.path, job.source)
                return None
            except reexec.ImportFailed as failed:
                importer = reexec.first_importer(job.module, job.test_files, self.setup.root)
                if importer is not None:  # as harness.child.recorder reports a broken collection
                    return Verdict(mutant_id=job.mutant_id, results=(TestResult(
                        id=importer, outcome=TestOutcome.FAILED, when="collect", exception=type(failed.error).__name__,
                        message=first_lines(failed.error), in_source=True),))
            except BaseException:  # noqa: BLE001, S110 - a fresh interpreter says what the mutant does to an import
                pass
            finally:
                send(out, Note(extend=-max(0.0, collect_limit - (time.monotonic() - started))))
        send(out, Note(extend=FRESH_IMPORT_ALLOWANCE))
        return run_fresh(self.setup, job, collect_limit=collect_limit)

    def _crashed(self, job: Job, fd: int, error: BaseException) -> None:  # pragma: no cover - child
        """Log the traceback (the worker's log) and report the error, with the tests' results so
        far, as the job's verdict."""
        traceback.print_exc()
        sys.stderr.flush()
        verdict = self._kept(Verdict(mutant_id=job.mutant_id, results=tuple(self.recorder.results.values()),
                                     error=f"the test process failed outside a test: {type(error).__name__}: "
                                           f"{first_lines(error, 3, 400)}"))
        try:
            os.write(fd, encode(verdict))
        except OSError:
            pass

    def _baseline(self, job: Job, out: BinaryIO) -> None:
        items = [self.items[test] for test in job.tests if test in self.items]
        missing = tuple(test for test in job.tests if test not in self.items)
        assert self.coverage is not None
        results, lines = coverage_run.run_with_coverage(items, self.recorder, self.coverage, self.setup.root,
                                                        lambda result: send(out, Note(result=result)))
        self._verdict(out, Verdict(mutant_id=job.mutant_id, results=results, missing=missing, findings=lines))


    def _kept(self, verdict: Verdict) -> Verdict:
        return private_view.kept(verdict, self.private, self.setup)

    def _verdict(self, out: BinaryIO, verdict: Verdict) -> None:  # pragma: no cover - in the child
        send(out, self._kept(verdict))


def run_fresh(setup: WorkerSetup, job: Job, collect_limit: float | None = None) -> Verdict:
    """Run `job` in a new interpreter that imports the mutant through an import hook; it may
    take `collect_limit` seconds to start and collect (a mutant can hang the import)."""
    request = FreshRequest(setup=setup, job=job, collect_limit=collect_limit)
    completed = subprocess.run(
        module_command("bugsmith.harness.child.isolated"),
        input=encode(request), stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, cwd=setup.root, check=False,
    )
    return verdict_of_output(job, completed.stdout, completed.returncode, fresh_import=True)


def _read_messages(fd: int, started: float, job: Job, pid: int) -> tuple[list[Verdict | Note], bool]:
    """Read the child's messages until it closes the pipe or its time is up.

    With per-test limits, the clock restarts at each finished test: a mutant that loops in
    its first (fastest) test is stopped after that test's limit, not after the whole list's.
    A limit leaves out the time the child waited for a core (harness.child.test_clock): a child
    starved on a loaded machine gets the time it is owed.
    """
    limits = job.enforced or (job.timeout,)
    clock = TestClock(pid)
    deadline = clock.start(limits[0], started)
    finished = 0
    buffer = b""
    messages: list[Verdict | Note] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            later = clock.due()
            if later is None:
                return messages, True
            deadline = later
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return messages, False
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            message = child_message(json.loads(line))
            if isinstance(message, Note):
                deadline += message.extend
                clock.extend(message.extend)
                if message.result is not None:
                    finished += 1
                    if finished < len(limits):
                        deadline = clock.start(limits[finished])
            messages.append(message)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return f"the test process was killed by {name} before reporting a result"
    return f"the test process exited with status {os.WEXITSTATUS(status)} before reporting a result"


def serve(*, zygote: bool, started: float, preloaded: frozenset[str] | None = None) -> int:
    """Be a worker, or the zygote (its stream also carries descriptors: harness.shared.zygote),
    for the setup the coordinator sends; `started` is when a fresh interpreter would have
    started, and `preloaded` the modules a preloader forked this zygote with."""
    reader, writer = protocol_streams(raw=zygote)
    setup = receive(reader, WorkerSetup.from_dict)
    if setup is None:
        return 1  # the coordinator went away before it sent the setup
    reaper.become_subreaper()  # orphans of a job are re-parented here, to be killed
    enter_project(setup)
    recorder = Recorder(frozenset(setup.sources))
    view = HypothesisSeesTheProject(setup.project, setup.root, read_only=True)
    server = ForkServer(setup, reader, writer, recorder, Zygote(reader) if zygote else None, view,
                        started=started, preloaded=preloaded)
    code = pytest.main(suite_arguments(setup),
                       plugins=[recorder, server, StateOutsideTheTree(setup.project), view, CollectErrors()])
    return int(code)


def main() -> int:
    return serve(zygote=FLAG in sys.argv[1:], started=STARTED)


if __name__ == "__main__":
    sys.exit(main())
