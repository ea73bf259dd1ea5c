"""An executor that runs another one in a private copy of the project (harness.executors.project_copy).

Every local executor of harness.executors.base's table is wrapped in one, so that no test of a mutant
runs in the user's tree. Outwards nothing changes: jobs and verdicts name the project's paths,
test ids and the baseline's coverage (relative paths) are the same in the copy. Inwards the
workers get a setup whose root is the copy, and each job's mutated files by their paths there.

The baseline runs in the copy too: a suite that itself writes into its tree is named in the
baseline's `writes`, which the run reports as a warning; from what each job's private view kept
(harness.child.private_view), and where a job had none, from two snapshots of the copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.executors.base import Draining, Executor, IdleWork, OnVerdict, Prepare
from bugsmith.harness.executors.project_copy import ProjectCopy, Relocation, changes, snapshot
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup

WRITES_SHOWN = 20  # paths a baseline keeps of what the suite wrote


class InCopy:
    """`build(setup in the copy)` entered on a fresh copy of `setup.root`; left, the copy is released."""

    def __init__(self, setup: WorkerSetup, build: Callable[[WorkerSetup], Executor]) -> None:
        self.setup = setup
        self._build = build
        self._copy: ProjectCopy | None = None
        self._inner: Executor | None = None

    def __enter__(self) -> InCopy:
        self._copy = ProjectCopy.open(Path(self.setup.root))
        try:
            self._inner = self._build(self._copy.relocation.setup(self.setup))
            self._inner.__enter__()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._inner is not None:
                self._inner.__exit__(*exc)
        finally:
            self._inner = None
            if self._copy is not None:
                self._copy.close()
                self._copy = None

    def _parts(self) -> tuple[ProjectCopy, Executor]:
        assert self._copy is not None and self._inner is not None, "enter the executor first"
        return self._copy, self._inner

    @property
    def drains(self) -> bool:
        inner = self._inner
        return isinstance(inner, Draining) and inner.drains

    def baseline(self) -> Baseline:
        return self.baseline_with(None)

    def baseline_with(self, idle_work: IdleWork | None) -> Baseline:
        """`baseline()`, with `idle_work`'s jobs for idle workers if the executor inside can take them."""
        copy, inner = self._parts()
        # Against the project's snapshot at the sync: workers collecting since then count too.
        if idle_work is not None and isinstance(inner, Draining):
            found = inner.baseline_with(_Relocated(idle_work, copy.relocation))
        else:
            found = inner.baseline()
        # What the jobs' private views kept (`found.writes`), and what reached the copy without one.
        written = sorted(set(found.writes) | set(changes(copy.snapshot, snapshot(copy.folder))))
        return replace(found, writes=tuple(written[:WRITES_SHOWN])) if written else found

    def control(self, tests: Sequence[str], timeout: float) -> None:
        self._parts()[1].control(tests, timeout)

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        copy, inner = self._parts()
        relocation = copy.relocation

        def home(job: Job, verdict: Verdict) -> None:
            on_verdict(relocation.job_home(job), relocation.verdict_home(verdict))

        inner.run([relocation.job(job) for job in jobs], home, prepare)


class _Relocated:
    """IdleWork whose jobs go into the copy and whose verdicts come home, as `InCopy.run` does."""

    def __init__(self, idle_work: IdleWork, relocation: Relocation) -> None:
        self.idle_work = idle_work
        self.relocation = relocation

    def chunk_done(self, verdict: Verdict) -> None:
        self.idle_work.chunk_done(verdict)  # test ids and coverage's relative paths are the same in the copy

    def next_job(self) -> Job | None:
        job = self.idle_work.next_job()
        return None if job is None else self.relocation.job(job)

    def job_done(self, job: Job, verdict: Verdict) -> None:
        self.idle_work.job_done(self.relocation.job_home(job), self.relocation.verdict_home(verdict))

    def width(self, workers: int) -> int:
        return self.idle_work.width(workers)
