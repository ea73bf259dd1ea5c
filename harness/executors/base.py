"""The Executor protocol: what runs jobs for the coordinator (the table that picks one is
harness.executors.table).

Every executor runs the same jobs (harness.shared.protocol) and gives the same verdicts:

| kind         | implementation                                    | where a job runs                               |
| ------------ | ------------------------------------------------- | ---------------------------------------------- |
| `fork`       | harness.executors.fork_pool.ForkPool              | a fork of a long-lived worker on this machine  |
| `subprocess` | harness.executors.subprocess_pool.SubprocessPool  | a fresh interpreter on this machine            |
| `dask`       | harness.executors.distributed.DaskExecutor        | a fork-server pool on a Dask cluster's workers |

`fork` is the default; `--isolation subprocess` picks the portable mode, `--executor dask` a
cluster. The run (harness.mutation_run), the exercise evaluator and triage take an Executor from `open_executor`
(or a caller's factory) and never ask which one they hold. The rule all of them share, that a
timeout on a loaded machine gets one longer second run, is harness.executors.confirmation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from bugsmith.harness.config import RunOptions
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup

if TYPE_CHECKING:
    from bugsmith.harness.baseline import Baseline

OnVerdict = Callable[[Job, Verdict], None]
# Rewrites a job just before it first starts (the adaptive test order); a confirmation or a
# retry of it is not prepared again: it keeps the order its timeout or death is known in.
Prepare = Callable[[Job], Job]

class Executor(Protocol):
    """Runs jobs and reports one verdict per job. Entered before its first use (it may start
    processes, which then import and collect while the caller works) and left at the end."""

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def baseline(self) -> Baseline:
        """The suite once on unmutated code, with per-test coverage; BaselineError unless green."""
        ...

    def control(self, tests: Sequence[str], timeout: float) -> None:
        """Run `tests` on unmutated code through this executor's own machinery; HarnessError
        unless they all pass (a broken machinery must not pass for killed mutants)."""
        ...

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        """Run `jobs`, calling `on_verdict` once per job as its verdict comes in."""
        ...


class IdleWork(Protocol):
    """Jobs for workers that the baseline's last chunks leave idle (harness.speculation.Speculation)."""

    def chunk_done(self, verdict: Verdict) -> None:
        """A baseline chunk's verdict, as it comes in."""
        ...

    def next_job(self) -> Job | None:
        """A job for an idle worker, or None for now."""
        ...

    def job_done(self, job: Job, verdict: Verdict) -> None:
        """The verdict of a job `next_job` gave; a timeout is not confirmed (the pool runs the job
        once): it proves no hang, and the mutant must run again, confirmed, to get a verdict."""
        ...

    def width(self, workers: int) -> int:
        """How many of the pool's `workers` may run the baseline's chunks now: all of them, or
        fewer while the run's own process still needs a core (harness.early_baseline)."""
        ...



@runtime_checkable
class Draining(Protocol):
    """An executor that can give idle workers jobs while its baseline's last chunks drain (the fork pool)."""

    @property
    def drains(self) -> bool:
        """Whether `baseline_with` gives idle workers jobs (an executor in a copy says for the one in
        it); such an executor's baseline may run on a thread of its own while the run goes on
        (harness.early_baseline): it starts no worker once it is left."""
        ...

    def baseline_with(self, idle_work: IdleWork) -> Baseline:
        """`baseline()`, giving `idle_work`'s jobs to workers that have no chunk left to run."""
        ...


ExecutorFactory = Callable[[WorkerSetup, RunOptions], Executor]


def log_dir(options: RunOptions) -> Path:
    """Where fork-server workers write their stderr: a worker that dies is explained there."""
    return options.root / ".bugsmith" / "logs"


