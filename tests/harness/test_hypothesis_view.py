"""A hypothesis test draws and replays in bugsmith's processes what it would under plain pytest,
so a verdict is what plain pytest says on that mutant (harness/child/hypothesis_view.py)."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase, choices_from_bytes
from hypothesis.internal.conjecture import providers
from toyproject import IntegerToZero, SwapLessThan, by_source

from bugsmith import harness
from bugsmith.harness.child.hypothesis_view import HypothesisSeesTheProject, hide_own_modules, read_only_examples
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


@pytest.fixture
def hypothesis_database() -> Iterator[None]:
    """Hypothesis' own `settings.database` again after the test: this process's hypothesis
    tests must go on saving their examples."""
    original = inspect.getattr_static(settings, "database")
    yield
    type.__setattr__(settings, "database", original)


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


def test_before_a_fork_the_server_marks_and_scans_so_children_do_not(monkeypatch, tmp_path: Path,
                                                                    hypothesis_database: None) -> None:
    """A module the fork server imported after collection is marked (if bugsmith's) and scanned
    by hypothesis there: a child's first input finds sys.modules as scanned and walks nothing."""
    seen: set[int] = set()
    monkeypatch.setattr(providers, "_seen_modules", seen)
    monkeypatch.setattr(providers, "_sys_modules_len", None)
    view = HypothesisSeesTheProject(tmp_path, read_only=True)
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
    monkeypatch.setenv("BUGSMITH_PRIVATE_VIEW", "0")  # the test reads the draws the jobs write down
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


def _examples(folder: Path) -> dict[bytes, set[bytes]]:
    """What a directory database holds: its values by key."""
    database = DirectoryBasedExampleDatabase(folder)
    return {key: set(database.fetch(key)) for key in database.fetch(b".hypothesis-keys")}


def test_every_database_the_settings_pick_is_read_only(monkeypatch, tmp_path: Path,
                                                       hypothesis_database: None) -> None:
    """The default directory, a profile's database and a test's own: each is read through a
    ReadOnlyDatabase, so what is there replays but nothing is saved, moved or deleted."""
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "storage"))
    chosen = DirectoryBasedExampleDatabase(tmp_path / "chosen")
    chosen.save(b"key", b"kept")
    profile = settings(database=chosen)
    none = settings(database=None)
    guard = read_only_examples()
    assert guard is not None and read_only_examples() is guard  # once per process
    default = settings.get_profile("default")  # its database: the storage directory's (`ci`'s: None)
    for database in (default.database, profile.database, settings(profile, max_examples=5).database):
        assert isinstance(database, ReadOnlyDatabase)
    assert profile.database is profile.database
    assert none.database is None

    view = profile.database
    assert list(view.fetch(b"key")) == [b"kept"]
    view.save(b"key", b"new")
    view.move(b"key", b"other", b"kept")
    view.delete(b"key", b"kept")
    assert _examples(tmp_path / "chosen") == {b"key": {b"kept"}}
    default.database.save(b"key", b"new")
    assert not (tmp_path / "storage" / "examples").exists()

    guard.on = False  # a fork server's baseline child
    assert profile.database is chosen and none.database is None


def test_a_tests_own_database_is_read_only_too(tmp_path: Path, hypothesis_database: None) -> None:
    """A failing example found under `@settings(database=...)` on the test is not saved."""
    chosen = DirectoryBasedExampleDatabase(tmp_path / "chosen")
    assert read_only_examples() is not None

    @settings(database=chosen, deadline=None, derandomize=False)
    @given(st.integers(min_value=0))
    def fails_from_ten(x: int) -> None:
        assert x < 10

    with pytest.raises(AssertionError):
        fails_from_ten()
    assert not (tmp_path / "chosen").exists()


# Mutant A (`return 0` -> `return 1`) is wrong from LIMIT on, so hypothesis soon finds a value
# there and shrinks it to LIMIT itself, which it saves; mutant B (`<` -> `<=`) is wrong only at
# LIMIT, a value its search never draws (LIMIT is no literal, so hypothesis' pool of constants
# lacks it). Plain pytest lets B survive; replaying A's example kills it. START's mutant runs
# at import (in the worker's child, or a fresh interpreter): it fails too, and saves nothing.
ROOM = '''\
START = 0


def room(x, limit):
    """How far `x` is below `limit`: 0 at or past it."""
    if below(x, limit):
        return START + limit - x
    return 0


def below(x, limit):
    return x < limit
'''

# Hypothesis' default settings, also where it would load its `ci` profile (no database).
CONFTEST = '''\
from hypothesis import settings

settings.load_profile("default")
'''

ROOM_TESTS = '''\
from hypothesis import given, settings, strategies as st, target

from room import below, room

LIMIT = 10 ** 6 + 7


@settings(deadline=None)
@given(st.integers(min_value=0))
def test_room(x):
    assert below(x, LIMIT) == (x < LIMIT)
    assert room(x, LIMIT) == max(LIMIT - x, 0)


def twice(x):
    return x + x


@settings(deadline=None)
@given(st.integers())
def test_twice(x):
    target(float(x))  # passing, it still saves: the best values seen, for the next run
    assert twice(x) == 2 * x
'''

A, B, START = (8, "0", "1"), (12, "<", "<="), (1, "0", "1")


def _room_project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "room.py").write_text(ROOM)
    (root / "tests" / "test_room.py").write_text(ROOM_TESTS)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["room.py"]\ntests = ["tests"]\njobs = 1\n')
    return root


def _plain(folder: Path, storage: Path) -> int:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("BUGSMITH", "HYPOTHESIS"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_room.py::test_room"],
                          cwd=folder, env={**env, "HYPOTHESIS_STORAGE_DIRECTORY": str(storage)},
                          capture_output=True, check=False)
    return done.returncode


def _mutant(folder: Path, mutation: tuple[int, str, str]) -> Path:
    """A copy of the project at `folder` with `mutation` (line, original, mutated) applied."""
    line, original, mutated = mutation
    lines = ROOM.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].replace(original, mutated)
    (folder / "room.py").write_text("".join(lines))
    return folder


@pytest.mark.slow
def test_plain_pytest_lets_b_survive_unless_it_replays_what_a_failed_on(tmp_path: Path) -> None:
    """The toy project's premise, under plain pytest alone."""
    a = _mutant(_room_project(tmp_path / "a"), A)
    b = _mutant(_room_project(tmp_path / "b"), B)
    assert _plain(b, tmp_path / "fresh") == 0
    assert _plain(a, tmp_path / "after-a") == 1
    assert _plain(b, tmp_path / "after-a") == 1  # A's saved example, replayed


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_mutant_never_replays_what_another_mutant_failed_on(tmp_path: Path, isolation: str) -> None:
    """Each mutant sees hypothesis' database as the baseline left it: A's failing example is
    not saved, so B, which runs after A here, survives as under plain pytest. Nothing any
    mutant's run finds is saved, whatever the order; the baseline still saves (`target`'s best
    values)."""
    project = _room_project(tmp_path / "project")
    # A generous limit: shrinking A's failure may take seconds on a busy machine, and is no hang.
    result = harness.run(resolve(project, isolation=isolation, timeout_base=10.0),
                         mutators=(SwapLessThan(), IntegerToZero()))
    assert by_source(result) == {A: "killed", B: "survived", START: "killed"}
    saved = _examples(project / ".bugsmith" / "tool-state" / "hypothesis" / "examples")
    assert saved and all(key.endswith(b".pareto") for key in saved), {
        key: [choices_from_bytes(value) for value in values] for key, values in saved.items()}
