"""The store stays under its cap (issue 41, item 3): entries go least recently used first, after a
run; what the current run and the last run's record use stays; opening reads a few pages.

These drive the store's API as a run does (harness.mutation_run writes the same kinds of entry);
tests/harness/test_store_cap_runs.py checks it through real runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.errors import BugsmithError, ConfigError, HarnessError
from bugsmith.harness import store_cap
from bugsmith.harness.cli import cli
from bugsmith.harness.config import resolve
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.store import Store, last_run
from bugsmith.harness.store_damage import full_check, is_damage
from bugsmith.mutators.family import Family
from bugsmith.mutators.mutant import Mutant, Span

MB = store_cap.MB
FUNCTIONS = 20  # 4 files of 5 functions, 3 mutants each
TESTS = [TestInfo(id=f"tests/test_shop.py::test_{n}", file="tests/test_shop.py", duration=0.01) for n in range(40)]


def mutant(function: int, k: int, version: int) -> Mutant:
    return Mutant(id=f"m{function}-{k}-v{version}", operator="classic/compare", family=Family.CLASSIC,
                  file=f"shop/f{function // 5}.py", module=f"shop.f{function // 5}", function=f"fn{function}",
                  scope=f"fn{function}", span=Span(line=3, column=4, end_line=3, end_column=9), original="a < b",
                  mutated="a <= b", explanation="a boundary moved", diff="-a < b\n+a <= b\n" * 20)


class Project:
    """A toy project's runs, written as harness.mutation_run writes them: each run edits one
    function, whose mutants are new (new ids, new keys); the rest reuse their stored verdicts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / ".bugsmith" / "bugsmith.sqlite"
        self.versions = [0] * FUNCTIONS
        self.runs = 0

    def sources(self) -> dict[str, str]:
        return {f"shop/f{f}.py": "".join(f"def fn{n}(a, b):  # version {self.versions[n]}\n    return a < b\n" * 40
                                        for n in range(f * 5, f * 5 + 5)) for f in range(FUNCTIONS // 5)}

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.versions).encode()).hexdigest()

    def run(self, edit: int | None, cap: int, *, evict: bool = True) -> store_cap.Pruned | None:
        if edit is not None:
            self.versions[edit % FUNCTIONS] += 1
        store = Store.open(self.path)
        try:
            mutants = [mutant(f, k, self.versions[f]) for f in range(FUNCTIONS) for k in range(3)]
            keys = {m.id: f"key-{m.id}" for m in mutants}
            store.put_mutants(mutants)
            baseline = store.baseline(self.fingerprint())
            if baseline is None:
                baseline = {"tests": [t.id for t in TESTS], "lines": {f"shop/f{f}.py": {str(n): [t.id for t in TESTS]
                                                                                       for n in range(12)}
                                                                     for f in range(FUNCTIONS // 5)}}
                store.put_baseline(self.fingerprint(), baseline)
            store.put_extra("incremental", "latest", {"fingerprint": self.fingerprint(), "baseline": baseline,
                                                      "sources": self.sources()})
            for file, text in self.sources().items():
                store.by_content("units-of-text/2", text.encode(), lambda file=file: {"file": file},
                                 lambda found: found, lambda data: data)
            known = store.cached(keys.values())
            for m in mutants:
                if keys[m.id] not in known:
                    store.put_outcome(keys[m.id], Outcome(mutant_id=m.id, status=Status.KILLED,
                                                          killed_by=(TESTS[0].id,), covered_by=tuple(t.id for t in TESTS)))
                    store.put_extra("killed-by", f"site-{m.id}", {"test": TESTS[0].id, "digest": "d" * 64})
            self.runs += 1
            run_id = store.start_run(started=f"run {self.runs}", root=str(self.root),
                                     options={}, keys=keys, tests=TESTS, sources=self.sources(), dropped={})
            store.finish_run(run_id, 1.0)
            store.run_result(run_id)
            return store_cap.keep_under(store, cap) if evict else None
        finally:
            store.close()

    def expected(self) -> set[str]:
        return {f"m{f}-{k}-v{self.versions[f]}" for f in range(FUNCTIONS) for k in range(3)}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def rows(path: Path, sql: str, *args: object) -> list[tuple]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def test_a_hundred_runs_with_edits_stay_under_a_small_cap(project: Project) -> None:
    """100 runs, each after an edit, under a 1 MB cap: the file never ends a run over the cap
    (about 115 KB a run: without eviction it would pass it at the sixth), the latest run reads
    back whole (every verdict and mutant: `show` and `report` work), and the baseline and
    verdicts the next run reuses are still there."""
    cap = 1 * MB
    evictions = 0
    for i in range(100):
        pruned = project.run(edit=None if i == 0 else i * 7, cap=cap)
        evictions += bool(pruned and pruned.evicted)
        assert store_cap.on_disk(project.path) <= cap, f"run {i + 1}"
        result = last_run(project.root)
        assert {m.id for m in result.mutants} == project.expected()
        assert {o.mutant_id for o in result.outcomes} == project.expected()
        assert all(o.status is Status.KILLED for o in result.outcomes)
    assert evictions >= 10
    assert rows(project.path, "SELECT COUNT(*) FROM baselines WHERE fingerprint = ?", project.fingerprint()) == [(1,)]
    # an unchanged re-run finds every verdict: none is written again
    before = rows(project.path, "SELECT COUNT(*), MAX(rowid) FROM outcomes")
    project.run(edit=None, cap=cap)
    assert rows(project.path, "SELECT COUNT(*), MAX(rowid) FROM outcomes") == before


def baseline_of(size: int, tag: str) -> dict[str, str]:
    return {"tag": tag, "padding": tag * size}


@contextmanager
def session(path: Path) -> Iterator[Store]:
    store = Store.open(path)
    try:
        yield store
    finally:
        store.close()


def test_eviction_goes_least_recently_used_first_and_a_read_is_a_use(tmp_path: Path) -> None:
    """Three baselines written in three sessions, the first read again in a fourth: pruning
    evicts the second, then the third, and keeps the one read most recently."""
    path = tmp_path / "store.sqlite"
    for tag in "abc":
        with session(path) as store:
            store.put_baseline(tag, baseline_of(200_000, tag))
    with session(path) as store:
        assert store.baseline("a") is not None
    with session(path) as store:
        first = store_cap.prune(store, store_cap.in_use(store.db) - 150_000)
    assert first.evicted == {"baselines": 1}
    assert [r[0] for r in rows(path, "SELECT fingerprint FROM baselines ORDER BY fingerprint")] == ["a", "c"]
    with session(path) as store:
        second = store_cap.prune(store, 300_000)
    assert second.evicted == {"baselines": 1} and second.after <= 300_000 < second.before
    assert rows(path, "SELECT fingerprint FROM baselines") == [("a",)]


def test_reads_are_stamped_when_the_session_ends_without_rewriting_the_entries(tmp_path: Path) -> None:
    """A thousand reads write nothing while the session goes on; closing stamps them all in one
    transaction, in the narrow table of last uses: the 2 MB of entries read are not written again
    (SQLite rewrites a whole row to change one column of it)."""
    path = tmp_path / "store.sqlite"
    with session(path) as store:
        for n in range(1000):
            store.put_extra("killed-by", str(n), {"test": "t" * 2000})
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store = Store.open(path)
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    for n in range(1000):
        assert store.extras_at("killed-by", str(n)) == {"test": "t" * 2000}
    assert not [s for s in statements if not s.startswith("SELECT")]
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    generation = store.generation
    store.flush_uses()  # what closing does first
    written = Path(f"{path}-wal").stat().st_size
    store.close()
    assert statements.count("BEGIN IMMEDIATE") == 1
    assert not [s for s in statements if re.match(r"(UPDATE|INSERT|REPLACE)\b[^(]*\bextras\b", s)]
    assert written < 200_000
    assert rows(path, "SELECT COUNT(*) FROM uses WHERE entry = 'extras' AND used = ?", generation) == [(1000,)]


def test_what_the_current_run_uses_stays_even_over_the_cap(project: Project) -> None:
    """A cap smaller than one run's own entries evicts everything older and nothing of the run,
    and says that what stays is over the target."""
    for edit in (None, 1, 2):
        project.run(edit=edit, cap=100 * MB)
    store = Store.open(project.path)
    try:
        pruned = store_cap.prune(store, 0)
    finally:
        store.close()
    assert pruned.after > pruned.target == 0 and pruned.stopped is None
    assert "it alone is over the target" in store_cap.pruned_text(pruned)
    assert rows(project.path, "SELECT COUNT(*) FROM runs") == [(1,)]
    assert rows(project.path, "SELECT COUNT(*) FROM baselines") == [(1,)]
    assert {o.mutant_id for o in last_run(project.root).outcomes} == project.expected()
    assert rows(project.path, "SELECT COUNT(*) FROM outcomes") == [(3 * FUNCTIONS,)]


def test_a_lost_stamp_never_evicts_the_last_runs_record(tmp_path: Path) -> None:
    """The last run's verdicts and mutants stay even when their stamps were lost (a run killed
    before it closed the store): `show` and `report` read them."""
    path = tmp_path / ".bugsmith" / "bugsmith.sqlite"
    old = Outcome(mutant_id="m1", status=Status.SURVIVED)
    with session(path) as store:
        store.put_mutants([mutant(1, 0, 0)])
        store.put_outcome("k1", old)
        store.put_outcome("k-other", old)
    killed = Store.open(path)
    assert killed.cached(["k1"]) and killed.mutants(["m1-0-v0"])  # read, but never stamped:
    killed.start_run(started="s", root=str(tmp_path), options={}, keys={"m1-0-v0": "k1"}, tests=[], sources={},
                     dropped={})
    killed.db.close()  # ... the process died without closing
    with session(path) as store:
        pruned = store_cap.prune(store, 0)
    assert pruned.evicted == {"outcomes": 1}
    assert [o.mutant_id for o in last_run(tmp_path).outcomes] == ["m1"]


def test_an_open_session_beside_the_run_keeps_what_it_wrote(tmp_path: Path) -> None:
    """An exercise build or evaluation holding the store open keeps its entries through a run's
    eviction, though they are older than the run."""
    path = tmp_path / "store.sqlite"
    builder = Store.open(path)
    builder.put_baseline("variant", baseline_of(100_000, "v"))
    with session(path) as store:
        store.put_baseline("old", baseline_of(100_000, "o"))
    with session(path) as store:
        store_cap.prune(store, 0)
    assert rows(path, "SELECT fingerprint FROM baselines ORDER BY fingerprint") == [("old",), ("variant",)]
    builder.close()
    with session(path) as store:
        store_cap.prune(store, 0)
    assert rows(path, "SELECT fingerprint FROM baselines") == []


OLD_SCHEMA = """
CREATE TABLE outcomes (key TEXT PRIMARY KEY, mutant_id TEXT, data TEXT);
CREATE TABLE mutants (id TEXT PRIMARY KEY, data TEXT);
CREATE TABLE baselines (fingerprint TEXT PRIMARY KEY, data TEXT);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT, duration REAL, finished INTEGER,
    root TEXT, options TEXT, keys TEXT, tests TEXT, sources TEXT, dropped TEXT
);
CREATE TABLE extras (kind TEXT, key TEXT, data TEXT, PRIMARY KEY (kind, key));
"""


def test_a_store_from_before_the_cap_is_switched_by_one_vacuum(tmp_path: Path) -> None:
    """A store made before last uses were kept gets its table of last uses at its next open
    without a row rewritten, and the one VACUUM that turns on incremental vacuum at its first
    eviction; its entries, which have no stamp, count as the oldest."""
    path = tmp_path / ".bugsmith" / "bugsmith.sqlite"
    path.parent.mkdir()
    old = sqlite3.connect(path, isolation_level=None)
    old.execute("PRAGMA journal_mode=WAL")
    old.executescript(OLD_SCHEMA)
    for n in range(20):
        old.execute("INSERT INTO baselines VALUES (?, ?)", (f"old{n}", json.dumps(baseline_of(50_000, "x"))))
    old.execute("INSERT INTO extras VALUES ('k', 'old', '{}')")
    old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    old.close()
    size = path.stat().st_size
    store = Store.open(path)
    try:
        assert store.db.execute("PRAGMA auto_vacuum").fetchone() == (0,)
        store.put_baseline("new", baseline_of(50_000, "n"))
        assert store.db.execute("SELECT key FROM uses WHERE entry = 'baselines'").fetchall() == [("new",)]
        pruned = store_cap.prune(store, size // 2)
        assert pruned.vacuumed and pruned.after <= size // 2
        assert store.db.execute("PRAGMA auto_vacuum").fetchone() == (2,)
        assert store.db.execute("SELECT COUNT(*) FROM baselines WHERE fingerprint = 'new'").fetchone() == (1,)
        again = store_cap.prune(store, size // 4)
        assert not again.vacuumed and again.evicted and again.after <= size // 4
    finally:
        store.close()


def statements_of_open(monkeypatch: pytest.MonkeyPatch, path: Path, *, read_only: bool) -> list[str]:
    """Every statement a store's open runs, from the connection's first."""
    seen: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(seen.append)
        return connection

    monkeypatch.setattr("bugsmith.harness.store.sqlite3.connect", traced)
    store = Store.open_read_only(path) if read_only else Store.open(path)
    store.close()
    monkeypatch.undo()
    return seen


def damage_leaves(path: Path, table: str) -> int:
    """Garbage over the second half of `table`'s leaf pages (header, schema and the first leaf
    intact); the number of pages damaged."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    leaves = [n for (n,) in connection.execute(
        "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path", (table,))]
    connection.close()
    damaged = leaves[len(leaves) // 2:]
    with path.open("r+b") as file:
        for page in damaged:
            file.seek((page - 1) * page_size)
            file.write(os.urandom(page_size))
    return len(damaged)


def test_opening_reads_a_few_pages_and_the_full_check_is_on_demand(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening, for writing or reading, runs no whole-file check, so damage in pages it does
    not read goes unnoticed there; `bugsmith cache --check` reads every page, finds it, sets the
    store aside in one line (exit 4), and the next open starts a new store."""
    root = tmp_path / "p"
    path = root / ".bugsmith" / "bugsmith.sqlite"
    with session(path) as store:
        for n in range(2000):
            store.put_extra("killed-by", f"{n:05}", {"test": "t" * 200})
        store.start_run(started="s", root=str(root), options={}, keys={}, tests=[], sources={}, dropped={})
    for read_only in (False, True):
        seen = statements_of_open(monkeypatch, path, read_only=read_only)
        assert seen and not [s for s in seen if "check" in s.lower()], seen
    assert damage_leaves(path, "extras") > 10
    Store.open(path).close()
    Store.open_read_only(path).close()
    assert last_run(root).started == "s"  # what `report` reads is intact
    with pytest.raises(sqlite3.DatabaseError) as found:
        connection = sqlite3.connect(path)
        try:
            full_check(connection)
        finally:
            connection.close()
    assert is_damage(found.value)

    with monkeypatch.context() as patch:
        patch.chdir(root)
        checked = CliRunner().invoke(cli, ["cache", "--check"])
    assert isinstance(checked.exception, HarnessError) and checked.exception.exit_code == 4
    assert "\n" not in str(checked.exception) and "moved it aside to bugsmith.sqlite.corrupt-" in str(checked.exception)
    assert not path.exists() and len(list(path.parent.glob("bugsmith.sqlite.corrupt-*"))) == 1
    store = Store.open(path)
    assert store.moved_aside is None and store.db.execute("SELECT COUNT(*) FROM extras").fetchone() == (0,)
    store.close()


def test_damage_at_the_header_or_a_root_page_is_still_found_at_open(tmp_path: Path) -> None:
    """What opening checks: a file that is not a database, a truncated one, and a table whose
    first page is garbage are each moved aside by the next open for writing."""
    path = tmp_path / "store.sqlite"
    for how in ("garbage", "truncated", "root page"):
        with session(path) as store:
            for n in range(300):
                store.put_extra("filler", str(n), {"text": "x" * 300})
            store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(path.read_bytes())
        if how == "garbage":
            data = bytearray(os.urandom(len(data)))
        elif how == "truncated":
            data = data[: len(data) // 3]
        else:
            connection = sqlite3.connect(path)
            root_page = connection.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'extras'").fetchone()[0]
            size = connection.execute("PRAGMA page_size").fetchone()[0]
            connection.close()
            data[(root_page - 1) * size : root_page * size] = os.urandom(size)
        path.write_bytes(bytes(data))
        store = Store.open(path)
        try:
            assert store.moved_aside is not None, how
        finally:
            store.close()


def invoke(root: Path, *args: str):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return CliRunner().invoke(cli, list(args))


def test_bugsmith_cache_says_how_big_the_store_is_and_prunes_it(project: Project) -> None:
    """`bugsmith cache` prints the size against the cap and rows and last uses per table;
    `--prune --to-mb N` evicts down to N MB now; `--json` is the same as records; `--to-mb`
    alone is a usage error."""
    (project.root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["shop"]\nstore-cap-mb = 3\n')
    (project.root / "shop").mkdir()
    for edit in (None, 1, 2, 3, 4, 5):
        project.run(edit=edit, cap=100 * MB)
    shown = invoke(project.root, "cache")
    assert shown.exit_code == 0, shown.output
    assert "of a 3.0 MB cap" in shown.output
    outcomes = next(line for line in shown.output.splitlines() if line.startswith("outcomes"))
    assert outcomes.split()[1] == f"{3 * FUNCTIONS + 5 * 3:,}"
    assert re.search(r"\d{4}-\d\d-\d\dT", outcomes)

    size = json.loads(invoke(project.root, "cache", "--json").output)
    before = size["store"]["bytes"]
    assert size["pruned"] is None and size["store"]["cap"] == 3 * MB
    assert {t["name"]: t["rows"] for t in size["store"]["tables"]}["runs"] == 6

    pruned = invoke(project.root, "cache", "--prune", "--to-mb", str(before / MB / 2), "--json")
    assert pruned.exit_code == 0, pruned.output
    done = json.loads(pruned.output)
    assert done["pruned"]["after"] <= before / 2 < done["pruned"]["before"]
    assert {o.mutant_id for o in last_run(project.root).outcomes} == project.expected()

    alone = invoke(project.root, "cache", "--to-mb", "1")
    assert alone.exit_code == 2 and "--to-mb goes with --prune" in alone.output
    sound = invoke(project.root, "cache", "--check")
    assert sound.exit_code == 0 and "checked every page" in sound.output


def test_the_cap_is_a_key_of_the_table(tmp_path: Path) -> None:
    """`store-cap-mb` sets the run's cap (200 MB by default); a value that is not a whole number
    of at least 1 is one line naming the key."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["shop"]\n')
    assert resolve(tmp_path).store_cap_mb == 200
    (tmp_path / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["shop"]\nstore-cap-mb = 50\n')
    assert resolve(tmp_path).store_cap_mb == 50
    for value, message in (("0", "must be at least 1, not 0"), ('"big"', "must be a whole number, not 'big'")):
        (tmp_path / "pyproject.toml").write_text(f'[tool.bugsmith]\npaths = ["shop"]\nstore-cap-mb = {value}\n')
        with pytest.raises(ConfigError, match=r"\[tool.bugsmith\] store-cap-mb " + message):
            resolve(tmp_path)


def test_no_store_yet(tmp_path: Path) -> None:
    """`bugsmith cache` in a project that never ran says so; pruning or checking it is an error."""
    (tmp_path / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["."]\n')
    assert "no store in" in invoke(tmp_path, "cache").output
    assert isinstance(invoke(tmp_path, "cache", "--prune").exception, BugsmithError)


def test_a_busy_store_never_fails_the_end_of_a_run(tmp_path: Path) -> None:
    """Another process writing when the run ends: nothing is evicted and the run's end says
    why instead of failing (the next run evicts)."""
    path = tmp_path / "store.sqlite"
    with session(path) as store:
        store.put_baseline("old", baseline_of(300_000, "o"))
    store = Store.open(path)
    store.db.execute("PRAGMA busy_timeout = 50")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert store.baseline("old") is not None
        pruned = store_cap.keep_under(store, 100_000)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert pruned is not None and pruned.stopped and "locked" in pruned.stopped and not pruned.evicted
    store.close()
    with session(path) as store:
        assert store_cap.keep_under(store, 100_000).evicted == {"baselines": 1}
