"""The fork pool: its timeout policy (a looping mutant is stopped once, a waiting one is re-run)
and the baseline it runs in its workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from toyproject import CALC

from bugsmith.errors import BaselineError
from bugsmith.harness import fork_pool as pool_module
from bugsmith.harness.baseline import chunk_jobs, run_baseline
from bugsmith.harness.executor import BUSY_SHARE, TIMEOUT_CONFIRMATION, needs_confirmation
from bugsmith.harness.fork_pool import ForkPool
from bugsmith.harness.interpreter import worker_env
from bugsmith.harness.protocol import Job, Verdict, WorkerSetup
from bugsmith.harness.tasks import CoverageTask

LIMIT = 0.6
SPIN_TEST = "tests/test_calc.py::test_spin"


def _setup(root: Path) -> WorkerSetup:
    return WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",),
                       sources=(str(root / "calcpkg" / "calc.py"),), memory_limit_mb=1024)


def _spin_job(root: Path, body: str) -> Job:
    """`spin` with its loop step replaced by `body`."""
    source = CALC.replace("        i += 1\n", f"        {body}\n")
    assert source != CALC
    return Job(mutant_id=f"spin-{body}", module="calcpkg.calc", path=str(root / "calcpkg" / "calc.py"),
               function="spin", source=source, tests=(SPIN_TEST,), timeout=LIMIT, limits=(LIMIT,))


def _run(pool: ForkPool, job: Job) -> tuple[Verdict, list[Job]]:
    """`job`'s final verdict, and every job the pool sent for it (a confirmation is a second)."""
    verdicts: list[Verdict] = []
    sent: list[Job] = []
    pool.run([job], lambda _, verdict: verdicts.append(verdict), prepare=lambda job: sent.append(job) or job)
    assert len(verdicts) == 1
    return verdicts[0], sent


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Verdict, bool]]:
    """Every timeout the pool puts to its confirmation rule, with the rule's answer."""
    asked: list[tuple[Verdict, bool]] = []

    def recording(verdict: Verdict) -> bool:
        asked.append((verdict, needs_confirmation(verdict)))
        return asked[-1][1]

    monkeypatch.setattr(pool_module, "needs_confirmation", recording)
    return asked


@pytest.mark.slow
def test_busy_timeout_stands_and_a_sleeping_one_is_confirmed(project: Path, tmp_path: Path,
                                                             asked: list[tuple[Verdict, bool]]) -> None:
    """A timeout is put to the confirmation rule with its own run's CPU figure and re-run once,
    at TIMEOUT_CONFIRMATION x the limit, exactly when the rule says so. One that sleeps (as a
    starved process would look) always is; one that burns the CPU used far more of it, and
    stands at once whenever it had half a core (on a loaded machine it may not have had).
    Counted in runs and CPU seconds, not wall time, so that it holds on a busy machine."""
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        busy, busy_sent = _run(pool, _spin_job(project, "pass"))
        asleep, asleep_sent = _run(pool, _spin_job(project, "__import__('time').sleep(60)"))
    (busy_first, busy_confirmed), (asleep_first, asleep_confirmed) = asked  # each asked once
    assert busy.timed_out and asleep.timed_out
    assert [job.limits for job in asleep_sent] == [(LIMIT,), (LIMIT * TIMEOUT_CONFIRMATION,)]
    assert asleep_confirmed and asleep_first.elapsed >= LIMIT
    assert asleep_first.cpu is not None and asleep_first.cpu < BUSY_SHARE * LIMIT, asleep_first
    assert asleep.elapsed >= LIMIT * TIMEOUT_CONFIRMATION  # the re-run had the longer limit
    assert [job.limits for job in busy_sent] == [(LIMIT,), (LIMIT * TIMEOUT_CONFIRMATION,)][:1 + busy_confirmed]
    assert busy_first.elapsed >= LIMIT
    assert busy_first.cpu is not None and busy_first.cpu > 2 * asleep_first.cpu, (busy_first, asleep_first)


@pytest.mark.slow
def test_a_timeout_the_rule_lets_stand_is_not_rerun(project: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """When the rule says a timeout was the mutant's doing, the pool reports it after one run."""
    monkeypatch.setattr(pool_module, "needs_confirmation", lambda verdict: False)
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        verdict, sent = _run(pool, _spin_job(project, "__import__('time').sleep(60)"))
    assert verdict.timed_out and [job.limits for job in sent] == [(LIMIT,)]


def test_confirmation_rule() -> None:
    """Confirm when the process had under half a core, or when the OS gave no CPU figure."""
    assert needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=0.3))
    assert needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=None))
    assert not needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=1.9))


@pytest.mark.slow
def test_baseline_in_the_workers_equals_the_one_in_its_own_interpreter(project: Path, tmp_path: Path) -> None:
    """Run in chunks on two workers, the baseline finds the same tests, files and per-line
    covering tests as one run of the whole suite in a fresh interpreter."""
    setup = _setup(project)
    alone = run_baseline(setup, worker_env(setup.root))
    with ForkPool(setup, 2, tmp_path / "logs") as pool:
        shared = pool.baseline()
    assert [(t.id, t.file) for t in shared.tests] == [(t.id, t.file) for t in alone.tests]
    assert all(t.duration > 0 for t in shared.tests)
    covered = {file: {line: ids for line, ids in lines.items() if ids} for file, lines in alone.lines.items()}
    assert shared.lines == covered
    assert shared.lines["calcpkg/calc.py"][29] == (SPIN_TEST,)  # `i += 1` in spin's loop


def test_chunks_keep_a_files_tests_together_in_order() -> None:
    """Chunks never mix files, keep collection order, and give each worker several chunks."""
    tests = [f"a.py::t{i}" for i in range(40)] + ["b.py::t0"] + [f"c.py::t{i}" for i in range(22)]
    chunks = [job.tests for job in chunk_jobs(tests, 2)]
    assert [test for chunk in chunks for test in chunk] == tests
    assert all(len({test.split("::")[0] for test in chunk}) == 1 for chunk in chunks)
    assert [len(chunk) for chunk in chunks] == [4] * 10 + [1] + [4] * 5 + [2]
    assert all(isinstance(job.task, CoverageTask) and not job.stop_on_failure for job in chunk_jobs(tests, 2))


@pytest.mark.slow
def test_a_test_that_exits_during_the_baseline_is_named(project: Path, tmp_path: Path) -> None:
    """A suite whose test ends the process stops the baseline with an error naming that test."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_quits():\n    import os\n    os._exit(3)\n")
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        with pytest.raises(BaselineError, match=r"test_quits: .*exited with status 3"):
            pool.baseline()


@pytest.mark.slow
def test_a_child_that_fails_outside_a_test_logs_and_quotes_its_error(project: Path, tmp_path: Path) -> None:
    """An exception that ends a test process outside any test (here a conftest hook's) is in the
    worker's log and in the message, never only "exited with status 0"."""
    (project / "tests" / "conftest.py").write_text(
        "def pytest_runtest_logfinish(nodeid, location):\n"
        "    if nodeid.endswith('test_total'):\n"
        "        raise RuntimeError('the hook exploded')\n")
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        with pytest.raises(BaselineError, match=r"RuntimeError: the hook exploded"):
            pool.baseline()
    logs = "".join(path.read_text() for path in (tmp_path / "logs").glob("*.log"))
    assert "Traceback" in logs and "the hook exploded" in logs
