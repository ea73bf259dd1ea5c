"""The Dask executor gives the local executor's verdicts, even when a Dask worker dies."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

import harness
from harness.cli import main
from harness.config import resolve
from harness.distributed import INSTALL_HINT, DaskExecutor

from test_run import EXPECTED
from toyproject import TOY_MUTATORS, by_source


@pytest.fixture
def cluster():
    """A client of 2 single-threaded Dask worker processes, each restarted by its nanny if it dies."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        with distributed.Client(local) as client:
            yield client


def _on(client):
    return lambda setup, options: DaskExecutor(setup, client=client)


def _executing(dask_worker) -> int:
    return len(dask_worker.state.executing)


def _outcome_count(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]


@pytest.mark.slow
def test_dask_verdicts_equal_local_verdicts(project: Path, cluster) -> None:
    """A LocalCluster of 2 workers gives exactly the verdicts of the local fork pool, using both."""
    distributed = pytest.importorskip("distributed")
    local = by_source(harness.run(resolve(project), mutators=TOY_MUTATORS))
    (project / ".bugsmith").rename(project / ".bugsmith-local")
    with distributed.get_task_stream(cluster) as stream:
        remote = by_source(harness.run(resolve(project), mutators=TOY_MUTATORS, executor_factory=_on(cluster)))
    assert remote == local
    assert len({task["worker"] for task in stream.data}) == 2


@pytest.mark.slow
def test_a_worker_killed_mid_batch_loses_nothing(project: Path, cluster) -> None:
    """SIGKILL a Dask worker while it runs a batch: the batch reruns elsewhere, and every mutant
    gets its one right verdict, stored in SQLite before it is reported."""
    pids = cluster.run(os.getpid)
    store = project / ".bugsmith" / "bugsmith.sqlite"
    killed: list[str] = []
    reported: list[tuple[int, int]] = []

    def on_progress(event) -> None:
        reported.append((event.done, _outcome_count(store)))
        if not killed:
            busy = [address for address, running in cluster.run(_executing).items() if running]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])

    result = harness.run(resolve(project, timeout_factor=2.0), mutators=TOY_MUTATORS,
                         executor_factory=_on(cluster), progress=on_progress)
    ids = [outcome.mutant_id for outcome in result.outcomes]
    assert killed, "no batch was running when verdicts came back"
    assert len(ids) == len(set(ids)) == len(result.mutants)
    assert by_source(result) == EXPECTED
    first = reported[0][0]
    assert reported == [(done, done) for done in range(first, len(result.mutants) + 1)]


def test_without_dask_the_executor_says_how_to_install(project: Path, monkeypatch, capsys) -> None:
    """With Dask not importable, `bugsmith run --executor dask` exits 2 with the pip command and
    does no work first."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    monkeypatch.delitem(sys.modules, "harness.distributed")  # re-imported without Dask
    monkeypatch.delattr(harness, "distributed")
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "argv", ["bugsmith", "run", "--executor", "dask",
                                      "--scheduler", "tcp://127.0.0.1:8786"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"bugsmith: error: {INSTALL_HINT}\n"
    assert "pip install 'bugsmith[dask]'" in INSTALL_HINT
    assert not (project / ".bugsmith").exists()
