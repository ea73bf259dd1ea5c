"""A damaged store: what is checked when, how damage is told from a busy file, and a damaged file
set aside so that the next open starts a new one (the store is a cache of verdicts).

What is checked when. Opening reads a few pages whatever the store's size (`check_structure`):
SQLite checks the header (a file that is not a database, or that holds fewer pages than its
header counts, as a truncated one does, is refused), and we read the schema and the first pages
of each table and index. Any query that later meets a damaged page fails with SQLITE_CORRUPT
(`is_damage`): `run` then sets the store aside and stops in one line, and `report` and `show` say
it is damaged. `bugsmith cache --check` reads every page (`full_check`) and sets a damaged store
aside. (Until issue 41 every open ran `PRAGMA quick_check`, which reads the whole file: 233 MB
after 58 corpus runs.)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Container
from datetime import UTC, datetime
from pathlib import Path

from bugsmith.errors import HarnessError


def damaged(path: Path, error: Exception) -> HarnessError:
    return HarnessError(f"the store {path} is damaged ({error}): `bugsmith cache --check` moves it aside and"
                        " the next run starts a new one (its verdicts are recomputed), or delete it")


class _Unsound(sqlite3.DatabaseError):
    """The full check found damaged pages."""


# SQLite's primary result codes for a damaged file (the low byte of an extended code).
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26


def is_damage(error: sqlite3.Error) -> bool:
    """Whether `error` says the file is damaged, as opposed to busy, locked or unreadable
    (an OperationalError is also a DatabaseError, and a busy store must never be moved aside)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, _Unsound) or (code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB))


def set_aside(path: Path) -> Path:
    """Move a damaged store to `<name>.corrupt-<time>` (kept for a bug report, never read
    again), so that the next open starts a new one."""
    aside = path.with_name(f"{path.name}.corrupt-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}")
    path.rename(aside)
    for suffix in ("-wal", "-shm"):  # they belong to the damaged file, not to a new one
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return aside


def check_structure(connection: sqlite3.Connection, tables: Container[str]) -> None:
    """Raise unless the header, the schema and the first pages of each of `tables` and their
    indexes read back: a few pages, however big the store."""
    for kind, name, table in connection.execute("SELECT type, name, tbl_name FROM sqlite_schema"
                                                " WHERE type IN ('table', 'index') ORDER BY name"):
        if table in tables:  # the root page and the first leaf of each b-tree
            using = "NOT INDEXED" if kind == "table" else f"INDEXED BY {name}"
            connection.execute(f"SELECT 1 FROM {table} {using} LIMIT 1").fetchall()


def full_check(connection: sqlite3.Connection) -> None:
    """Raise unless every page of the file is sound (`PRAGMA integrity_check`, its first five
    problems): it reads the whole file, so only `bugsmith cache --check` asks for it."""
    problems = connection.execute("PRAGMA integrity_check(5)").fetchall()
    if problems != [("ok",)]:
        raise _Unsound(" ".join("; ".join(str(row[0]) for row in problems[:2]).split()))
