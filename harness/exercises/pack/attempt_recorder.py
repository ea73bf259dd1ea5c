"""Adds one line to runs.jsonl, beside this file, each time the tests run in this folder.

A line holds: when the run happened (UTC), the command-line arguments and the folder pytest ran
from (relative to this one), the tests selected and how each ended (passed, failed, error or
skipped), pytest's exit status, and the state of the code files that start.json lists: a sha256
per file and a unified diff against the code as it was handed out. Each line also carries the
sha256 of the line before it and its own (over its JSON with sorted keys and no spaces), so that
the lines form a chain. Nothing else is read or kept: no keystrokes, no other files.

conftest.py at the folder's root loads this file. It never changes how the tests run: an
error here is caught and noted in the line it writes, or dropped when it cannot write.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

FORMAT = 1
LOG = "runs.jsonl"
START = "start.json"
PLUGIN = "attempt-recorder"


def install(config: Any, folder: Path) -> None:
    """Register the recorder for this pytest session (not in worker processes of pytest-xdist)."""
    if hasattr(config, "workerinput") or config.pluginmanager.has_plugin(PLUGIN):
        return
    config.pluginmanager.register(Recorder(folder, config), PLUGIN)


class Recorder:
    """The pytest hooks that collect one run's facts and append them as one line."""

    def __init__(self, folder: Path, config: Any) -> None:
        self.folder = folder
        self.config = config
        self.selected: list[str] = []
        self.outcomes: dict[str, str] = {}
        self.notes: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        try:
            if report.failed:
                self.outcomes[report.nodeid or "."] = "error"
        except Exception as error:  # never the run's problem
            self._note("collection", error)

    def pytest_collection_finish(self, session: Any) -> None:
        try:
            self.selected = [item.nodeid for item in session.items]
        except Exception as error:
            self._note("selection", error)

    def pytest_runtest_logreport(self, report: Any) -> None:
        try:
            outcome = phase_outcome(report.when, report.outcome)
            if outcome is not None and not (outcome == "skipped" and report.nodeid in self.outcomes):
                self.outcomes[report.nodeid] = outcome
        except Exception as error:
            self._note("outcome", error)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        try:
            if self.config.option.collectonly:  # nothing was run
                return
        except Exception:
            pass
        try:
            record = self._facts(session, exitstatus)
        except Exception as error:
            self._note("facts", error)
            record = {"selected": self.selected, "outcomes": self.outcomes, "exit": _status(exitstatus),
                      "code": None, "diff": None}
        try:
            append(self.folder / ".attempt" / LOG, record, self.notes)
        except Exception:  # a folder we cannot write: no record, the same run
            pass

    def _facts(self, session: Any, exitstatus: Any) -> dict[str, Any]:
        args = [str(a) for a in self.config.invocation_params.args]
        try:
            where = Path(os.path.relpath(Path(self.config.invocation_params.dir).resolve(), self.folder)).as_posix()
        except ValueError:  # another drive, on Windows
            where = ""
        facts: dict[str, Any] = {"args": args, "cwd": where, "selected": self.selected,
                                 "outcomes": self.outcomes, "exit": _status(exitstatus), "code": None, "diff": None}
        try:
            start = json.loads((self.folder / ".attempt" / START).read_text(encoding="utf-8"))
            code = read_code(self.folder, start)
            facts["code"] = {path: digest(text) for path, text in sorted(code.items())}
            facts["diff"] = diff_all(start["code"], code)
        except Exception as error:
            self._note("code", error)
        return facts

    def _note(self, stage: str, error: BaseException) -> None:
        self.notes.append(f"{stage}: {type(error).__name__}: {error}"[:300])


def phase_outcome(when: str, outcome: str) -> str | None:
    """What one phase's report says of a test; a failed setup or teardown is an error."""
    if outcome == "failed":
        return "failed" if when == "call" else "error"
    if outcome == "skipped":
        return "skipped"
    return "passed" if when == "call" else None


def read_code(folder: Path, start: dict[str, Any]) -> dict[str, str]:
    """The code files as they are now: those start.json lists, and any new one its `scan` finds."""
    paths = set(start["code"])
    scan = start.get("scan")
    if scan:
        top = folder / scan["folder"]
        for here, folders, files in os.walk(top):
            folders[:] = [f for f in folders if f not in scan["skip_folders"]]
            for name in files:
                if name.endswith(scan["suffix"]) and name not in scan["skip_names"]:
                    paths.add((Path(here) / name).relative_to(folder).as_posix())
    code = {}
    for path in sorted(paths):
        try:
            with open(folder / path, "rb") as file:
                code[path] = file.read().decode("utf-8", errors="replace")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
    return code


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lines(text: str) -> list[str]:
    """`text` split after each newline ("\\n" only), so that only the last line may lack one."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def diff_all(start: dict[str, str], now: dict[str, str]) -> str:
    """The unified diff from the code as handed out to the code now, file by file (a missing file is empty)."""
    import difflib

    out = []
    for path in sorted(set(start) | set(now)):
        before, after = start.get(path, ""), now.get(path, "")
        if before == after:
            continue
        for line in difflib.unified_diff(lines(before), lines(after), f"a/{path}", f"b/{path}"):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def canonical(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def append(log: Path, facts: dict[str, Any], notes: list[str]) -> None:
    """Chain `facts` to the log's last line and append it, holding a lock where the system has one."""
    with open(log, "a+b") as file:
        try:
            import fcntl

            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        previous, problem = last_digest(file)
        now = time.time()
        # Not datetime.UTC: a project's folder may be run by a Python older than 3.11.
        utc = datetime.timezone.utc  # noqa: UP017
        stamp = datetime.datetime.fromtimestamp(now, utc).isoformat(timespec="milliseconds")
        record = {"format": FORMAT, "time": stamp,
                  "epoch": round(now, 3), "args": [], "cwd": "", **facts,
                  "note": "; ".join(notes + ([problem] if problem else [])), "prev": previous}
        record["digest"] = hashlib.sha256(canonical(record).encode("utf-8")).hexdigest()
        file.seek(0, os.SEEK_END)
        file.write((json.dumps(record, sort_keys=True) + "\n").encode("utf-8"))
        file.flush()


def last_digest(file: Any) -> tuple[str, str]:
    """The digest of the file's last line ("" for an empty file), and a note when it cannot be read."""
    end = file.seek(0, os.SEEK_END)
    size = 4096
    while True:
        start = max(0, end - size)
        file.seek(start)
        found = file.read(end - start).rstrip(b"\n").split(b"\n")
        if len(found) > 1 or start == 0:
            break
        size *= 4
    if not found[-1].strip():
        return "", ""
    try:
        return str(json.loads(found[-1])["digest"]), ""
    except (ValueError, KeyError, TypeError):
        return "", "the previous line could not be read"


def _status(exitstatus: Any) -> int:
    try:
        return int(exitstatus)
    except (TypeError, ValueError):
        return -1
