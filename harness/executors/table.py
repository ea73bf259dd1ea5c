"""The one table of executors: the CLI's `--executor` choices and every caller's factory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bugsmith.errors import HarnessError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.executors.base import Executor, ExecutorFactory, log_dir
from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.executors.in_copy import InCopy
from bugsmith.harness.executors.subprocess_pool import SubprocessPool
from bugsmith.harness.shared.protocol import WorkerSetup


# The local executors run in a private copy of the project (harness.executors.in_copy): a mutant
# cannot damage the user's tree; a sandboxed run's read-only view is the protection instead.
def _fork(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    if options.sandbox is not None:
        return ForkPool(setup, options.jobs, log_dir(options), options.sandbox)
    return InCopy(setup, lambda moved: ForkPool(moved, options.jobs, log_dir(options), preload=options.preload))


def _subprocess(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    if options.sandbox is not None:
        return SubprocessPool(setup, options.jobs, options.sandbox)
    return InCopy(setup, lambda moved: SubprocessPool(moved, options.jobs))


# The Dask executor is imported when a run asks for it: importing `distributed` costs more than
# the rest of bugsmith together (over a second), which every command and worker would pay.
def _dask(setup: WorkerSetup, options: RunOptions, scheduler: str | None) -> Executor:
    if options.sandbox is not None:  # its workers run on other machines, outside any sandbox of ours
        raise HarnessError("a sandboxed run (untrusted tests) cannot go to a Dask cluster")
    from bugsmith.harness.executors.distributed import DaskExecutor
    return DaskExecutor(setup, address=scheduler)


def _dask_ready(scheduler: str | None) -> None:
    from bugsmith.harness.executors.distributed import require_dask
    require_dask(scheduler)


def _ready(scheduler: str | None) -> None:
    """A local executor needs nothing before it starts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Kind:
    """One executor: how it opens, where its jobs run, and what it checks before anything starts."""

    open: Callable[[WorkerSetup, RunOptions, str | None], Executor]
    local: bool  # on this machine: chosen by `--isolation` under `--executor local`
    check: Callable[[str | None], None] = _ready  # raises ConfigError, given the scheduler's address


EXECUTORS: dict[str, Kind] = {
    "fork": Kind(open=_fork, local=True),
    "subprocess": Kind(open=_subprocess, local=True),
    "dask": Kind(open=_dask, local=False, check=_dask_ready),
}
LOCAL = "local"  # `--executor local`: the local kind the run's isolation names


def executor_choices() -> list[str]:
    """The CLI's `--executor` choices: this machine, then every executor that runs elsewhere."""
    return [LOCAL, *(name for name, kind in EXECUTORS.items() if not kind.local)]


def open_executor(kind: str, setup: WorkerSetup, options: RunOptions, scheduler: str | None = None) -> Executor:
    """A new, not yet entered executor of `kind` for the project `setup` describes."""
    return EXECUTORS[kind].open(setup, options, scheduler)


def local_executor(setup: WorkerSetup, options: RunOptions) -> Executor:
    """The executor on this machine that the options' isolation asks for: fork or subprocess."""
    return open_executor(options.isolation, setup, options)


def executor_factory(kind: str, scheduler: str | None = None) -> ExecutorFactory:
    """A factory for `harness.run(..., executor_factory=...)` that opens executors of `kind`
    (`LOCAL`: the one the run's isolation names), checked at once, before anything starts."""
    if kind == LOCAL:
        return local_executor
    EXECUTORS[kind].check(scheduler)
    return lambda setup, options: open_executor(kind, setup, options, scheduler)
