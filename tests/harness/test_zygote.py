"""Workers forked from a zygote that collected the suite once (harness.shared.zygote): they run jobs,
each with its own mark, log and session; a worker a mutant kills is replaced by a fork (or by an
interpreter once the zygote is gone); nothing is left running after the pool or the coordinator."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from toyproject import CALC

from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.shared import leftovers, zygote
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.harness.shared.sandbox import Mount, Sandbox, SandboxUnavailable, bugsmith_code, require_bwrap
from bugsmith.harness.shared.zygote import ForkedProcess

pytestmark = [pytest.mark.slow,  # real worker processes
              pytest.mark.skipif(not zygote.available(), reason="workers are forked only on Linux")]


def _setup(root: Path) -> WorkerSetup:
    return WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",),
                       sources=(str(root / "calcpkg" / "calc.py"),), memory_limit_mb=1024)


def _job(root: Path, name: str, old: str, new: str) -> Job:
    source = CALC.replace(old, new)
    assert source != CALC
    return Job(mutant_id=name, module="calcpkg.calc", path=str(root / "calcpkg" / "calc.py"), function="clamp",
               source=source, tests=("tests/test_calc.py::test_clamp",), timeout=10.0, limits=(10.0,))


def _killing(root: Path) -> Job:
    return _job(root, "kills", "def clamp(x, lo, hi):\n", "def clamp(x, lo, hi):\n    return 99\n")


def _murderous(root: Path) -> Job:
    """A mutant that kills the worker running it."""
    return _job(root, "murders", "def clamp(x, lo, hi):\n",
                "def clamp(x, lo, hi):\n    import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n")


def _run(pool: ForkPool, *jobs: Job) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    pool.run(list(jobs), lambda job, verdict: verdicts.__setitem__(job.mutant_id, verdict))
    return verdicts


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[1])


def _mark_of(pid: int) -> str:
    """The process's mark, or "" (none, or it ended since it was listed: a job's forked child)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            variables = environ.read().split(b"\0")
    except OSError:
        return ""
    for variable in variables:
        name, _, value = variable.decode().partition("=")
        if name == leftovers.VARIABLE:
            return value
    return ""


def _gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    """The ones of `pids` still running (zombies count as gone) after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in pids if _alive(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    found, level = [], [pid]
    while level:
        below = []
        for parent in level:
            for task in os.listdir(f"/proc/{parent}/task") if os.path.isdir(f"/proc/{parent}/task") else []:
                try:
                    with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as listing:
                        below.extend(int(child) for child in listing.read().split())
                except OSError:
                    continue
        found.extend(below)
        level = below
    return found


def test_workers_are_forked_from_one_zygote_each_with_its_own_mark_log_and_session(project: Path,
                                                                                  tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with ForkPool(_setup(project), 2, logs) as pool:
        verdicts = _run(pool, _killing(project), _killing(project))
        assert pool.zygote is not None
        zygote_pid = pool.zygote.process.pid
        workers = [worker.process.pid for worker in pool.workers]
        assert all(isinstance(worker.process, ForkedProcess) for worker in pool.workers)
        assert [_parent(pid) for pid in workers] == [zygote_pid, zygote_pid]
        assert [_mark_of(pid) for pid in workers] == [worker.mark for worker in pool.workers]
        assert len({*(_mark_of(pid) for pid in workers), _mark_of(zygote_pid)}) == 3
        assert all(os.getsid(pid) == pid and os.getpgid(pid) == pid for pid in workers)
        everything = [zygote_pid, *_descendants(zygote_pid)]
    assert verdicts["kills"].results[0].outcome == "failed"
    assert sorted(path.name for path in logs.iterdir()) == ["worker-1.log", "worker-2.log", "zygote.log"]
    assert not _gone(everything), "a process of the pool outlived it"


def test_a_worker_a_mutant_kills_is_replaced_by_a_fork(project: Path, tmp_path: Path) -> None:
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        first = _run(pool, _killing(project))
        killed = _run(pool, _murderous(project))
        after = _run(pool, _killing(project))  # on the replacement of the replacement
        assert pool.zygote is not None
        worker = pool.workers[0]
        assert isinstance(worker.process, ForkedProcess) and _parent(worker.process.pid) == pool.zygote.process.pid
        assert worker.mark == leftovers.member_mark(pool._mark, 3)
    assert first["kills"].results[0].outcome == "failed"
    assert killed["murders"].died and "twice" in killed["murders"].died
    assert after["kills"].results[0].outcome == "failed"


def test_without_its_zygote_the_pool_replaces_a_worker_by_an_interpreter(project: Path, tmp_path: Path) -> None:
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        _run(pool, _killing(project))
        assert pool.zygote is not None
        dead = [pool.zygote.process.pid, pool.workers[0].process.pid]
        for pid in dead:
            os.kill(pid, signal.SIGKILL)
        assert not _gone(dead)  # so that sending the next job finds the channel broken
        verdicts = _run(pool, _killing(project))
        assert pool.zygote is None and isinstance(pool.workers[0].process, subprocess.Popen)
        assert "kills" not in pool.attempts  # the job never reached the dead worker
    assert verdicts["kills"].results[0].outcome == "failed"


def test_the_pool_starts_interpreters_where_workers_cannot_be_forked(project: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zygote, "available", lambda: False)
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        verdicts = _run(pool, _killing(project))
        assert pool.zygote is None and all(isinstance(w.process, subprocess.Popen) for w in pool.workers)
    assert verdicts["kills"].results[0].outcome == "failed"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_coordinator_stopped_mid_run_leaves_no_process(project: Path, signum: int) -> None:
    """`bugsmith run` killed (SIGTERM) or interrupted (Ctrl-C) while its workers run mutants."""
    (project / "tests" / "test_slow.py").write_text("import time\n\ndef test_slow():\n    time.sleep(0.5)\n")
    coordinator = subprocess.Popen([sys.executable, "-m", "bugsmith", "run", "--jobs", "2", "--no-report"],
                                   cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        seen: set[int] = set()
        while time.monotonic() < deadline and coordinator.poll() is None:
            below = [pid for pid in _descendants(coordinator.pid) if _mark_of(pid)]
            seen.update(below)
            if len([pid for pid in below if _alive(pid)]) >= 3:  # the zygote and two workers
                break
            time.sleep(0.1)
        assert len(seen) >= 3, "the run never had its workers up"
        coordinator.send_signal(signum)
        coordinator.wait(60)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
    assert not _gone(sorted(seen)), "a worker or the zygote outlived the coordinator"


def test_workers_forked_in_a_sandbox_stay_in_it(project: Path, tmp_path: Path) -> None:
    """The zygote runs in the sandbox (a pid namespace of its own): its workers are forked there,
    and the pool still signals them, sees them end and tells their marks apart."""
    try:
        require_bwrap()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    for path in (project, *project.rglob("*")):  # readable by `nobody`, whom the sandbox runs as under root
        path.chmod(0o755 if path.is_dir() else 0o644)
    sandbox = Sandbox(mounts=(Mount(source=project, target=str(project)), *bugsmith_code()), workdir=str(project),
                      env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp"})
    with ForkPool(_setup(project), 2, tmp_path / "logs", sandbox) as pool:
        verdicts = _run(pool, _killing(project), _murderous(project))
        assert pool.zygote is not None and all(isinstance(w.process, ForkedProcess) for w in pool.workers)
        workers = [worker.process.pid for worker in pool.workers]
        assert [_mark_of(pid) for pid in workers] == [worker.mark for worker in pool.workers]
        assert os.readlink(f"/proc/{workers[0]}/ns/pid") != os.readlink("/proc/self/ns/pid")
        everything = [*_descendants(pool.zygote.process.pid)]
    assert verdicts["kills"].results[0].outcome == "failed"
    assert verdicts["murders"].died and "twice" in verdicts["murders"].died
    assert not _gone(everything), "a process of the sandboxed pool outlived it"
