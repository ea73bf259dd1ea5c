"""The SQLite store under `.bugsmith/`: outcomes as they are produced, runs, baselines.

Outcomes are keyed by a hash of everything that can change a verdict (the mutant, the code of
its function, its covering tests and their files, the verdict options), so an interrupted run
resumes where it stopped and a re-run after an edit re-tests only what the edit touched.
Read-only commands open the file read-only and never create it, so `report` and `show` are
safe while a run writes. One run at a time holds the store (`hold`): two runs at once would
both do all the work, and each would report whichever run started last. The store is a cache
of verdicts, so a damaged file is moved aside and rebuilt by `run`, never a traceback
(harness.store_damage says what is checked when).

Every entry keeps its last use: the generation of the session (one `Store.open` for writing)
that last wrote or read it, in a narrow table of its own (`uses`: stamping a verdict read again
must not rewrite its row, which SQLite rewrites whole, a few KB of covering tests). A write
stamps it at once; a read is noted in memory and stamped with all the others when the session
ends (`flush_uses`), so no hot loop pays a write per read. harness.store_cap evicts by it, least
recently used first, after a run.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from bugsmith.errors import BugsmithError, HarnessError
from bugsmith.harness.config import STORE_DIR, make_state_folder
from bugsmith.harness.outcome import Outcome, RunResult, TestInfo
from bugsmith.harness.store_damage import check_structure, damaged, is_damage, set_aside
from bugsmith.mutators.mutant import Mutant

T = TypeVar("T")

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS outcomes (key TEXT PRIMARY KEY, mutant_id TEXT, data TEXT)",
    "CREATE TABLE IF NOT EXISTS mutants (id TEXT PRIMARY KEY, data TEXT)",
    "CREATE TABLE IF NOT EXISTS baselines (fingerprint TEXT PRIMARY KEY, data TEXT)",
    "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT, duration REAL,"
    " finished INTEGER, root TEXT, options TEXT, keys TEXT, tests TEXT, sources TEXT, dropped TEXT)",
    "CREATE TABLE IF NOT EXISTS extras (kind TEXT, key TEXT, data TEXT, PRIMARY KEY (kind, key))",
    # One row per session: its generation stamps what it uses.
    "CREATE TABLE IF NOT EXISTS sessions (generation INTEGER PRIMARY KEY AUTOINCREMENT, opened TEXT, closed TEXT)",
    # Each entry's last use: `entry` names its table, `kind` its kind among the extras ('' elsewhere).
    "CREATE TABLE IF NOT EXISTS uses (entry TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,"
    " used INTEGER NOT NULL, PRIMARY KEY (entry, kind, key)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS uses_used ON uses (used)",
)
# The tables of entries, and the column that names an entry in each (an extra is named by its
# kind too). An entry without a stamp (a store from before last uses were kept) is older than any
# with one. A run's record is stamped when written only (harness.store_cap keeps the last one).
TABLES = {"outcomes": "key", "mutants": "id", "baselines": "fingerprint", "runs": "id", "extras": "key"}
CHECKED = (*TABLES, "sessions", "uses")  # what opening reads the first pages of
# A read's stamp: never older than the one the entry has.
_STAMP = ("INSERT INTO uses VALUES (?, ?, ?, ?) ON CONFLICT (entry, kind, key) DO UPDATE SET used = excluded.used"
          " WHERE used < excluded.used")


LOCK_FILE = "run.lock"


@contextmanager
def hold(folder: Path) -> Iterator[None]:
    """Hold the state folder for one run, or fail at once naming the run that holds it.

    An advisory `flock` on `folder/run.lock`, which holds the holder's pid: the kernel releases
    it when the holder ends however it ends, so a killed run never leaves a stale lock. The
    descriptor is not inherited by the processes a run starts (Python opens it close-on-exec).
    """
    make_state_folder(folder)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise BugsmithError(f"another bugsmith run (pid {holder}) is using {folder}/: wait for it to"
                                " end (or stop it) and run again") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _create_tables(connection: sqlite3.Connection) -> None:
    """Create what the store lacks (a store from before last uses were kept lacks `sessions` and
    `uses`), in one transaction; a store that has it all is left alone, without a write lock."""
    names = {name for (name,) in connection.execute("SELECT name FROM sqlite_schema")}
    if names >= {*CHECKED, "uses_used"}:
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA:
            connection.execute(statement)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


RUNS_LOOKED_BACK = 5  # runs `previous_run` reads back for code that differs from the current code


class Store:
    def __init__(self, connection: sqlite3.Connection, *, path: Path | None = None,
                 moved_aside: Path | None = None, generation: int | None = None) -> None:
        self.db = connection
        self.path = path
        self.moved_aside = moved_aside  # where a damaged store went, when `open` rebuilt it
        self.generation = generation  # this session's use stamp; None when read-only
        self._read: set[tuple[str, str, str]] = set()  # (entry, kind, key) read and not yet stamped

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (or create) the store for writing; a damaged file is moved aside to
        `bugsmith.sqlite.corrupt-<time>` and a new store started in its place."""
        if path.parent.name == STORE_DIR:
            make_state_folder(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            connection, generation = cls._connect(path)
            return cls(connection, path=path, generation=generation)
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            aside = set_aside(path)
            connection, generation = cls._connect(path)
            return cls(connection, path=path, moved_aside=aside, generation=generation)

    @staticmethod
    def _connect(path: Path) -> tuple[sqlite3.Connection, int]:
        connection = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            # Takes effect in a new file only (before its first table); an older store switches
            # at its first eviction, by one VACUUM (harness.store_cap).
            connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            check_structure(connection, CHECKED)
            _create_tables(connection)
            generation = connection.execute("INSERT INTO sessions (opened) VALUES (?)", (_now(),)).lastrowid
        except BaseException:
            connection.close()
            raise
        return connection, int(generation or 0)

    @classmethod
    def open_read_only(cls, path: Path) -> Store:
        if not path.is_file():
            raise BugsmithError(f"no bugsmith run found at {path.parent.parent}: run `bugsmith run` first")
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            connection.execute("SELECT 1 FROM runs LIMIT 1")
            check_structure(connection, CHECKED)
        except sqlite3.Error as error:
            if is_damage(error):
                raise damaged(path, error) from None
            raise BugsmithError(f"cannot read the store {path}: {error}") from None
        return cls(connection, path=path)

    def close(self) -> None:
        """Stamp what this session read, mark it closed, and close the file. The stamps are
        hints: a store that cannot take them now (busy, damaged) closes without them."""
        if self.generation is not None:
            try:
                self.flush_uses()
                self.db.execute("UPDATE sessions SET closed = ? WHERE generation = ?", (_now(), self.generation))
            except sqlite3.Error:
                pass
            self.generation = None
        self.db.close()

    # last uses ------------------------------------------------------------------------
    def _used(self, entry: str, keys: Iterable[str], kind: str = "") -> None:
        if self.generation is not None:
            self._read.update((entry, kind, key) for key in keys)

    def _stamp(self, entry: str, keys: Iterable[str], kind: str = "") -> None:
        """Stamp entries this session writes (a write is always this session's latest use)."""
        self.db.executemany("REPLACE INTO uses VALUES (?, ?, ?, ?)",
                            [(entry, kind, key, self.generation) for key in keys])

    def flush_uses(self) -> None:
        """Stamp every entry this session read with its generation, in one transaction (a few
        hundred bytes a page of stamps, not the entries' rows)."""
        read, self._read = self._read, set()
        if self.generation is None or not read:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany(_STAMP, [(*entry, self.generation) for entry in read])
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    # outcomes -------------------------------------------------------------------------
    def cached(self, keys: Iterable[str]) -> dict[str, Outcome]:
        found: dict[str, Outcome] = {}
        for key, data in self._rows("outcomes", "key", keys):
            try:
                found[key] = Outcome.from_dict(json.loads(data))
            except (ValueError, KeyError, TypeError):
                continue  # a garbled verdict is a cache miss: the run computes it again
        self._used("outcomes", found)
        return found

    def _rows(self, table: str, column: str, ids: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(id, data) of the rows of `table` whose `column` is one of `ids`: 500 to a query, not one
        query each (SQLite allows a few hundred parameters to a statement everywhere)."""
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            yield from self.db.execute(f"SELECT {column}, data FROM {table} WHERE {column} IN ({marks})", chunk)

    def put_outcome(self, key: str, outcome: Outcome) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?)",
            (key, outcome.mutant_id, json.dumps(outcome.to_dict())),
        )
        self._stamp("outcomes", (key,))

    def put_mutants(self, mutants: Iterable[Mutant]) -> None:
        """Store the mutants whose record is new or differs (a warm run's are mostly stored)."""
        rows = {m.id: json.dumps(m.to_dict()) for m in mutants}
        for mutant_id, data in self._rows("mutants", "id", list(rows)):
            if rows.get(mutant_id) == data:
                del rows[mutant_id]
                self._used("mutants", (mutant_id,))
        if rows:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO mutants VALUES (?, ?)", list(rows.items()))
                self._stamp("mutants", rows)

    def mutant(self, mutant_id: str) -> Mutant | None:
        row = self.db.execute("SELECT data FROM mutants WHERE id = ?", (mutant_id,)).fetchone()
        if row is None:
            return None
        self._used("mutants", (mutant_id,))
        return Mutant.from_dict(json.loads(row[0]))

    def mutants(self, ids: Iterable[str]) -> dict[str, Mutant]:
        """The stored mutants of `ids` (one query per 500, not one each: a run's report reads them all)."""
        found = {mutant_id: Mutant.from_dict(json.loads(data)) for mutant_id, data in self._rows("mutants", "id", ids)}
        self._used("mutants", found)
        return found

    # baselines ------------------------------------------------------------------------
    def baseline(self, fingerprint: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT data FROM baselines WHERE fingerprint = ?", (fingerprint,)).fetchone()
        if row is None:
            return None
        self._used("baselines", (fingerprint,))
        return json.loads(row[0])

    def baselines(self) -> list[dict[str, Any]]:
        """Every stored baseline (a throwaway project's store holds the one of its run; a
        read-only store's reader, so no last use changes)."""
        return [json.loads(data) for (data,) in self.db.execute("SELECT data FROM baselines")]

    def put_baseline(self, fingerprint: str, data: dict[str, Any]) -> None:
        self.db.execute("INSERT OR REPLACE INTO baselines VALUES (?, ?)", (fingerprint, json.dumps(data)))
        self._stamp("baselines", (fingerprint,))

    # runs -----------------------------------------------------------------------------
    def start_run(self, *, started: str, root: str, options: dict[str, Any], keys: dict[str, str],
                  tests: list[TestInfo], sources: dict[str, str], dropped: dict[str, Any]) -> int:
        cursor = self.db.execute(
            "INSERT INTO runs (started, duration, finished, root, options, keys, tests, sources, dropped)"
            " VALUES (?, 0, 0, ?, ?, ?, ?, ?, ?)",
            (started, root, json.dumps(options), json.dumps(keys),
             json.dumps([{"id": t.id, "file": t.file, "duration": t.duration} for t in tests]),
             json.dumps(sources), json.dumps(dropped)),
        )
        run_id = int(cursor.lastrowid or 0)
        self._stamp("runs", (str(run_id),))
        return run_id

    def finish_run(self, run_id: int, duration: float) -> None:
        self.db.execute("UPDATE runs SET duration = ?, finished = 1 WHERE id = ?", (duration, run_id))

    def previous_run(self, sources: Mapping[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]] | None:
        """The most recent run's keys (mutant id -> outcome key) and sources, None before any.
        Given the current `sources`, the most recent of the last few runs whose sources differ
        from them: a big full run takes a sample first (harness.budget.run_sample_first), and
        the code before an edit is the run before that sample."""
        rows = self.db.execute("SELECT keys, sources FROM runs ORDER BY id DESC LIMIT ?",
                               (1 if sources is None else RUNS_LOOKED_BACK,)).fetchall()
        found: tuple[dict[str, str], dict[str, str]] | None = None
        for keys, texts in rows:
            try:
                run = json.loads(keys), json.loads(texts)
            except ValueError:
                continue
            found = found or run
            if sources is None or run[1] != dict(sources):
                return run
        return found

    def last_run(self) -> RunResult:
        """The most recent run, with the outcomes stored so far (an interrupted run, or one
        still going, is partial)."""
        row = self.db.execute("SELECT MAX(id) FROM runs").fetchone()
        if row is None or row[0] is None:
            raise BugsmithError("the store holds no run yet: run `bugsmith run` first")
        return self.run_result(row[0])

    def run_result(self, run_id: int) -> RunResult:
        """Run `run_id` with its outcomes: a run reports itself, never a later one."""
        row = self.db.execute(
            "SELECT started, duration, root, options, keys, tests, sources, dropped FROM runs WHERE id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise HarnessError(f"the store has no run {run_id}")
        started, duration, root, options, keys, tests, sources, dropped = row
        keys = json.loads(keys)
        outcomes = self.cached(keys.values())
        stored = self.mutants(keys)
        mutants = [stored.get(mutant_id) for mutant_id in keys]
        dropped = json.loads(dropped)
        return RunResult(
            root=root,
            started=started,
            duration=duration,
            options=json.loads(options),
            mutants=tuple(m for m in mutants if m is not None),
            outcomes=tuple(outcomes[key] for key in keys.values() if key in outcomes),
            tests=tuple(TestInfo(**t) for t in json.loads(tests)),
            sources=json.loads(sources),
            dropped_equivalent=dropped.get("equivalent", 0),
            dropped_duplicates=dropped.get("duplicates", 0),
            # The tree's check comes after the run is recorded, so its warnings are an extra.
            warnings=(*dropped.get("warnings", ()), *(self.extras_at("warnings", started) or {}).get("warnings", ())),
        )

    # results of later stages (triage, exercises) ---------------------------------------
    def put_extra(self, kind: str, key: str, data: dict[str, Any]) -> None:
        self.db.execute("INSERT OR REPLACE INTO extras VALUES (?, ?, ?)", (kind, key, json.dumps(data)))
        self._stamp("extras", (key,), kind)

    def by_content(self, kind: str, content: bytes, compute: Callable[[], T],
                   encode: Callable[[T], dict[str, Any]], decode: Callable[[dict[str, Any]], T]) -> T:
        """What `compute` gives for `content`, kept in the extras of `kind` by the content's
        digest (`kind` names a version of what it computes): a stored answer where the same bytes
        were seen before, else computed now and stored; a garbled entry is a miss."""
        key = hashlib.sha256(kind.encode() + b"\0" + content).hexdigest()
        stored = self.extras_at(kind, key)
        if stored is not None:
            try:
                return decode(stored)
            except (KeyError, TypeError, ValueError):
                pass
        found = compute()
        self.put_extra(kind, key, encode(found))
        return found

    def extras_at(self, kind: str, key: str) -> dict[str, Any] | None:
        """One extra, None if absent or garbled (the extras are caches: a miss is recomputed)."""
        row = self.db.execute("SELECT data FROM extras WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        if row is None:
            return None
        self._used("extras", (key,), kind)
        try:
            return json.loads(row[0])
        except ValueError:
            return None

    def extras(self, kind: str) -> dict[str, dict[str, Any]]:
        """Every extra of `kind`: a caller that reads a kind whole uses all of it."""
        found = {k: json.loads(d) for k, d in self.db.execute("SELECT key, data FROM extras WHERE kind = ?", (kind,))}
        self._used("extras", found, kind)
        return found


# What the read-only commands (`report`, `show`) ask of a project's store ---------------------
@contextmanager
def reading(root: Path) -> Iterator[Store]:
    """The project's store, read-only; a damaged page met while reading is the one-line error
    `damaged`, as one met at the open is (opening reads only a few pages)."""
    path = root / STORE_DIR / "bugsmith.sqlite"
    store = Store.open_read_only(path)
    try:
        yield store
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            raise damaged(path, error) from None
        raise
    finally:
        store.close()


def last_run(root: Path) -> RunResult:
    """The project's most recent run, read from its store without writing to it."""
    if not (root / STORE_DIR / "bugsmith.sqlite").is_file():
        raise BugsmithError(f"no bugsmith run in {root} yet: run `bugsmith run` first")
    with reading(root) as store:
        return store.last_run()


def stored_mutant(root: Path, mutant_id: str) -> tuple[Mutant | None, Outcome | None]:
    """A mutant the project's store knows, and its outcome in the last run (None if it has none);
    (None, None) when the project has no store or the store does not know the mutant."""
    if not (root / STORE_DIR / "bugsmith.sqlite").is_file():
        return None, None
    with reading(root) as store:
        mutant = store.mutant(mutant_id)
        if mutant is None:
            return None, None
        return mutant, next((o for o in store.last_run().outcomes if o.mutant_id == mutant_id), None)
