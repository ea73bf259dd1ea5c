"""The baseline run by the workers while this process still generates mutants.

A run enters its executor before it generates mutants, so that the workers import and collect
the suite meanwhile. On a library whose suite imports quickly the workers are ready long before
libcst is done, and they would sit idle until the baseline was asked for. `begin` asks for it
at once, from a thread of its own, and `EarlyBaseline.result` is where the run would have run
it.

Only the baseline runs in that thread, on an executor nothing else touches until `result`
returns; the mutants, the store and everything else stay in the calling thread. The
speculation (harness.speculation), which needs the mutants, joins when they exist
(`DeferredIdleWork.attach`): chunks that ended before learn it then. If the run stops before
`result` (an interrupt, an error while generating), closing the executor ends the thread's
work: the fork pool starts no worker once it is closed.

The same thread then runs the control (the unmutated code through the job machinery, which the
mutants need first), while the run's own process looks up stored verdicts and plans the jobs:
neither needs the other, so they run at the same time. The run waits for it
(`EarlyBaseline.controlled`) before it uses the executor again.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.executors.base import Draining, Executor, IdleWork
from bugsmith.harness.shared.protocol import Job, Verdict


class DeferredIdleWork:
    """IdleWork whose jobs exist once the mutants do. Until `attach` it gives none, keeps the
    chunks' verdicts for the IdleWork it is given then, and leaves one worker idle (the core
    generating mutants needs): a third process on two cores slowed libcst by as much as the
    baseline gained."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the baseline's thread calls in, the run's attaches
        self._attached = False
        self._idle_work: IdleWork | None = None
        self._waiting: list[Verdict] = []

    def attach(self, idle_work: IdleWork | None) -> None:
        """The mutants exist: from now on `idle_work` (None: no jobs for idle workers) and every
        worker."""
        with self._lock:
            if idle_work is not None:
                for verdict in self._waiting:
                    idle_work.chunk_done(verdict)
            self._waiting.clear()
            self._idle_work, self._attached = idle_work, True

    def chunk_done(self, verdict: Verdict) -> None:
        with self._lock:
            if not self._attached:
                self._waiting.append(verdict)
            elif self._idle_work is not None:
                self._idle_work.chunk_done(verdict)

    def next_job(self) -> Job | None:
        with self._lock:
            return None if self._idle_work is None else self._idle_work.next_job()

    def job_done(self, job: Job, verdict: Verdict) -> None:
        with self._lock:
            assert self._idle_work is not None, "a job for an idle worker before there is any"
            self._idle_work.job_done(job, verdict)

    def width(self, workers: int) -> int:
        with self._lock:
            if not self._attached:
                return max(1, workers - 1)
            return workers if self._idle_work is None else self._idle_work.width(workers)


class EarlyBaseline:
    """`call()` running in a thread of its own, then `then(baseline)` if it gave one; `result`
    waits for the call and returns what it returned, or raises what it raised; `controlled`
    waits for `then`."""

    def __init__(self, call: Callable[[], Baseline], then: Callable[[Baseline], None] | None = None) -> None:
        self._outcome: Baseline | BaseException | None = None
        self._control: BaseException | None = None
        self._passed = False
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(call, then), name="bugsmith-baseline", daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], Baseline], then: Callable[[Baseline], None] | None) -> None:
        try:
            self._outcome = call()
        except BaseException as error:  # noqa: BLE001 - raised again where the run asks for it
            self._outcome = error
        finally:
            self._ready.set()
        if then is None or not isinstance(self._outcome, Baseline):
            return
        try:
            then(self._outcome)
            self._passed = True
        except BaseException as error:  # noqa: BLE001 - raised again where the run asks for it
            self._control = error

    def done(self) -> bool:
        """Whether the call has returned (or raised): `result` would not wait."""
        return self._ready.is_set()

    def result(self) -> Baseline:
        self._ready.wait()
        if isinstance(self._outcome, BaseException):
            raise self._outcome
        assert self._outcome is not None
        return self._outcome

    def controlled(self) -> bool:
        """Wait for the thread's end: whether `then` ran and returned; raise what it raised."""
        self._thread.join()
        if self._control is not None:
            raise self._control
        return self._passed


@dataclass(frozen=True, slots=True)
class Early:
    """A baseline started early, and the work that tells its workers when the mutants exist."""

    baseline: EarlyBaseline
    idle_work: DeferredIdleWork


def begin(executor: Executor, control: Callable[[Executor, Baseline], None] | None = None) -> Early | None:
    """The baseline the entered `executor` would run, started now, then `control(executor,
    baseline)` in the same thread; `Early.idle_work.attach` once the mutants exist. None but for the
    fork pool (`Draining.drains`): only its use from a second thread is shown safe, as it
    starts no worker once it is left."""
    if not (isinstance(executor, Draining) and executor.drains):
        return None
    late = DeferredIdleWork()
    then = None if control is None else functools.partial(control, executor)
    return Early(EarlyBaseline(lambda: executor.baseline_with(late), then), late)
