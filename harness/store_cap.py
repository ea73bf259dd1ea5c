"""The store kept under its size cap: the least recently used entries evicted after a run, and
what `bugsmith cache` measures, prunes and checks.

Why 200 MB by default (`store-cap-mb` in `[tool.bugsmith]`). A cold run of the built-in corpus
(1,414 mutants) leaves 30 MB, nearly all of which the next run reuses: per mutant a verdict
with its covering tests and a kill record (about 6 KB each), and the baseline with its per-test
coverage (2.6 MB), kept as the stored baseline and again as the state a warm run starts from.
Each run after a one-function edit adds 3 to 8 MB for code that is then gone (a baseline, the
edited function's verdicts), a conftest edit 24 MB (every verdict again): 20 such runs made
139 MB, 58 made 233 MB. 200 MB keeps the corpus's working set with 30 to 40 edits of history
(an edit undone, a branch switched back to, an exercise build's variants), and the working set
of a project of about 9,000 mutants alone (about 21 KB each). The cap bounds history, never the
working set: what the last run used is never evicted, so a bigger project keeps what its runs
reuse and loses only older versions; `bugsmith cache` shows how big that is.

When. After a run ends (`keep_under`, from harness.mutation_run) and on `bugsmith cache
--prune`, never during a run. Over the cap, entries go in order of last use
(harness.store's generations) until the pages in use are under 90 % of the cap, so the next
few runs do not each evict again; then the freed pages are given back to the file system
(incremental vacuum) and the write-ahead log is truncated. Never evicted: whatever the last run
and this session used (their generations), anything of a session still open beside this one,
and the last run's record with its verdicts and mutants (what `show` and `report` read). A store
from before last uses were kept has entries with no stamp: they go first, the oldest written
first; it was also made without incremental vacuum (which must be set before the first table),
and is switched by one full VACUUM at its first eviction.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, deque
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bugsmith.errors import BugsmithError, HarnessError
from bugsmith.harness.config import STORE_DIR
from bugsmith.harness.store import TABLES, Store, hold
from bugsmith.harness.store_damage import damaged, full_check, is_damage, set_aside

MB = 1 << 20
LOW_WATER = 0.9  # an eviction goes down to this share of the cap
_INCREMENTAL = 2  # PRAGMA auto_vacuum's value for incremental vacuum
_ROW_OVERHEAD = 128  # bytes an entry takes beyond its data: its key in its table, its index and its stamp
_ROOM = 16 << 10  # what closing the session writes to the log after `keep_under`: a page or two
_OPEN_FOR = timedelta(days=1)  # a session not closed for longer than this ended without closing
Entry = tuple[str, str, str]  # (table, kind among the extras or '', key), as `uses` names it
# How an entry's size is read: the columns that hold its data.
_DATA = dict.fromkeys(TABLES, "length(data)") | {
    "runs": "coalesce(length(keys), 0) + coalesce(length(tests), 0) + coalesce(length(sources), 0)"
            " + coalesce(length(options), 0) + coalesce(length(dropped), 0)"}


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSize:
    """One table of the store: its entries, the bytes of its pages and indexes (None where this
    SQLite cannot count pages), and when its least and most recently used entries were last
    used (None: none, or only entries from before last uses were kept)."""

    name: str
    rows: int
    bytes: int | None
    oldest_use: str | None
    newest_use: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreSize:
    """How big a project's store is: `bytes` on disk (the file and its write-ahead log), of
    which `free` are free pages a prune gives back."""

    path: str
    bytes: int
    free: int
    cap: int
    tables: tuple[TableSize, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Pruned:
    """What one eviction did: bytes on disk before and after, the target, the entries evicted
    per table, whether it ran the one VACUUM that switches an older store to incremental vacuum,
    and why it stopped short (the store was busy), if it did. `after` above `target` with no
    reason means what must stay is bigger than the target."""

    before: int
    after: int
    target: int
    evicted: dict[str, int]
    vacuumed: bool
    stopped: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    """A full check that found every page sound."""

    path: str
    bytes: int


def on_disk(path: Path) -> int:
    """The bytes of the store file and its write-ahead log."""
    return sum(Path(f"{path}{suffix}").stat().st_size for suffix in ("", "-wal") if Path(f"{path}{suffix}").exists())


def _pragma(db: sqlite3.Connection, name: str) -> int:
    return int(db.execute(f"PRAGMA {name}").fetchone()[0])


def in_use(db: sqlite3.Connection) -> int:
    """The bytes of the pages that hold something: the file's size once free pages are given back."""
    return (_pragma(db, "page_count") - _pragma(db, "freelist_count")) * _pragma(db, "page_size")


def keep_under(store: Store, cap: int) -> Pruned | None:
    """After a run: evict down to LOW_WATER of `cap` if the store is over it; give back free pages
    and truncate the log when only they are over it. None when nothing was over. A busy store is
    left as it is (the run has done its work; the next one evicts)."""
    assert store.path is not None
    before = on_disk(store.path)
    try:
        store.flush_uses()
        _forget_sessions(store.db)  # one row per open: trimmed after every run, over the cap or not
        if in_use(store.db) > cap - _ROOM:
            return prune(store, int(cap * LOW_WATER))
        if before > cap - _ROOM:
            vacuumed = _reclaim(store.db)
            return Pruned(before=before, after=on_disk(store.path), target=cap, evicted={}, vacuumed=vacuumed)
    except sqlite3.OperationalError as error:
        if is_damage(error):
            raise
        return Pruned(before=before, after=on_disk(store.path), target=cap, evicted={}, vacuumed=False,
                      stopped=str(error))
    return None


def prune(store: Store, target: int) -> Pruned:
    """Evict the least recently used entries that may go until the pages in use are under
    `target` bytes, then give the freed pages back. A busy store stops it (the next run goes on);
    a damaged one raises as any query would."""
    assert store.path is not None and store.generation is not None
    store.flush_uses()
    before, evicted, vacuumed, stopped = on_disk(store.path), Counter[str](), False, None
    try:
        queue = deque(_candidates(store))
        while queue and in_use(store.db) > target:
            _evict_some(store.db, queue, in_use(store.db) - target, evicted)
        vacuumed = _reclaim(store.db)
        _forget_sessions(store.db)
    except sqlite3.OperationalError as error:  # busy or locked: what was evicted stays evicted
        if is_damage(error):
            raise
        stopped = str(error)
    return Pruned(before=before, after=on_disk(store.path), target=target, evicted=dict(evicted),
                  vacuumed=vacuumed, stopped=stopped)


def _keep_from(store: Store) -> int:
    """The oldest generation whose entries stay: this session's, the last run's, and that of any
    session still open beside this one (an exercise build, an evaluation)."""
    db, kept = store.db, [store.generation or 0]
    last = db.execute("SELECT used FROM uses WHERE entry = 'runs' AND kind = '' AND key ="
                      " (SELECT CAST(MAX(id) AS TEXT) FROM runs)").fetchone()
    if last is not None:  # none: a run from before last uses were kept
        kept.append(last[0])
    since = (datetime.now(UTC) - _OPEN_FOR).isoformat(timespec="seconds")
    kept += [g for (g,) in db.execute("SELECT generation FROM sessions WHERE closed IS NULL AND opened >= ?",
                                      (since,))]
    return min(kept)


def _last_run_entries(db: sqlite3.Connection) -> set[Entry]:
    """The last run's record, its verdicts, its mutants and its warnings: what `show` and
    `report` read, kept even where a lost stamp makes them look old."""
    row = db.execute("SELECT id, keys, started FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return set()
    run_id, keys, started = row
    try:
        by_mutant: dict[str, str] = json.loads(keys)
    except ValueError:
        by_mutant = {}
    return {("runs", "", str(run_id)), ("extras", "warnings", started),
            *(("outcomes", "", key) for key in by_mutant.values()), *(("mutants", "", m) for m in by_mutant)}


def _name(table: str, alias: str = "") -> tuple[str, str]:
    """SQL for an entry's kind and key in `table`, as `uses` spells them."""
    return (f"{alias}kind" if table == "extras" else "''",
            f"CAST({alias}id AS TEXT)" if table == "runs" else f"{alias}{TABLES[table]}")


def _candidates(store: Store) -> list[Entry]:
    """Every entry that may go, least recently used first: the stamps from `uses`' index, after
    the entries that have none (from before last uses were kept), oldest written first by their
    place in their table; read from indexes, never from the entries' data."""
    db, keep_from, kept = store.db, _keep_from(store), _last_run_entries(store.db)
    found: list[tuple[int, float, Entry]] = [(used, 0.0, (entry, kind, key)) for used, entry, kind, key in db.execute(
        "SELECT used, entry, kind, key FROM uses WHERE used < ? ORDER BY used", (keep_from,))]
    for table in TABLES:
        kind, key = _name(table, "t.")
        last = db.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 1
        found += [(0, rowid / last, (table, k, n)) for rowid, k, n in db.execute(
            f"SELECT t.rowid, {kind}, {key} FROM {table} AS t WHERE NOT EXISTS (SELECT 1 FROM uses"
            f" WHERE uses.entry = ? AND uses.kind = {kind} AND uses.key = {key})", (table,))]
    return [entry for _, _, entry in sorted(found) if entry not in kept]


def _where(table: str, kind: str, keys: list[str]) -> tuple[str, list[str | int]]:
    """A WHERE clause for `keys` of `kind` in `table`, and its parameters (a run by its id, so
    the primary key answers it)."""
    marks = ",".join("?" * len(keys))
    if table == "runs":
        return f"id IN ({marks})", [int(key) for key in keys]
    if table == "extras":
        return f"kind = ? AND key IN ({marks})", [kind, *keys]
    return f"{TABLES[table]} IN ({marks})", list(keys)


def _sizes(db: sqlite3.Connection, entries: list[Entry]) -> dict[Entry, int]:
    """The bytes of each entry's data (read now, as the entries about to go are reached)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for table, kind, key in entries:
        groups.setdefault((table, kind), []).append(key)
    sizes: dict[Entry, int] = {}
    for (table, kind), keys in groups.items():
        where, values = _where(table, kind, keys)
        sizes.update(((table, kind, str(key)), size or 0) for key, size in db.execute(
            f"SELECT {_name(table)[1]}, {_DATA[table]} FROM {table} WHERE {where}", values))
    return sizes


def _evict_some(db: sqlite3.Connection, queue: deque[Entry], excess: int,
                evicted: Counter[str]) -> None:
    """Delete, in one transaction, the entries at the head of `queue` whose data add up to
    `excess` bytes (one at least), with their stamps; sizes are read 200 entries at a time."""
    batch: list[Entry] = []
    freed = 0
    while queue and freed < excess:
        block = [queue.popleft() for _ in range(min(200, len(queue)))]
        sizes = _sizes(db, block)
        for position, entry in enumerate(block):
            if freed >= excess:
                queue.extendleft(reversed(block[position:]))
                break
            batch.append(entry)
            freed += sizes.get(entry, 0) + _ROW_OVERHEAD
    groups: dict[tuple[str, str], list[str]] = {}
    for table, kind, key in batch:
        groups.setdefault((table, kind), []).append(key)
    db.execute("BEGIN IMMEDIATE")
    try:
        for (table, kind), keys in groups.items():
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                where, values = _where(table, kind, chunk)
                db.execute(f"DELETE FROM {table} WHERE {where}", values)
                db.execute(f"DELETE FROM uses WHERE entry = ? AND kind = ? AND key IN ({','.join('?' * len(chunk))})",
                           (table, kind, *chunk))
            evicted[table] += len(keys)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _reclaim(db: sqlite3.Connection) -> bool:
    """Give the free pages back to the file system and truncate the write-ahead log; True when
    that took the one VACUUM that switches an older store to incremental vacuum."""
    vacuumed = _pragma(db, "auto_vacuum") != _INCREMENTAL
    if vacuumed:
        db.executescript("PRAGMA auto_vacuum=INCREMENTAL; VACUUM;")
    elif _pragma(db, "freelist_count"):
        # executescript, not execute: the pragma frees one page per step, and only a script
        # steps it to the end
        db.executescript("PRAGMA incremental_vacuum;")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return vacuumed


def _forget_sessions(db: sqlite3.Connection) -> None:
    """Drop the sessions no entry is stamped with any more that have ended (closed, or opened
    too long ago to be still open)."""
    oldest = db.execute("SELECT MIN(used) FROM uses").fetchone()[0]
    since = (datetime.now(UTC) - _OPEN_FOR).isoformat(timespec="seconds")
    db.execute("DELETE FROM sessions WHERE generation < ? AND (closed IS NOT NULL OR opened < ?)",
               (1 << 62 if oldest is None else oldest, since))


# What `bugsmith cache` asks of a project's store ------------------------------------------
def store_path(root: Path) -> Path:
    return root / STORE_DIR / "bugsmith.sqlite"


def measure(root: Path, cap_mb: int) -> StoreSize | None:
    """How big the project's store is, read without writing to it; None when it has none."""
    path = store_path(root)
    if not path.is_file():
        return None
    store = Store.open_read_only(path)
    try:
        db = store.db
        pages = _pages_per_table(db)
        tables = tuple(_table_size(db, table, pages.get(table)) for table in TABLES)
        free = _pragma(db, "freelist_count") * _pragma(db, "page_size")
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            raise damaged(path, error) from None
        raise
    finally:
        store.close()
    return StoreSize(path=str(path), bytes=on_disk(path), free=free, cap=cap_mb * MB, tables=tables)


def _pages_per_table(db: sqlite3.Connection) -> dict[str, int]:
    """Bytes of each table's pages with its indexes', from SQLite's page counts (dbstat's
    aggregate reads each b-tree's summary, not every entry); empty where dbstat is missing."""
    owner = dict(db.execute("SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')"))
    try:
        rows = db.execute("SELECT name, pgsize FROM dbstat WHERE aggregate = 1").fetchall()
    except sqlite3.OperationalError:
        return {}
    found: Counter[str] = Counter()
    for name, size in rows:
        found[owner.get(name, name)] += size
    return dict(found)


def _table_size(db: sqlite3.Connection, table: str, pages: int | None) -> TableSize:
    rows = int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    if "uses" not in {name for (name,) in db.execute("SELECT name FROM sqlite_schema")}:
        return TableSize(name=table, rows=rows, bytes=pages, oldest_use=None, newest_use=None)  # not kept yet
    low, high = db.execute("SELECT MIN(used), MAX(used) FROM uses WHERE entry = ?", (table,)).fetchone()
    return TableSize(name=table, rows=rows, bytes=pages, oldest_use=_opened(db, low), newest_use=_opened(db, high))


def _opened(db: sqlite3.Connection, generation: int | None) -> str | None:
    if generation is None:
        return None
    row = db.execute("SELECT opened FROM sessions WHERE generation = ?", (generation,)).fetchone()
    return row[0] if row else None


def prune_project(root: Path, target_mb: float) -> Pruned:
    """Evict now, down to `target_mb`, holding the store as a run does (so never while one runs)."""
    path = store_path(root)
    if not path.is_file():
        raise BugsmithError(f"no store in {root} yet: nothing to prune")
    with hold(path.parent):
        store = Store.open(path)
        try:
            return prune(store, int(target_mb * MB))
        finally:
            store.close()


def check_project(root: Path) -> Checked:
    """Read every page of the project's store; a damaged store is set aside (the next run starts
    a new one) and the error says so."""
    path = store_path(root)
    if not path.is_file():
        raise BugsmithError(f"no store in {root} yet: nothing to check")
    with hold(path.parent):
        try:
            connection = sqlite3.connect(path, timeout=30)
            try:
                full_check(connection)
            finally:
                connection.close()
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise BugsmithError(f"cannot read the store {path}: {error}") from None
            aside = set_aside(path)
            raise HarnessError(f"the store {path} is damaged ({error}): moved it aside to {aside.name}; the"
                               " next run starts a new one (its verdicts are recomputed)") from None
    return Checked(path=str(path), bytes=on_disk(path))


# What `bugsmith cache` prints ---------------------------------------------------------------
def _mb(size: int | None) -> str:
    return "?" if size is None else f"{size / MB:.1f} MB"


def size_text(size: StoreSize) -> str:
    """The store's size against its cap, and a line per table."""
    lines = [f"{size.path}: {_mb(size.bytes)} of a {_mb(size.cap)} cap ({_mb(size.free)} of it free pages)",
             f"{'table':<10} {'rows':>9} {'size':>10}  {'oldest use':<25}  newest use"]
    for t in size.tables:
        unknown = "not recorded" if t.rows else "-"  # entries from before last uses were kept
        lines.append(f"{t.name:<10} {t.rows:>9,} {_mb(t.bytes):>10}  {t.oldest_use or unknown:<25}"
                     f"  {t.newest_use or unknown}")
    return "\n".join(lines)


def pruned_text(pruned: Pruned) -> str:
    """What a prune evicted, and where it left the store."""
    evicted = ", ".join(f"{n:,} {table}" for table, n in pruned.evicted.items() if n) or "nothing"
    text = f"pruned: evicted {evicted}; {_mb(pruned.before)} -> {_mb(pruned.after)} (target {_mb(pruned.target)})"
    if pruned.vacuumed:
        text += "; a full VACUUM switched this store to incremental vacuum (once)"
    if pruned.stopped:
        text += f"; stopped early: {pruned.stopped}"
    elif pruned.after > pruned.target:
        text += "; what the last run used stays, and it alone is over the target"
    return text
