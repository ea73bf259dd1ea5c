"""One run per store at a time, each run reports itself, and a damaged store never ends in a
traceback (issue 14, "Concurrency and the store")."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith import harness
from bugsmith.errors import BugsmithError, HarnessError
from bugsmith.harness.cli import cli
from bugsmith.harness.config import resolve
from bugsmith.harness.mutation_run.progress import Progress
from bugsmith.harness.store import Store, is_damage

pytestmark = pytest.mark.slow  # real runs: worker processes, mutants

CODE = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n"
TESTS = "from shop import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 10) == 5\n    assert clamp(-1, 0, 10) == 0\n"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop-project"
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shop" / "__init__.py").write_text(CODE)
    (root / "tests" / "test_clamp.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(
        '[tool.bugsmith]\npaths = ["shop"]\ntests = ["tests"]\njobs = 1\nfamilies = ["classic"]\n')
    return root


def invoke(root: Path, *args: str):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return CliRunner().invoke(cli, list(args))


def run_count(root: Path) -> int:
    store = Store.open_read_only(root / ".bugsmith" / "bugsmith.sqlite")
    try:
        return store.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        store.close()


HOLDER = textwrap.dedent("""\
    import sys
    from pathlib import Path
    from bugsmith.harness.store import hold
    with hold(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.read()
    """)


def test_a_second_run_fails_at_once_and_names_the_first(shop: Path) -> None:
    """While another process runs on the store, `run` does nothing and says which pid holds it
    (two runs at once both did all the work and printed each other's results); once that
    run ends, the lock is free again."""
    assert invoke(shop, "run", "--no-report").exit_code == 0
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(shop / ".bugsmith")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        second = invoke(shop, "run", "--no-report")
        assert isinstance(second.exception, BugsmithError) and second.exception.exit_code == 2
        assert str(second.exception).startswith(
            f"another bugsmith run (pid {holder.pid}) is using {shop / '.bugsmith'}/")
        real = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report"], cwd=shop,
                              capture_output=True, text=True, timeout=120, check=False)
        assert real.returncode == 2 and real.stderr.count("\n") == 1 and f"(pid {holder.pid})" in real.stderr
        assert run_count(shop) == 1
        # triage writes its findings into the store: it waits for no one either
        triaged = invoke(shop, "triage")
        assert isinstance(triaged.exception, BugsmithError) and f"(pid {holder.pid})" in str(triaged.exception)
        # reading is always allowed: report and show never take the lock
        shown = invoke(shop, "report", "--json", "-")
        assert shown.exit_code == 0, shown.output
    finally:
        holder.communicate("", timeout=30)
    assert invoke(shop, "run", "--no-report").exit_code == 0
    assert run_count(shop) == 2


def test_a_run_returns_its_own_result_when_another_run_started_later(shop: Path) -> None:
    """`run()` returns the run it did, not the store's most recently started one: here a
    later run row (75 mutants, all killed) appears while the first run is going."""
    store_path = shop / ".bugsmith" / "bugsmith.sqlite"
    reports: list[dict] = []

    def later_run_starts(event: Progress) -> None:
        if event.stage == "mutants" and not reports:
            other = Store.open(store_path)
            try:
                other.start_run(started="2099-01-01T00:00:00+00:00", root="elsewhere", options={},
                                keys={}, tests=[], sources={}, dropped={})
            finally:
                other.close()
            # report/show during a run read a consistent (partial) store and never block
            reports.append(json.loads(invoke(shop, "report", "--json", "-").output))

    result = harness.run(resolve(shop), progress=later_run_starts)
    assert result.root == str(shop) and result.started != "2099-01-01T00:00:00+00:00"
    assert result.mutants and len(result.outcomes) == len(result.mutants)
    assert reports and "files" in reports[0]


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(data[: len(data) // 3])
        return
    # garbage over the first page of the verdicts (header and schema intact): opening reads it,
    # though no longer every page (tests/harness/test_store_cap.py: damage it does not read)
    connection = sqlite3.connect(path)
    page = connection.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'outcomes'").fetchone()[0]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    data[(page - 1) * size : page * size] = os.urandom(size)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_a_damaged_store_is_moved_aside_and_rebuilt(shop: Path, how: str) -> None:
    """A truncated or partly overwritten bugsmith.sqlite: `report` says in one line what to do
    (exit 4); `run` moves it aside as bugsmith.sqlite.corrupt-<time>, says so, and starts a
    new store (it used to crash with a sqlite3.DatabaseError traceback)."""
    assert invoke(shop, "run", "--no-report").exit_code == 0
    store = shop / ".bugsmith" / "bugsmith.sqlite"
    checkpoint = Store.open(store)
    checkpoint.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself
    checkpoint.close()
    # make the file big enough that its middle holds pages of verdicts, not only the header
    filler = Store.open(store)
    for i in range(400):
        filler.put_extra("filler", str(i), {"text": "x" * 200})
    filler.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    filler.close()
    damage(store, how)

    reported = invoke(shop, "report")
    assert isinstance(reported.exception, HarnessError), reported.output
    assert "is damaged" in str(reported.exception) and "`bugsmith cache --check` moves it aside" in str(
        reported.exception)
    assert "\n" not in str(reported.exception)

    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report"], cwd=shop,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "bugsmith: warning: the store was damaged: moved it aside to bugsmith.sqlite.corrupt-" in done.stderr
    assert len(list(store.parent.glob("bugsmith.sqlite.corrupt-*"))) == 1
    assert run_count(shop) == 1 and invoke(shop, "report", "--json", "-").exit_code == 0


def test_a_busy_store_is_never_taken_for_a_damaged_one(tmp_path: Path) -> None:
    """"database is locked" is a DatabaseError too, but only a damaged file is moved aside."""
    path = tmp_path / "bugsmith.sqlite"
    Store.open(path).close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError) as busy:
            sqlite3.connect(path, timeout=0).execute("CREATE TABLE t (x)")
        assert not is_damage(busy.value)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    path.write_bytes(os.urandom(8192))
    with pytest.raises(sqlite3.DatabaseError) as garbage:
        sqlite3.connect(path).execute("PRAGMA journal_mode=WAL")
    assert is_damage(garbage.value)


def test_damage_found_during_a_run_sets_the_store_aside(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damage the open did not read and a query meets mid-run: one line (exit 4), and the
    store is already set aside, so the next run starts a new one instead of failing again."""
    assert invoke(shop, "run", "--no-report").exit_code == 0

    def malformed(self: Store, keys: object) -> dict:
        error = sqlite3.DatabaseError("database disk image is malformed")
        error.sqlite_errorcode = 11  # SQLITE_CORRUPT, as sqlite3 sets it
        raise error

    with monkeypatch.context() as patch:
        patch.setattr(Store, "cached", malformed)
        failed = invoke(shop, "run", "--no-report")
    assert isinstance(failed.exception, HarnessError) and "\n" not in str(failed.exception)
    assert "found damaged during the run" in str(failed.exception)
    assert len(list((shop / ".bugsmith").glob("bugsmith.sqlite.corrupt-*"))) == 1
    assert invoke(shop, "run", "--no-report").exit_code == 0


def test_every_stored_baseline_reads_back_and_a_read_only_store_sees_them(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "store.sqlite")
    store.put_baseline("a", {"lines": {"m.py": {"3": ["t1"]}}})
    store.put_baseline("b", {"lines": {}})
    store.close()
    reader = Store.open_read_only(tmp_path / "store.sqlite")
    try:
        found = reader.baselines()
        assert len(found) == 2 and {"lines": {}} in found and {"lines": {"m.py": {"3": ["t1"]}}} in found
    finally:
        reader.close()
