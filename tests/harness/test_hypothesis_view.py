"""A hypothesis test draws in bugsmith's processes what it draws under plain pytest, so a
verdict is what plain pytest says on that mutant (harness/child/hypothesis_view.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis.internal.conjecture import providers

from bugsmith import harness
from bugsmith.harness.child.hypothesis_view import HypothesisSeesTheProject, hide_own_modules
from bugsmith.harness.config import resolve

CALC = '''\
LIMIT = 1000


def scale(x):
    if x > LIMIT:
        return LIMIT
    return x
'''

# Derandomized: the values drawn depend only on the test and on hypothesis' pool of constants,
# which it fills from every loaded module outside site-packages and the standard library (an
# editable bugsmith's own modules, once, made this pool 4x larger in a worker). Every value
# drawn is written down, one file per process, to compare the sequences.
TEST = '''\
import os

from hypothesis import Phase, given, settings, strategies as st

from calc import scale


@settings(derandomize=True, max_examples=60, database=None, deadline=None, phases=[Phase.generate])
@given(st.integers() | st.text(max_size=3))
def test_scale(x):
    with open(os.path.join(os.environ["DRAWS"], f"{os.getpid()}.txt"), "a") as out:
        out.write(f"{x!r}\\n")
    if isinstance(x, int):
        assert scale(x) == min(x, 1000)
'''


def test_own_modules_are_marked_as_scanned_but_the_projects_are_not(monkeypatch, tmp_path: Path) -> None:
    seen: set[int] = set()
    monkeypatch.setattr(providers, "_seen_modules", seen)
    main = types.ModuleType("__main__")  # a child's own `python -m bugsmith.harness.child.worker`
    main.__spec__ = types.SimpleNamespace(name="bugsmith.harness.child.worker")
    main.__file__ = "/elsewhere/harness/child/worker.py"
    project = types.ModuleType("bugsmith.calc")  # the project is bugsmith itself
    project.__file__ = str(tmp_path / "bugsmith" / "calc.py")
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setitem(sys.modules, "bugsmith.calc", project)
    hide_own_modules(tmp_path)
    assert id(main) in seen and id(sys.modules["bugsmith.harness"]) in seen
    assert id(project) not in seen and id(sys.modules["pytest"]) not in seen


def test_before_a_fork_the_server_marks_and_scans_so_children_do_not(monkeypatch, tmp_path: Path) -> None:
    """A module the fork server imported after collection is marked (if bugsmith's) and scanned
    by hypothesis there: a child's first input finds sys.modules as scanned and walks nothing."""
    seen: set[int] = set()
    monkeypatch.setattr(providers, "_seen_modules", seen)
    monkeypatch.setattr(providers, "_sys_modules_len", None)
    view = HypothesisSeesTheProject(tmp_path)
    view.before_fork()
    assert providers._sys_modules_len == len(sys.modules)
    late = types.ModuleType("bugsmith.late")  # imported by the server after its first fork
    late.__file__ = "/elsewhere/bugsmith/late.py"
    monkeypatch.setitem(sys.modules, "bugsmith.late", late)
    view.before_fork()
    assert id(late) in seen and providers._sys_modules_len == len(sys.modules)


def _plain_pytest(folder: Path, draws: Path) -> int:
    draws.mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHONHASHSEED", "BUGSMITH", "HYPOTHESIS"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=folder, env={**env, "DRAWS": str(draws)}, capture_output=True, check=False)
    return done.returncode


def _sequences(draws: Path) -> list[list[str]]:
    return [path.read_text().splitlines() for path in sorted(draws.iterdir())]


@pytest.mark.slow
def test_verdicts_and_draws_are_plain_pytests(tmp_path: Path, monkeypatch) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "calc.py").write_text(CALC)
    (project / "tests" / "test_calc.py").write_text(TEST)
    (project / "pyproject.toml").write_text(
        '[tool.bugsmith]\npaths = ["calc.py"]\ntests = ["tests"]\njobs = 1\n')
    assert _plain_pytest(project, tmp_path / "plain") == 0
    [plain] = _sequences(tmp_path / "plain")

    monkeypatch.setenv("DRAWS", str(tmp_path / "bugsmith"))
    (tmp_path / "bugsmith").mkdir()
    result = harness.run(resolve(project, families=("classic",)))
    # Every process that ran the test drew plain pytest's values, up to the failure that
    # stopped it (then hypothesis replays the failing value once more).
    sequences = _sequences(tmp_path / "bugsmith")
    assert plain in sequences
    for sequence in sequences:
        drawn = sequence if sequence == plain else sequence[:-1]
        assert drawn == plain[:len(drawn)] and sequence[-1] in drawn

    mutants = {mutant.id: mutant for mutant in result.mutants}
    statuses = {outcome.mutant_id: outcome.status.value for outcome in result.outcomes}
    assert {"killed", "survived"} <= set(statuses.values())
    for mutant_id, status in statuses.items():
        copy = tmp_path / f"plain-{mutant_id}"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns(".bugsmith"))
        (copy / "calc.py").write_text(mutants[mutant_id].apply(CALC))
        code = _plain_pytest(copy, tmp_path / f"draws-{mutant_id}")
        assert (status, code) in {("killed", 1), ("survived", 0)}, mutants[mutant_id].diff
