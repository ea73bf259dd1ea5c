"""The baseline run while mutants are generated (harness.early_baseline): the idle workers' jobs
join late and learn what they missed, a result comes back as the call gave it, the run's workers
start the baseline before libcst is done, leaving the pool mid-baseline ends the thread's work,
and the control run that follows the baseline in its thread proves its executor, or fails the
run where that executor would run jobs."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import libcst as cst
import libcst.matchers as m
import pytest
from toyproject import CALC, TESTS

from bugsmith import harness
from bugsmith.errors import BaselineError, HarnessError
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import resolve
from bugsmith.harness.early_baseline import DeferredIdleWork, EarlyBaseline, begin
from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.mutation_run.executor_lifecycle import Executors
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.mutators.base import Family, Mutator


class Recording:
    """IdleWork that records what it is told and gives `jobs` one by one."""

    def __init__(self, jobs: list[Job]) -> None:
        self.jobs = jobs
        self.chunks: list[str] = []
        self.done: list[str] = []

    def chunk_done(self, verdict: Verdict) -> None:
        self.chunks.append(verdict.mutant_id)

    def next_job(self) -> Job | None:
        return self.jobs.pop(0) if self.jobs else None

    def job_done(self, job: Job, verdict: Verdict) -> None:
        self.done.append(job.mutant_id)

    def width(self, workers: int) -> int:
        return workers


def test_deferred_idle_work_gives_nothing_until_attached_then_learns_every_chunk_in_order() -> None:
    """Until the mutants exist, no job for an idle worker and one worker fewer (the generating
    process keeps a core); then the attached work's jobs, every worker, and the chunks it missed."""
    late = DeferredIdleWork()
    late.chunk_done(Verdict(mutant_id="baseline-0"))
    late.chunk_done(Verdict(mutant_id="baseline-1"))
    assert late.next_job() is None
    assert (late.width(2), late.width(4), late.width(1)) == (1, 3, 1)
    work = Recording([Job.unmutated("m", ("t",), 1.0)])
    late.attach(work)
    assert late.width(2) == 2
    assert work.chunks == ["baseline-0", "baseline-1"]  # what it missed, at once
    late.chunk_done(Verdict(mutant_id="baseline-2"))
    job = late.next_job()
    assert job is not None and job.mutant_id == "m"
    late.job_done(job, Verdict(mutant_id="m"))
    assert work.chunks[-1] == "baseline-2" and work.done == ["m"] and late.next_job() is None


def test_deferred_idle_work_attached_to_nothing_frees_every_worker_and_gives_no_job() -> None:
    late = DeferredIdleWork()
    late.chunk_done(Verdict(mutant_id="baseline-0"))
    late.attach(None)  # a narrowed (warm) baseline: no speculation
    late.chunk_done(Verdict(mutant_id="baseline-1"))
    assert late.width(2) == 2 and late.next_job() is None


def test_an_early_baseline_returns_what_its_call_gave_or_raises_what_it_raised() -> None:
    done = Baseline(tests=(), lines={}, duration=0.0)
    assert EarlyBaseline(lambda: done).result() is done

    def red() -> Baseline:
        raise BaselineError("1 test fails on the unmutated code")

    with pytest.raises(BaselineError, match="fails on the unmutated code"):
        EarlyBaseline(red).result()


def test_the_control_runs_after_the_baseline_in_its_thread_without_holding_the_result_back() -> None:
    done = Baseline(tests=(), lines={}, duration=0.0)
    go, seen = threading.Event(), []

    def control(baseline: Baseline) -> None:
        seen.append((baseline is done, go.wait(30)))  # released only once `result` has returned

    early = EarlyBaseline(lambda: done, control)
    assert early.result() is done
    go.set()
    assert early.controlled() is True
    assert seen == [(True, True)]


def test_a_control_that_fails_is_raised_where_asked_and_a_red_baseline_runs_none() -> None:
    done = Baseline(tests=(), lines={}, duration=0.0)

    def broken(baseline: Baseline) -> None:
        raise HarnessError("the control run of unmutated code failed in a worker: boom")

    early = EarlyBaseline(lambda: done, broken)
    assert early.result() is done  # the baseline itself stands
    with pytest.raises(HarnessError, match="boom"):
        early.controlled()

    ran = []

    def red() -> Baseline:
        raise BaselineError("1 test fails on the unmutated code")

    early = EarlyBaseline(red, ran.append)
    with pytest.raises(BaselineError):
        early.result()
    assert early.controlled() is False and ran == []  # no control of a suite that is not green


class Counted:
    """An executor that counts its control runs (and may fail them)."""

    def __init__(self, fails: bool = False) -> None:
        self.controls, self.fails, self.left = 0, fails, False

    def __enter__(self) -> Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.left = True

    def control(self, tests: object, timeout: float) -> None:
        self.controls += 1
        if self.fails:
            raise HarnessError("the control run of unmutated code failed in a worker: boom")


def _executors(made: list[Counted], fails: bool = False) -> Executors:
    def factory(setup: WorkerSetup, options: Any) -> Counted:
        made.append(Counted(fails))
        return made[-1]

    setup = WorkerSetup(root="/nowhere", pytest_args=(), test_paths=("tests",), sources=(), memory_limit_mb=1024)
    return Executors(factory, setup, SimpleNamespace(jobs=2))  # type: ignore[arg-type]


def _control(executor: Any) -> None:
    executor.control((), 1.0)


def test_an_executor_whose_control_passed_in_the_baseline_thread_runs_none_again() -> None:
    made: list[Counted] = []
    executors = _executors(made)
    executor = executors.get()
    early = EarlyBaseline(lambda: Baseline(tests=(), lines={}, duration=0.0), lambda b: _control(executor))
    executors.control_in(early, executor)
    assert executors.controlled(_control) is executor
    assert executors.controlled(_control) is executor  # a second batch of jobs (the rest of cut jobs)
    assert made[0].controls == 1  # the thread's, and no other


def test_a_control_failed_in_the_thread_fails_the_run_where_its_executor_would_run_jobs() -> None:
    made: list[Counted] = []
    executors = _executors(made, fails=True)
    executor = executors.get()
    early = EarlyBaseline(lambda: Baseline(tests=(), lines={}, duration=0.0), lambda b: _control(executor))
    executors.control_in(early, executor)
    executors.wait_for_control()  # the run's end waits for the thread, and raises nothing there
    with pytest.raises(HarnessError, match="boom"):
        executors.controlled(_control)


def test_a_widened_executor_is_controlled_anew_once_the_thread_left_the_narrow_one() -> None:
    made: list[Counted] = []
    executors = _executors(made)
    executors.narrow(("tests/test_a.py::test_x",))
    narrow = executors.get()
    go = threading.Event()

    def slow_control(baseline: Baseline) -> None:
        go.wait(30)
        _control(narrow)

    early = EarlyBaseline(lambda: Baseline(tests=(), lines={}, duration=0.0), slow_control)
    executors.control_in(early, narrow)
    threading.Timer(0.2, go.set).start()
    executors.widen()  # waits for the thread before it leaves the narrow executor
    assert narrow.controls == 1 and narrow.left
    wide = executors.controlled(_control)
    assert wide is made[1] and wide is not narrow and wide.controls == 1


def test_only_an_executor_that_drains_starts_early() -> None:
    class Plain:  # an executor with no baseline_with (a subprocess pool, a Dask cluster)
        def baseline(self) -> Baseline:
            raise AssertionError("must not run")

    assert begin(Plain()) is None  # type: ignore[arg-type]


def _setup(root: Path) -> WorkerSetup:
    return WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",),
                       sources=(str(root / "calcpkg" / "calc.py"),), memory_limit_mb=1024)


@pytest.mark.slow
def test_the_pool_runs_the_baseline_while_the_caller_goes_on(project: Path, tmp_path: Path) -> None:
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        early = begin(pool)
        assert early is not None
        work = Recording([])
        deadline = time.monotonic() + 60
        while not early.baseline.done() and time.monotonic() < deadline:
            time.sleep(0.05)  # the caller's own work (generating mutants), never asking
        assert early.baseline.done()  # it ran to its end with nobody waiting on it
        early.idle_work.attach(work)
        baseline = early.baseline.result()
    assert {t.id.split("::")[1] for t in baseline.tests} >= {"test_clamp", "test_total", "test_spin"}
    assert work.chunks  # the chunks it finished before the work existed were passed on


@pytest.mark.slow
def test_leaving_the_pool_mid_baseline_ends_the_thread_and_starts_no_worker(project: Path, tmp_path: Path) -> None:
    """A baseline that hangs (a test that sleeps) when the run is interrupted: leaving the pool
    kills its workers, and the thread, seeing them die, replaces none and ends."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_sleeps():\n    import time\n    time.sleep(60)\n")
    pool = ForkPool(_setup(project), 2, tmp_path / "logs")
    with pool:
        early = begin(pool)
        assert early is not None
        deadline = time.monotonic() + 60
        while len(pool.workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the zygote collected and forked the workers: the baseline runs
        started = {worker.process.pid for worker in pool.workers}
        assert len(started) == 2
    with pytest.raises((HarnessError, BaselineError)):
        early.baseline.result()
    assert {worker.process.pid for worker in pool.workers} <= started  # none started after
    assert not any(_alive(pid) for pid in started)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


class WaitsForTheBaseline(Mutator):
    """Mutates nothing; `mutate` returns once the suite has run (the baseline's tests leave a
    file), or after 30 s: a stand-in for libcst's work that takes as long as the baseline."""

    name = "toy/waits"
    family = Family.CLASSIC
    explanation = "`{original}`"
    matcher = m.Module()
    examples = ()
    marker: Path | None = None
    seen: list[bool] = []

    def mutate(self, node: cst.Module, ctx: object) -> list[cst.CSTNode]:
        deadline = time.monotonic() + 30
        assert self.marker is not None
        while not self.marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.seen.append(self.marker.exists())
        return []


@pytest.mark.slow
def test_a_run_starts_the_baseline_before_its_mutants_are_generated(project: Path, tmp_path: Path,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("BUGSMITH_PRIVATE_VIEW", "0")  # the mark a test leaves must reach this process
    marker = tmp_path / "the-suite-ran"
    tests = project / "tests" / "test_calc.py"
    tests.write_text(TESTS + f"\n\ndef test_leaves_a_mark():\n    open({str(marker)!r}, 'w').close()\n")
    assert (project / "calcpkg" / "calc.py").read_text() == CALC
    waiting = WaitsForTheBaseline()
    waiting.marker, waiting.seen = marker, []
    harness.run(resolve(project), mutators=(waiting,))
    assert waiting.seen and all(waiting.seen)  # the baseline ran while the mutants were being generated


@pytest.mark.slow
def test_a_suite_that_passes_only_under_the_baseline_fails_the_run_at_its_control(project: Path) -> None:
    """A test that passes only while coverage traces it (the baseline) fails in the mutants'
    machinery: the control run, now in the baseline's thread, still stops the run before any
    mutant could be called killed."""
    traced = project / "tests" / "test_traced.py"  # its own file: the control runs each file's fastest test
    traced.write_text("import sys\n\n\ndef test_only_traced():\n    assert sys.gettrace() is not None\n")
    with pytest.raises(HarnessError, match="control run of unmutated code failed"):
        harness.run(resolve(project))
