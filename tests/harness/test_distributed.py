"""The Dask executor gives the local executor's verdicts, even when a Dask worker dies."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest
from test_run import EXPECTED
from toyproject import TOY_MUTATORS, by_source

from bugsmith import harness
from bugsmith.harness.cli import main
from bugsmith.harness.config import resolve
from bugsmith.harness.executors import distributed as distributed_executor
from bugsmith.harness.executors.distributed import INSTALL_HINT, Control, DaskExecutor
from bugsmith.harness.shared.protocol import STRETCH, Job


@pytest.fixture
def cluster():
    """A client of 2 single-threaded Dask worker processes, each restarted by its nanny."""
    import distributed  # in the test extra: a missing Dask fails, never skips
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        with distributed.Client(local) as client:
            yield client


def _on(client):
    return lambda setup, options: DaskExecutor(setup, client=client)


def _pid_if_busy(dask_worker) -> int | None:
    return os.getpid() if dask_worker.state.executing else None


def _kill_a_busy_worker(client) -> int | None:
    """SIGKILL one Dask worker process that is running a task; its pid, or None if none is."""
    pids = [pid for pid in client.run(_pid_if_busy, on_error="ignore").values() if pid]
    if pids:
        os.kill(pids[0], signal.SIGKILL)
    return pids[0] if pids else None


class KillDuringControl:
    """Wraps the Dask executor and kills the worker that runs the control, while it runs it:
    a task pinned to that worker would wait forever for a worker that comes back renamed."""

    def __init__(self, inner: DaskExecutor, killed: list[int]) -> None:
        self.inner = inner
        self.killed = killed

    def __enter__(self) -> KillDuringControl:
        self.inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(*exc)

    def control(self, tests, timeout: float) -> None:
        finished = threading.Event()

        def killer() -> None:
            while not self.killed and not finished.wait(0.02):
                pid = _kill_a_busy_worker(self.inner._client)
                if pid:
                    self.killed.append(pid)

        thread = threading.Thread(target=killer)
        thread.start()
        try:
            self.inner.control(tests, timeout)
        finally:
            finished.set()
            thread.join()

    def baseline(self):
        return self.inner.baseline()

    def run(self, jobs, on_verdict, prepare=None) -> None:
        self.inner.run(jobs, on_verdict, prepare)


def _within(seconds: float, function, **kwargs):
    """`function(**kwargs)`, or a test failure instead of a hung suite if it takes longer: a
    guard against a stranded task, generous enough for a loaded machine, not a speed target."""
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(_capture(function, kwargs)))
    thread.daemon = True  # a stranded run must not hold the test process open
    thread.start()
    thread.join(seconds)
    if not outcome:
        pytest.fail(f"still running after {seconds:.0f} s: a task is stranded")
    value, error = outcome[0]
    if error is not None:
        raise error
    return value


def _capture(function, kwargs):
    try:
        return function(**kwargs), None
    except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
        return None, error


def _harness_workers(root: Path) -> list[int]:
    """Pids of live `python -m bugsmith.harness.child.worker` processes (and their forks) serving `root`."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            serving = os.readlink(proc / "cwd") == str(root.resolve())
            if serving and b"bugsmith.harness.child.worker" in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except (OSError, ValueError):  # gone meanwhile, or not a process
            continue
    return pids


def _outcome_count(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]


@pytest.mark.slow
def test_dask_verdicts_equal_local_verdicts(project: Path, cluster) -> None:
    """A LocalCluster of 2 workers gives exactly the verdicts of the local fork pool, using both."""
    import distributed  # in the test extra: a missing Dask fails, never skips
    local = by_source(harness.run(resolve(project), mutators=TOY_MUTATORS))
    (project / ".bugsmith").rename(project / ".bugsmith-local")
    with distributed.get_task_stream(cluster) as stream:
        remote = by_source(harness.run(resolve(project), mutators=TOY_MUTATORS,
                                       executor_factory=_on(cluster)))
    assert remote == local
    assert len({task["worker"] for task in stream.data}) == 2
    assert _harness_workers(project) == []  # the run's end stopped the pools on the workers


@pytest.mark.slow
def test_workers_killed_mid_run_lose_nothing(project: Path, cluster) -> None:
    """Kill the control's worker, then a busy one: each mutant still gets one right verdict."""
    store = project / ".bugsmith" / "bugsmith.sqlite"
    killed: list[int] = []
    reported: list[tuple[int, int]] = []

    def on_progress(event) -> None:
        if event.stage != "mutants":  # the baseline's start has no verdicts to count
            return
        reported.append((event.done, _outcome_count(store)))
        if len(killed) == 1 and (pid := _kill_a_busy_worker(cluster)):
            killed.append(pid)

    result = _within(
        600, harness.run, options=resolve(project, timeout_factor=2.0), mutators=TOY_MUTATORS,
        progress=on_progress,
        executor_factory=lambda setup, options: KillDuringControl(
            DaskExecutor(setup, client=cluster), killed),
    )
    ids = [outcome.mutant_id for outcome in result.outcomes]
    assert len(killed) == 2, "a kill found no task running"
    assert len(ids) == len(set(ids)) == len(result.mutants)
    assert by_source(result) == EXPECTED
    first = reported[0][0]
    assert reported == [(done, done) for done in range(first, len(result.mutants) + 1)]
    deadline = time.monotonic() + 120  # the killed workers' orphans end at their job's time limit
    while _harness_workers(project) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _harness_workers(project) == []


class LosesFirstBatch:
    """A Dask client that loses the first batch of mutants it is given, as Dask can in a gather
    race under load: that batch's future never completes (its task only sleeps)."""

    def __init__(self, client) -> None:
        self.client = client
        self.lost: list = []

    def __getattr__(self, name: str):
        return getattr(self.client, name)

    def submit(self, function, *args, **kwargs):
        batch = args[-1] if args else None
        if batch and not self.lost:
            self.lost.append(batch)
            return self.client.submit(time.sleep, 600, pure=False)
        return self.client.submit(function, *args, **kwargs)


@pytest.mark.slow
def test_a_batch_that_never_comes_back_is_sent_again(project: Path, cluster, monkeypatch) -> None:
    """A lost batch costs one wait of the slowest batch's time, then is sent again: every mutant
    gets its one right verdict instead of a run that waits forever."""
    # Long enough for a toy batch with its timeout confirmed at load 8: a batch merely slow is
    # not lost, and one resent early changes no verdict.
    monkeypatch.setattr(distributed_executor, "_patience", lambda batches, control: 15.0)
    client = LosesFirstBatch(cluster)
    result = _within(600, harness.run, options=resolve(project), mutators=TOY_MUTATORS,
                     executor_factory=_on(client))
    ids = [outcome.mutant_id for outcome in result.outcomes]
    assert len(client.lost) == 1 and client.lost[0]
    assert len(ids) == len(set(ids)) == len(result.mutants)
    assert by_source(result) == EXPECTED


def test_patience_covers_the_slowest_batch_with_its_confirmations() -> None:
    """The wait before resending covers every job of the slowest batch run twice at its limit,
    stretched as far as a loaded machine stretches a limit (STRETCH), plus the pool's control
    run and start-up: a batch merely slow is never resent."""
    def job(timeout: float, limits: tuple[float, ...] = ()) -> Job:
        return Job(mutant_id="m", module="m", path="/m.py", function=None, source="x = 1\n",
                   tests=("t",), timeout=timeout, limits=limits)
    control = Control(tests=("t",), timeout=4.0)
    slow, fast = [job(3.0), job(1.0, limits=(2.0, 3.0))], [job(1.0)]
    patience = distributed_executor._patience([fast, slow], control)
    assert patience == STRETCH * (2 * 3.0 + 2 * 5.0) + 2 * 4.0 + distributed_executor.START_SLACK
    assert distributed_executor._patience([[]], control) == 2 * 4.0 + distributed_executor.START_SLACK


def test_without_dask_the_executor_says_how_to_install(project: Path, monkeypatch, capsys) -> None:
    """Without Dask, `bugsmith run --executor dask` exits 2 at once, saying how to install it."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "argv", ["bugsmith", "run", "--executor", "dask",
                                      "--scheduler", "tcp://127.0.0.1:8786"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"bugsmith: error: {INSTALL_HINT}\n"
    assert "pip install 'bugsmith[dask]'" in INSTALL_HINT
    assert not (project / ".bugsmith").exists()
