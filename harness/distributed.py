"""The Dask executor: the same jobs, sent in batches to a Dask cluster.

Each Dask worker process keeps one fork-server pool (harness.pool.ForkPool) per project for
its lifetime, so the suite is collected once per Dask worker, not once per batch. The project
must be at the same path on every machine (a shared or identical checkout): a job carries the
mutated file's text, but the tests, fixtures and the rest of the package are imported from
`setup.root` on the worker. That is simpler and faster than shipping a tree with every batch,
and it is how clusters usually see code (a shared file system or an image).

Results stream back batch by batch into the caller's `on_verdict`, which stores them in the
same SQLite store as a local run. A Dask worker that dies mid-batch loses nothing: the
scheduler reruns the batch elsewhere, and a mutant already given a verdict is never given a
second one.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, HarnessError
from harness.pool import ForkPool, OnVerdict
from harness.protocol import Job, Verdict, WorkerSetup

INSTALL_HINT = "the dask executor needs Dask: pip install 'bugsmith[dask]'"
BATCH_LIMIT = 16


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return distributed


def dask_executor(scheduler: str | None):
    """An executor factory for `harness.run` that connects to `scheduler` (tcp://host:8786)."""
    _distributed()
    if not scheduler:
        raise ConfigError("--executor dask needs --scheduler tcp://HOST:8786")

    def factory(setup: WorkerSetup, options: Any) -> DaskExecutor:
        return DaskExecutor(setup, address=scheduler)

    return factory


def _pool_on_this_worker(setup: dict[str, Any]) -> ForkPool:
    """The fork-server pool of this Dask worker process for this project, started once."""
    distributed = _distributed()
    worker = distributed.get_worker()
    pools: dict[str, ForkPool] = worker.__dict__.setdefault("_bugsmith_pools", {})
    key = hashlib.sha256(json.dumps(setup, sort_keys=True).encode()).hexdigest()
    if key not in pools:
        log_dir = Path(tempfile.gettempdir()) / "bugsmith-dask" / key[:12]
        pool = ForkPool(WorkerSetup.from_dict(setup), 1, log_dir)
        pool.__enter__()
        pools[key] = pool
    return pools[key]


def run_batch(setup: dict[str, Any], jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs on a Dask worker: the verdicts of a batch of jobs, as dicts."""
    pool = _pool_on_this_worker(setup)
    verdicts: list[dict[str, Any]] = []
    pool.run([Job.from_dict(job) for job in jobs], lambda job, verdict: verdicts.append(asdict(verdict)))
    return verdicts


class DaskExecutor:
    def __init__(self, setup: WorkerSetup, *, address: Any = None, client: Any = None) -> None:
        self.setup = setup
        self._address = address
        self._client = client
        self._owns_client = client is None

    def __enter__(self) -> DaskExecutor:
        if self._client is None:
            distributed = _distributed()
            try:
                self._client = distributed.Client(self._address, timeout="30s")
            except OSError as error:
                raise ConfigError(f"cannot reach the Dask scheduler {self._address}: {error}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._owns_client and self._client is not None:
            self._client.close()

    def _workers(self) -> int:
        return max(1, len(self._client.scheduler_info().get("workers", {})))

    def control(self, tests: Sequence[str], timeout: float) -> None:
        job = Job(mutant_id="control", module="", path="", function=None, source="",
                  tests=tuple(tests), timeout=timeout)
        for worker in self._client.scheduler_info()["workers"]:
            future = self._client.submit(run_batch, asdict(self.setup), [asdict(job)],
                                         workers=[worker], pure=False)
            verdict = Verdict.from_dict(future.result()[0])
            bad = [r for r in verdict.results if r.get("outcome") != "passed"]
            if bad or verdict.error or verdict.died or verdict.timed_out or verdict.missing:
                raise HarnessError(f"the control run of unmutated code failed on Dask worker {worker}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict) -> None:
        distributed = _distributed()
        size = max(1, min(BATCH_LIMIT, len(jobs) // (self._workers() * 4) or 1))
        batches = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
        setup = asdict(self.setup)
        futures = {
            self._client.submit(run_batch, setup, [asdict(job) for job in batch], pure=False): batch
            for batch in batches
        }
        done: set[str] = set()
        for future in distributed.as_completed(futures):
            by_id = {job.mutant_id: job for job in futures[future]}
            for data in future.result():
                verdict = Verdict.from_dict(data)
                if verdict.mutant_id in done:
                    continue
                done.add(verdict.mutant_id)
                on_verdict(by_id[verdict.mutant_id], verdict)
