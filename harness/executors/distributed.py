"""The Dask executor: the same jobs, sent in batches to a Dask cluster.

The `dask` row of harness.executors.base's table. Each thread of each Dask worker keeps one
fork-server pool (harness.executors.fork_pool.ForkPool) for the length of a run, so the suite is
collected once per thread, not once per batch; a ForkPool serves one caller at a time, and a
`dask worker` runs as many batches at once as it has threads. The pools hang off a worker
plugin registered for this run only: unregistering it at the end of the run (or closing the
worker) stops them, and the next run collects fresh code.

The project must be at the same path on every machine (a shared or identical checkout): a job
carries the mutated file's text, but the tests, fixtures and the rest of the package are
imported from `setup.root` on the worker. That is simpler and faster than shipping a tree with
every batch, and it is how clusters usually see code (a shared file system or an image). As on
one machine, the tests run in a private copy of that checkout (harness.executors.in_copy), which
each pool makes from the checkout it sees: a mutant cannot damage the tree the cluster shares.

No task is pinned to a worker. The control run (unmutated code through the machinery) happens
in every pool before its first batch, so a worker that joins or restarts mid-run is checked
like the others, and a worker that leaves never strands a task that only it could run.

Results stream back batch by batch into the caller's `on_verdict`, which stores them in the
same SQLite store as a local run. A Dask worker that dies mid-batch loses nothing: the
scheduler reruns the batch elsewhere, and only the rerun's verdicts come back, once. A batch
Dask loses outright (its future never completes) is sent again once no batch has come back for
longer than the slowest batch may take.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bugsmith.errors import BugsmithError, ConfigError, HarnessError
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.executors.base import OnVerdict, Prepare
from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.executors.in_copy import InCopy
from bugsmith.harness.executors.subprocess_pool import SubprocessPool
from bugsmith.harness.shared.protocol import STRETCH, Job, Verdict, WorkerSetup

if TYPE_CHECKING:
    from distributed import WorkerPlugin as _PluginBase
else:
    try:  # the plugin must subclass Dask's, but Dask is optional: require_dask says how to get it
        from distributed import WorkerPlugin as _PluginBase
    except ImportError:  # pragma: no cover - exercised only without the extra
        _PluginBase = object

INSTALL_HINT = "the dask executor needs Dask: pip install 'bugsmith[dask]'"
BATCH_LIMIT = 16
BATCHES_PER_THREAD = 8
WORKER_WAIT = 60.0  # seconds for a first Dask worker to join the scheduler
START_SLACK = 120.0  # seconds a new pool may take to start and collect the suite, beyond its control run
RESENDS = 2  # times a batch that never came back is sent again before the run fails


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return distributed


def require_dask(scheduler: str | None) -> None:
    """ConfigError unless Dask is installed and a scheduler (tcp://host:8786) is given: checked
    at once, before anything starts (harness.executors.table)."""
    _distributed()
    if not scheduler:
        raise ConfigError("--executor dask needs --scheduler tcp://HOST:8786")


class PoolPlugin(_PluginBase):
    """Lives on every Dask worker for one run and owns that worker's fork-server pools."""

    def __init__(self) -> None:
        self.pools: dict[tuple[str, int], InCopy] = {}
        self.closed = False
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (PoolPlugin, ())  # pools and locks belong to one worker: each starts empty

    def setup(self, worker: Any) -> None:
        return None

    def teardown(self, worker: Any) -> None:
        with self._lock:
            self.closed = True
            pools, self.pools = list(self.pools.values()), {}
        for pool in pools:
            pool.__exit__(None, None, None)

    def pool(self, setup: WorkerSetup, control: Control) -> InCopy:
        """This thread's pool for this project, started and control-checked on first use."""
        identity = json.dumps([setup.to_dict(), control.to_dict()], sort_keys=True)
        digest = hashlib.sha256(identity.encode()).hexdigest()
        key = (digest, threading.get_ident())
        pool = self.pools.get(key)
        if pool is None:
            pool = _started_pool(setup, control, _log_dir(digest))
            with self._lock:
                self.pools[key] = pool
        return pool


@dataclass(frozen=True, slots=True, kw_only=True)
class Control:
    """The control run every pool makes before its first batch: these tests must pass unmutated."""

    tests: tuple[str, ...]
    timeout: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _log_dir(digest: str) -> Path:
    # Per process and thread: the workers of two pools must not share a log file.
    thread = f"{os.getpid()}-{threading.get_ident()}"
    return Path(tempfile.gettempdir()) / "bugsmith-dask" / digest[:12] / thread


def _started_pool(setup: WorkerSetup, control: Control, log_dir: Path) -> InCopy:
    pool = InCopy(setup, lambda moved: ForkPool(moved, 1, log_dir))
    try:
        pool.__enter__()
        pool.control(control.tests, control.timeout)
    except BaseException:
        pool.__exit__(None, None, None)
        raise
    return pool


def run_batch(plugin: str, setup: WorkerSetup, control: Control, jobs: list[Job]) -> list[Verdict]:
    """Runs on a Dask worker: the verdicts of a batch of jobs. Dask pickles the records both ways
    (bugsmith is installed on every worker: it runs the pools)."""
    owner: PoolPlugin | None = _distributed().get_worker().plugins.get(plugin)
    verdicts: list[Verdict] = []
    collect = lambda job, verdict: verdicts.append(verdict)  # noqa: E731
    if owner is None:  # the plugin has not reached this worker yet: a pool for this batch only
        pool = _started_pool(setup, control, _log_dir("no-plugin"))
    else:
        pool = owner.pool(setup, control)
    try:
        pool.run(jobs, collect)
    finally:
        if owner is None or owner.closed:  # torn down mid-batch: stop what the pool restarted
            pool.__exit__(None, None, None)
    return verdicts


class DaskExecutor:
    """An Executor (harness.executors.base) on a Dask cluster: `control` then `run`, like the local
    fork pool, with one fork-server pool per thread of every Dask worker."""

    def __init__(self, setup: WorkerSetup, *, address: Any = None, client: Any = None) -> None:
        self.setup = setup
        self._address = address
        self._client = client
        self._owns_client = client is None
        self._plugin = f"bugsmith-pools-{uuid.uuid4().hex}"  # one per run: fresh code each run
        self._control = Control(tests=(), timeout=0.0)

    def __enter__(self) -> DaskExecutor:
        distributed = _distributed()
        if self._client is None:
            try:
                self._client = distributed.Client(self._address, timeout="30s")
            except OSError as error:
                raise ConfigError(
                    f"cannot reach the Dask scheduler {self._address}: {error}") from None
        try:
            self._client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            self.__exit__()
            raise ConfigError(
                f"no Dask worker joined the scheduler within {WORKER_WAIT:.0f} s; "
                "start one with `dask worker tcp://HOST:8786`") from None
        self._client.register_plugin(PoolPlugin(), name=self._plugin)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is None:
            return
        try:
            self._client.unregister_worker_plugin(self._plugin)
        except Exception:  # noqa: BLE001 - never registered, or the cluster is already gone
            pass
        if self._owns_client:
            self._client.close()

    def baseline(self) -> Baseline:
        """The suite once in a fresh interpreter on this machine, which has the same checkout: a
        run that needs a baseline has no pool on the cluster yet to share it with."""
        with InCopy(self.setup, lambda moved: SubprocessPool(moved, 1)) as here:  # its baseline: one interpreter
            return here.baseline()

    def control(self, tests: Sequence[str], timeout: float) -> None:
        """Remember the control run for every pool, and prove it passes on one worker now."""
        self._control = Control(tests=tuple(tests), timeout=timeout)
        self.run([], lambda job, verdict: None)

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        """`prepare` (adaptive test order) is ignored: batches are formed before they run.

        Jobs go out in batches; with no jobs, one empty batch proves the control run passes.
        When no batch comes back for longer than the slowest batch may take, the batches still
        out are sent again: under load Dask can lose a batch in a gather race ("Couldn't gather
        keys, rescheduling") and its future then never completes. The first answer wins.
        """
        batches = list(self._batches(jobs)) or [[]]
        patience = _patience(batches, self._control)
        futures = {self._submit(batch): index for index, batch in enumerate(batches)}
        out, answered = set(futures), set[int]()
        sent = [1] * len(batches)
        try:
            while len(answered) < len(batches):
                finished = self._first_finished(out, patience)
                if not finished:
                    for index in set(range(len(batches))) - answered:
                        if sent[index] > RESENDS:
                            raise HarnessError(f"a batch of {len(batches[index])} mutants never came back "
                                               f"from the Dask cluster ({sent[index]} tries, {patience:.0f} s each)")
                        sent[index] += 1
                        future = self._submit(batches[index])
                        futures[future] = index
                        out.add(future)
                    continue
                for future in finished:
                    out.discard(future)
                    index = futures[future]
                    if index not in answered:
                        answered.add(index)
                        _deliver(batches[index], _result(future), on_verdict)
        finally:
            self._client.cancel(list(futures))  # after a failure or a resend, stop what is still out

    def _submit(self, batch: list[Job]) -> Any:
        return self._client.submit(run_batch, self._plugin, self.setup, self._control, batch, pure=False)

    def _first_finished(self, out: set[Any], patience: float) -> set[Any]:
        """The futures of `out` that are done, waiting up to `patience` seconds for the first."""
        try:
            done, _ = _distributed().wait(list(out), timeout=patience, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return set(done)

    def _batches(self, jobs: Sequence[Job]) -> Iterator[list[Job]]:
        # About eight batches per thread: each batch has a fixed cost in Dask, but coarser batches
        # left threads idle at the end of a run (one slow mutant holds up its whole batch).
        threads = max(1, sum(self._client.nthreads().values()))
        size = max(1, min(BATCH_LIMIT, len(jobs) // (threads * BATCHES_PER_THREAD)))
        for start in range(0, len(jobs), size):
            yield list(jobs[start : start + size])


def _patience(batches: Sequence[Sequence[Job]], control: Control) -> float:
    """The longest a batch may take on a fresh pool: every job at its limit twice (a timeout is
    confirmed by a re-run), stretched as far as a loaded machine may stretch a test's limit
    (STRETCH), after the pool's start-up and control run."""
    worst = max(sum(2 * STRETCH * max(job.timeout, sum(job.limits)) for job in batch) for batch in batches)
    return worst + 2 * control.timeout + START_SLACK


def _result(future: Any) -> list[Verdict]:
    try:
        return future.result()
    except BugsmithError:
        raise
    except Exception as error:  # noqa: BLE001 - e.g. KilledWorker: it killed worker after worker
        raise HarnessError(
            f"a batch failed on the Dask cluster: {type(error).__name__}: {error}") from error


def _deliver(batch: list[Job], verdicts: list[Verdict], on_verdict: OnVerdict) -> None:
    """One verdict per job of the batch: none twice, and a missing one is an error, not a pass."""
    by_id = {job.mutant_id: job for job in batch}
    for verdict in verdicts:
        job = by_id.pop(verdict.mutant_id, None)
        if job is not None:
            on_verdict(job, verdict)
    for job in by_id.values():
        on_verdict(job, Verdict(mutant_id=job.mutant_id, error="no verdict came back from Dask"))
