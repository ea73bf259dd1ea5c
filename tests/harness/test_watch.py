"""`bugsmith watch`: a round at the start and one per save, each telling what changed; Ctrl-C
leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bugsmith.harness.config import RunOptions
from bugsmith.harness.outcome import Outcome, RunResult, Status
from bugsmith.harness.watch import changed_files, compare, rounds, snapshot


def result(**statuses: Status) -> RunResult:
    return RunResult(root="/p", started="", duration=0.0, options={}, mutants=(),
                     outcomes=tuple(Outcome(mutant_id=m, status=s) for m, s in statuses.items()), tests=())


def test_a_round_tells_new_survivors_and_mutants_killed_again() -> None:
    before = result(a=Status.KILLED, b=Status.SURVIVED, c=Status.NO_COVERAGE)
    after = result(a=Status.SURVIVED, b=Status.KILLED, c=Status.NO_COVERAGE, d=Status.SURVIVED, e=Status.TIMEOUT)
    assert compare(before, after) == (("a", "d"), ("b",))
    assert compare(None, after) == ((), ())


def test_rounds_start_at_once_then_wait_for_a_save_that_has_settled() -> None:
    """Polls see: nothing new, then a save in progress, then the same state twice (settled)."""
    states = iter([{"a.py": (1, 10)}, {"a.py": (1, 10)}, {"a.py": (2, 11)}, {"a.py": (3, 12)},
                   {"a.py": (3, 12)}])
    runs = iter([result(x=Status.KILLED), result(x=Status.SURVIVED)])
    slept: list[float] = []
    made = rounds(RunOptions(root=Path("/p"), paths=("pkg",), tests=("tests",)), lambda options: next(runs),
                  poll=0.5, sleep=slept.append, files=lambda: next(states))
    first = next(made)
    assert first.changed == () and "start" in first.summary()
    second = next(made)
    assert second.changed == ("a.py",) and second.new_survivors == ("x",)
    assert "1 new survivor(s): x" in second.summary()
    assert len(slept) == 4


def test_a_snapshot_holds_the_python_files_of_the_paths_and_sees_a_save(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "__pycache__" / "m.py").write_text("")
    (tmp_path / "pkg" / "notes.txt").write_text("")
    first = snapshot(tmp_path, ("pkg",))
    assert list(first) == ["pkg/m.py"]
    (tmp_path / "pkg" / "m.py").write_text("x = 22\n")
    assert changed_files(first, snapshot(tmp_path, ("pkg",))) == ("pkg/m.py",)


def _processes_in(root: Path) -> list[int]:
    """Processes whose working folder is under `root`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(root)):
                    found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.slow
def test_watch_judges_a_save_and_ctrl_c_leaves_nothing_behind(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
    test = root / "tests" / "test_pkg.py"
    test.write_text("from pkg import double\n\n\ndef test_double():\n    assert double(3) == 6\n")
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\njobs = 1\n')
    # As from a terminal: Ctrl-C at its default, whatever the test process set for itself (a
    # signal a parent ignores stays ignored across exec, and Python then never raises KeyboardInterrupt).
    watcher = subprocess.Popen([sys.executable, "-m", "bugsmith", "watch", "--no-report"], cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: list[str] = []
    try:
        lines.append(watcher.stdout.readline())  # type: ignore[union-attr]
        if lines[0].startswith("start:"):
            time.sleep(0.3)
            test.write_text(textwrap.dedent("""\
                from pkg import double


                def test_double():
                    double(3)
                """))
            lines.append(watcher.stdout.readline())  # type: ignore[union-attr]
    finally:
        os.killpg(watcher.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, errors = watcher.communicate(timeout=120)
    assert lines[0].startswith("start:") and "score 100.0%" in lines[0], (lines, errors)
    assert lines[1].startswith("tests/test_pkg.py:") and "new survivor(s)" in lines[1], (lines, errors)
    assert watcher.returncode == 0, errors
    deadline = time.monotonic() + 60  # a loaded machine ends the preloader and its zygote late
    while _processes_in(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_in(root) == []


def test_a_save_that_breaks_the_suite_is_told_and_the_watch_goes_on() -> None:
    """The suite red after a save is an ordinary moment of editing: one line says so, the
    watch goes on, and the next round compares with the last one that judged."""
    from bugsmith.errors import BaselineError

    def red() -> RunResult:
        raise BaselineError("the tests fail without any mutant")

    calls = iter([lambda: result(x=Status.KILLED), red, lambda: result(x=Status.SURVIVED)])
    states = iter([{"a.py": (1, 1)}, {"a.py": (2, 2)}, {"a.py": (2, 2)}, {"a.py": (3, 3)}, {"a.py": (3, 3)}])
    made = rounds(RunOptions(root=Path("/p"), paths=("pkg",), tests=("tests",)), lambda options: next(calls)(),
                  poll=0.1, sleep=lambda seconds: None, files=lambda: next(states))
    assert next(made).error == ""
    broken = next(made)
    assert broken.error.startswith("the tests fail") and "(watching on)" in broken.summary()
    fixed = next(made)
    assert fixed.error == "" and fixed.new_survivors == ("x",)
