"""The Dask executor gives the local executor's verdicts, even when a Dask worker dies."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

import harness
from harness.config import resolve
from harness.distributed import DaskExecutor

from toyproject import TOY_MUTATORS, by_source

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        with distributed.Client(local) as client:
            yield client


def _run(project: Path, factory):
    return harness.run(resolve(project), mutators=TOY_MUTATORS, executor_factory=factory)


def test_dask_verdicts_equal_local_verdicts(project: Path, cluster) -> None:
    """A LocalCluster of 2 workers gives exactly the verdicts of the local fork pool."""
    local = by_source(_run(project, None))
    (project / ".bugsmith").rename(project / ".bugsmith-local")
    remote = by_source(_run(project, lambda setup, options: DaskExecutor(setup, client=cluster)))
    assert remote == local


def test_a_worker_killed_mid_run_loses_nothing(project: Path, cluster) -> None:
    """SIGKILL one Dask worker during the run: every mutant still gets exactly one verdict."""
    pids = cluster.run(os.getpid)
    seen: list[str] = []

    def kill_one_soon() -> None:
        threading.Event().wait(3.0)
        os.kill(next(iter(pids.values())), signal.SIGKILL)

    killer = threading.Thread(target=kill_one_soon)
    killer.start()
    result = harness.run(
        resolve(project), mutators=TOY_MUTATORS,
        executor_factory=lambda setup, options: DaskExecutor(setup, client=cluster),
        progress=lambda event: seen.append(event.done),
    )
    killer.join()
    ids = [outcome.mutant_id for outcome in result.outcomes]
    assert len(ids) == len(set(ids)) == len(result.mutants)
    assert seen == sorted(seen) and len(seen) == len(set(seen))
