"""The Executor protocol: what runs jobs for the coordinator, and the one table that picks it.

Every executor runs the same jobs (harness.protocol) and gives the same verdicts:

| kind         | implementation                        | where a job runs                               |
| ------------ | ------------------------------------- | ---------------------------------------------- |
| `fork`       | harness.fork_pool.ForkPool             | a fork of a long-lived worker on this machine  |
| `subprocess` | harness.subprocess_pool.SubprocessPool | a fresh interpreter on this machine            |
| `dask`       | harness.distributed.DaskExecutor       | a fork-server pool on a Dask cluster's workers |

`fork` is the default; `--isolation subprocess` picks the portable mode, `--executor dask` a
cluster. The runner, the exercise evaluator and triage take an Executor from `open_executor`
(or a caller's factory) and never ask which one they hold. The rule all of them share, that a
timeout on a loaded machine gets one longer second run, lives here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from bugsmith.errors import HarnessError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.protocol import Job, TestResult, Verdict, WorkerSetup

if TYPE_CHECKING:
    from bugsmith.harness.baseline import Baseline

OnVerdict = Callable[[Job, Verdict], None]
# Rewrites a job just before it first starts (the adaptive test order); a confirmation or a
# retry of it is not prepared again: it keeps the order its timeout or death is known in.
Prepare = Callable[[Job], Job]

# Every timeout is confirmed once with this many times the limit: a process starved on a loaded
# machine, and a mutant that only makes a test slower (plain pytest would pass it), must not be
# called a hang, while a mutant that loops forever costs one more, longer wait.
TIMEOUT_CONFIRMATION = 2.0
# A mutant that hangs several tests is re-run at most this many times, each time with the test it
# hung last, before it stands as a timeout.
MAX_CONFIRMATIONS = 3
# A process that ran out of time and used at least this share of it on the CPU (less the time it
# waited for a core) was busy (a loop), not asleep: its confirmation may keep the other tests'
# short first-run limits (confirm_timeout). Not a verdict's threshold, a cost's: a process
# called busy that was not costs at most the confirmations' probes before the last one gives
# every test the longer limit, while a loop called asleep re-runs every test at the longer
# limit at once.
HAD_THE_CPU = 0.5


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


class Spare(Protocol):
    """Work for workers that the baseline leaves idle (harness.speculation.Speculation)."""

    def chunk_done(self, verdict: Verdict) -> None:
        """A baseline chunk's verdict, as it comes in."""
        ...

    def next_job(self) -> Job | None:
        """A job for an idle worker, or None for now."""
        ...

    def settle(self, job: Job, verdict: Verdict) -> None:
        """The verdict of a job `next_job` gave; a timeout is not confirmed (the pool runs the job
        once): it proves no hang, and the mutant must run again, confirmed, to get a verdict."""
        ...

    def width(self, workers: int) -> int:
        """How many of the pool's `workers` may run the baseline's chunks now: all of them, or
        fewer while the run's own process still needs a core (harness.early_baseline)."""
        ...


@runtime_checkable
class Draining(Protocol):
    """An executor that can run spare jobs while its baseline's last chunks drain (the fork pool)."""

    @property
    def drains(self) -> bool:
        """Whether `baseline_with` gives spare jobs (an executor in a copy says for the one in
        it); such an executor's baseline may run on a thread of its own while the run goes on
        (harness.early_baseline): it starts no worker once it is left."""
        ...

    def baseline_with(self, spare: Spare) -> Baseline:
        """`baseline()`, giving `spare`'s jobs to workers that have no chunk left to run."""
        ...


ExecutorFactory = Callable[[WorkerSetup, RunOptions], Executor]


def log_dir(options: RunOptions) -> Path:
    """Where fork-server workers write their stderr: a worker that dies is explained there."""
    return options.root / ".bugsmith" / "logs"


# Imports inside the builders: the pools import this module for the protocol's types, and Dask
# is an optional extra that only `--executor dask` may require.
# The local executors run in a private copy of the project (harness.copy_executor): a mutant
# cannot damage the user's tree.
def _fork(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    from bugsmith.harness.copy_executor import InCopy
    from bugsmith.harness.fork_pool import ForkPool

    if options.sandbox is not None:  # the sandbox's read-only view is the protection: no copy to make
        return ForkPool(setup, options.jobs, log_dir(options), options.sandbox)
    return InCopy(setup, lambda moved: ForkPool(moved, options.jobs, log_dir(options), preload=options.preload))


def _subprocess(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    from bugsmith.harness.copy_executor import InCopy
    from bugsmith.harness.subprocess_pool import SubprocessPool

    if options.sandbox is not None:
        return SubprocessPool(setup, options.jobs, options.sandbox)
    return InCopy(setup, lambda moved: SubprocessPool(moved, options.jobs))


def _dask(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    from bugsmith.harness.distributed import DaskExecutor

    if options.sandbox is not None:  # its workers run on other machines, outside any sandbox of ours
        raise HarnessError("a sandboxed run (untrusted tests) cannot go to a Dask cluster")
    return DaskExecutor(setup, address=scheduler)


EXECUTORS: dict[str, Callable[[WorkerSetup, RunOptions, str | None], Executor]] = {
    "fork": _fork,
    "subprocess": _subprocess,
    "dask": _dask,
}


def open_executor(kind: str, setup: WorkerSetup, options: RunOptions, scheduler: str | None = None) -> Executor:
    """A new, not yet entered executor of `kind` for the project `setup` describes."""
    return EXECUTORS[kind](setup, options, scheduler)


def local_executor(setup: WorkerSetup, options: RunOptions) -> Executor:
    """The executor on this machine that the options' isolation asks for: fork or subprocess."""
    return open_executor(options.isolation, setup, options)


def executor_factory(kind: str, scheduler: str | None = None) -> ExecutorFactory:
    """A factory for `harness.run(..., executor_factory=...)` that opens executors of `kind`."""
    return lambda setup, options: open_executor(kind, setup, options, scheduler)


def had_the_cpu(verdict: Verdict) -> bool:
    """Whether the process that ran out of time ran for (nearly) all of it, of the time it was
    not kept waiting for a core (`Verdict.waited`, on a loaded machine): a busy loop, not a
    process that sleeps or one starved where the waits are unknown. Unknown counts as starved."""
    return verdict.cpu is not None and verdict.cpu >= HAD_THE_CPU * (verdict.elapsed - verdict.waited)


def confirm_timeout(job: Job, verdict: Verdict | None = None, *, done: int = 0, first: Job | None = None) -> Job:
    """The job that confirms `verdict`, a timeout of `job` after `done` confirmations of `first`
    (the job as it first ran): the test that ran past its limit moved to the end at
    TIMEOUT_CONFIRMATION times its own limit, so that a mutant that hangs one test and fails
    another is killed whichever of the two its first order put first (plain pytest, given the
    time, reports the failure too).

    When the process had the CPU (`had_the_cpu`), the tests not yet seen to hang keep the short
    limit of a first run (`Job.probes`): one that hangs too costs no more than that, and is moved
    to the end, at the longer limit, by the next confirmation. After a starved run, and in the
    last confirmation (MAX_CONFIRMATIONS), every test gets the longer limit: a timeout stands
    only on a test that ran past it, so a starved process or a test the mutant only slows down
    is never a hang.

    The tests that passed in `verdict` before the one that hung are not run again (their
    results are `carried_over` into the verdict that ends the chain, `with_carried`): a mutant
    that slows one test down after eighty that pass paid for those eighty once per confirmation,
    up to four times in all. A test's result is taken not to depend on the tests run before it,
    as the adaptive order (harness.runner.KillOrder) already takes it."""
    first = first or job
    own = dict(zip(first.tests, first.limits, strict=True)) if len(first.limits) == len(first.tests) else {}
    probe = dict(zip(first.tests, first.probes, strict=True)) if len(first.probes) == len(first.tests) else own
    tests, limits = job.tests, job.limits
    stuck = None if verdict is None else verdict.running
    if stuck in tests and len(limits) == len(tests) and set(tests) <= own.keys():
        position = tests.index(stuck)
        passed = {result.id for result in verdict.results if result.outcome == "passed"} if verdict else set()
        tests = tuple(test for test in tests[:position] if test not in passed) + tests[position + 1:] + (stuck,)
        moved = set(tests[len(tests) - done - 1:])  # this one and those earlier confirmations moved
        every = done + 1 >= MAX_CONFIRMATIONS or verdict is None or not had_the_cpu(verdict)
        limits = tuple(own[test] * TIMEOUT_CONFIRMATION if every or test in moved else probe[test]
                       for test in tests)
    elif not done:  # stopped outside any test (the import, the collection): everything, once
        limits = tuple(limit * TIMEOUT_CONFIRMATION for limit in limits)
    return replace(job, tests=tests, limits=limits, probes=(), timeout=first.timeout * TIMEOUT_CONFIRMATION)


def carried_over(verdict: Verdict, confirmation: Job) -> tuple[TestResult, ...]:
    """The results of `verdict`, a timed-out run, that its `confirmation` does not run again."""
    again = set(confirmation.tests)
    return tuple(result for result in verdict.results if result.id not in again)


def with_carried(job: Job, verdict: Verdict, carried: tuple[TestResult, ...], first: Job) -> tuple[Job, Verdict]:
    """The last run of a confirmation chain (`job`, `verdict`) as if it had run the `carried`
    tests first too (they passed in an earlier run of the chain, in that order): every test of
    `first`, the job as it first ran, with its own limit, and every result."""
    if not carried:
        return job, verdict
    ahead = tuple(result.id for result in carried)
    own = dict(zip(first.tests, first.limits, strict=True)) if len(first.limits) == len(first.tests) else {}
    limits = job.limits
    if len(limits) == len(job.tests) and set(ahead) <= own.keys():
        limits = tuple(own[test] for test in ahead) + limits
    return (replace(job, tests=ahead + job.tests, limits=limits),
            replace(verdict, results=carried + verdict.results))


def next_confirmation(job: Job, verdict: Verdict, done: int, first: Job | None = None) -> Job | None:
    """The run that confirms `verdict`, a timeout of `job` after `done` confirmations of `first`
    (the job as it first ran; `job` itself when `done` is 0), or None when it stands: after the
    first, a timeout is re-run only while it stopped in a test not yet moved to the end (the
    last `done` tests), up to MAX_CONFIRMATIONS; so a timeout means every test that was not seen
    to hang passed, and the test it stands on ran past the longer limit."""
    if not verdict.timed_out or done >= MAX_CONFIRMATIONS:
        return None
    if done and (verdict.running not in job.tests or job.tests.index(verdict.running) >= len(job.tests) - done):
        return None
    return confirm_timeout(job, verdict, done=done, first=first)
