"""The SQLite store under `.bugsmith/`: outcomes as they are produced, runs, baselines.

Outcomes are keyed by a hash of everything that can change a verdict (the mutant, the code of
its function, its covering tests and their files, the verdict options), so an interrupted run
resumes where it stopped and a re-run after an edit re-tests only what the edit touched.
Read-only commands open the file read-only and never create it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bugsmith.errors import BugsmithError
from bugsmith.harness.config import STORE_DIR, make_state_folder
from bugsmith.harness.outcome import Outcome, RunResult, TestInfo
from bugsmith.mutators.mutant import Mutant

SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (key TEXT PRIMARY KEY, mutant_id TEXT, data TEXT);
CREATE TABLE IF NOT EXISTS mutants (id TEXT PRIMARY KEY, data TEXT);
CREATE TABLE IF NOT EXISTS baselines (fingerprint TEXT PRIMARY KEY, data TEXT);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT, duration REAL, finished INTEGER,
    root TEXT, options TEXT, keys TEXT, tests TEXT, sources TEXT, dropped TEXT
);
CREATE TABLE IF NOT EXISTS extras (kind TEXT, key TEXT, data TEXT, PRIMARY KEY (kind, key));
"""


class Store:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self.db = connection

    @classmethod
    def open(cls, path: Path) -> Store:
        if path.parent.name == STORE_DIR:
            make_state_folder(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, isolation_level=None, timeout=30)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.executescript(SCHEMA)
        return cls(connection)

    @classmethod
    def open_read_only(cls, path: Path) -> Store:
        if not path.is_file():
            raise BugsmithError(f"no bugsmith run found at {path.parent.parent}: run `bugsmith run` first")
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            connection.execute("SELECT 1 FROM runs LIMIT 1")
        except sqlite3.Error as error:
            raise BugsmithError(f"cannot read the store {path}: {error}") from None
        return cls(connection)

    def close(self) -> None:
        self.db.close()

    # outcomes -------------------------------------------------------------------------
    def cached(self, keys: Iterable[str]) -> dict[str, Outcome]:
        found: dict[str, Outcome] = {}
        keys = list(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, data in self.db.execute(f"SELECT key, data FROM outcomes WHERE key IN ({marks})", chunk):
                found[key] = Outcome.from_dict(json.loads(data))
        return found

    def put_outcome(self, key: str, outcome: Outcome) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?)",
            (key, outcome.mutant_id, json.dumps(outcome.to_dict())),
        )

    def put_mutants(self, mutants: Iterable[Mutant]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO mutants VALUES (?, ?)",
                [(m.id, json.dumps(m.to_dict())) for m in mutants],
            )

    def mutant(self, mutant_id: str) -> Mutant | None:
        row = self.db.execute("SELECT data FROM mutants WHERE id = ?", (mutant_id,)).fetchone()
        return Mutant.from_dict(json.loads(row[0])) if row else None

    # baselines ------------------------------------------------------------------------
    def baseline(self, fingerprint: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT data FROM baselines WHERE fingerprint = ?", (fingerprint,)).fetchone()
        return json.loads(row[0]) if row else None

    def put_baseline(self, fingerprint: str, data: dict[str, Any]) -> None:
        self.db.execute("INSERT OR REPLACE INTO baselines VALUES (?, ?)", (fingerprint, json.dumps(data)))

    # runs -----------------------------------------------------------------------------
    def start_run(self, *, started: str, root: str, options: dict[str, Any], keys: dict[str, str],
                  tests: list[TestInfo], sources: dict[str, str], dropped: dict[str, int]) -> int:
        cursor = self.db.execute(
            "INSERT INTO runs (started, duration, finished, root, options, keys, tests, sources, dropped)"
            " VALUES (?, 0, 0, ?, ?, ?, ?, ?, ?)",
            (started, root, json.dumps(options), json.dumps(keys),
             json.dumps([{"id": t.id, "file": t.file, "duration": t.duration} for t in tests]),
             json.dumps(sources), json.dumps(dropped)),
        )
        return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, duration: float) -> None:
        self.db.execute("UPDATE runs SET duration = ?, finished = 1 WHERE id = ?", (duration, run_id))

    def last_run(self) -> RunResult:
        """The most recent run, with the outcomes stored so far (an interrupted run is partial)."""
        row = self.db.execute(
            "SELECT started, duration, root, options, keys, tests, sources, dropped FROM runs"
            " ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise BugsmithError("the store holds no run yet: run `bugsmith run` first")
        started, duration, root, options, keys, tests, sources, dropped = row
        keys = json.loads(keys)
        outcomes = self.cached(keys.values())
        mutants = [self.mutant(mutant_id) for mutant_id in keys]
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
        )

    # results of later stages (triage, exercises) ---------------------------------------
    def put_extra(self, kind: str, key: str, data: dict[str, Any]) -> None:
        self.db.execute("INSERT OR REPLACE INTO extras VALUES (?, ?, ?)", (kind, key, json.dumps(data)))

    def extras(self, kind: str) -> dict[str, dict[str, Any]]:
        return {k: json.loads(d) for k, d in self.db.execute("SELECT key, data FROM extras WHERE kind = ?", (kind,))}
