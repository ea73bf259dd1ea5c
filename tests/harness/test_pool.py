"""The fork pool's timeout policy: a looping mutant is stopped once, a waiting one is re-run."""

from __future__ import annotations

import time
from pathlib import Path

from harness.pool import TIMEOUT_CONFIRMATION, ForkPool, needs_confirmation
from harness.protocol import Job, Verdict, WorkerSetup

from toyproject import CALC

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


def _timed(pool: ForkPool, job: Job) -> tuple[Verdict, float]:
    verdicts: list[Verdict] = []
    started = time.monotonic()
    pool.run([job], lambda _, verdict: verdicts.append(verdict))
    assert len(verdicts) == 1
    return verdicts[0], time.monotonic() - started


def test_busy_timeout_stands_and_a_sleeping_one_is_confirmed(project: Path, tmp_path: Path) -> None:
    """A mutant that burns the CPU until its limit is a timeout at once; one that sleeps (as a
    starved process would look) gets the second run at TIMEOUT_CONFIRMATION x the limit."""
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        busy, busy_wall = _timed(pool, _spin_job(project, "pass"))
        asleep, asleep_wall = _timed(pool, _spin_job(project, "__import__('time').sleep(60)"))
    assert busy.timed_out and asleep.timed_out
    assert busy.cpu is not None and busy.cpu > 0.5 * LIMIT
    assert busy_wall < LIMIT * TIMEOUT_CONFIRMATION
    assert asleep.cpu is not None and asleep.cpu < 0.5 * LIMIT
    assert asleep_wall >= LIMIT * (1 + TIMEOUT_CONFIRMATION)


def test_confirmation_rule() -> None:
    """Confirm when the process had under half a core, or when the OS gave no CPU figure."""
    assert needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=0.3))
    assert needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=None))
    assert not needs_confirmation(Verdict(mutant_id="a", timed_out=True, elapsed=2.0, cpu=1.9))
