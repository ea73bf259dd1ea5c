"""Read and verify the record of a candidate's test runs: `.attempt/runs.jsonl` in their folder.

The handed-out folder's recorder (`pack.attempt_recorder`) appends one JSON line per test run.
The log is the candidate's own account: it lives in their folder, and they can edit it. What
can be checked is checked here: every line is a JSON object with the recorder's fields; its
`digest` is the sha256 of its canonical JSON (sorted keys, no spaces) without `digest`; its
`prev` is the previous line's digest ("" on the first line), so a line edited, removed or
inserted breaks the chain unless every later line is forged too; the times never go back;
and each line's diff, applied to the code as handed out (the instructor's copy, not the one in
the candidate's folder), gives exactly the code its digests name. Whether the log ends at the
submitted code is the process judgement's question (`process`), not this module's.

The recorder names files and tests as the candidate's folder does; a log is verified against
the handout under those names, then read under the project's (`in_project_names`), as the
exercise's records name them.
"""

from __future__ import annotations

import datetime
import enum
import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.judge.submission import UnsafeSubmissionError, read_text
from bugsmith.harness.exercises.sources.handout_names import HandoutNames

LOG = ".attempt/runs.jsonl"
MAX_LOG_BYTES = 32 * 2**20
OUTCOMES = ("passed", "failed", "error", "skipped")
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "time": str, "epoch": (int, float), "args": list, "cwd": str, "selected": list, "outcomes": dict,
    "exit": int, "code": (dict, type(None)), "diff": (str, type(None)), "note": str, "prev": str, "digest": str,
}


class LogStatus(enum.StrEnum):
    """Whether the log can be read as an account of the attempt."""

    OK = "ok"
    MISSING = "missing"  # no log in the submission
    BROKEN = "broken"  # a line not JSON, a chain that does not verify, times out of order, a diff that lies
    STALE = "stale"  # whole, but the code was changed after the last run (decided by `process`)


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggedRun:
    """One verified line: a test run and the code it ran on."""

    time: str  # ISO 8601, UTC
    epoch: float  # seconds since 1970
    args: tuple[str, ...]
    cwd: str  # where pytest ran, relative to the exercise folder
    selected: tuple[str, ...]  # node ids, after -k and deselection
    outcomes: dict[str, str]  # node id -> passed / failed / error / skipped (collection errors too)
    exit_status: int
    code: dict[str, str] | None  # path -> text, rebuilt from the diff; None: the recorder could not read it
    note: str  # what went wrong in the recorder, if anything


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptLog:
    status: LogStatus  # OK, MISSING or BROKEN
    note: str  # one line; "" when OK
    runs: tuple[LoggedRun, ...]


def read_attempt(submission: Path, handout: dict[str, str]) -> AttemptLog:
    """The submission's log, verified against `handout` (path -> text of the code as handed out)."""
    try:
        text = read_text(submission, LOG, MAX_LOG_BYTES)
    except UnsafeSubmissionError as error:
        return _broken(str(error).removeprefix("refused: "))
    except OSError as error:
        return _broken(f"{LOG} cannot be read: {error.strerror or error}")
    if text is None:
        return AttemptLog(status=LogStatus.MISSING, note=f"no record of the test runs: {LOG} is not in the"
                                                         " submission (deleted, or a pack without it)", runs=())
    return parse_attempt(text, handout)


def parse_attempt(text: str, handout: dict[str, str]) -> AttemptLog:
    """The log's text, verified line by line (see the module's docstring)."""
    runs: list[LoggedRun] = []
    previous, last_epoch = "", float("-inf")
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = _record(line)
            if record["prev"] != previous:
                raise _Broken("does not follow the line before it (a line was removed, inserted or edited)"
                              if previous else "does not start the chain (lines before it were removed)")
            if record["epoch"] < last_epoch:
                raise _Broken("is earlier than the line before it (out of order)")
            runs.append(_run(record, handout))
        except _Broken as problem:
            return _broken(f"line {number} {problem}")
        previous, last_epoch = record["digest"], record["epoch"]
    return AttemptLog(status=LogStatus.OK, note="", runs=tuple(runs))


def in_project_names(log: AttemptLog, names: HandoutNames) -> AttemptLog:
    """`log` (verified under the handout's names) with its code files and test ids under the
    project's; the command line and folder stay as the candidate typed them."""
    if not names.renames:
        return log
    runs = tuple(replace(run, code=None if run.code is None else names.project_files(run.code),
                         selected=tuple(names.project_test_id(t) for t in run.selected),
                         outcomes={names.project_test_id(t): o for t, o in run.outcomes.items()})
                 for run in log.runs)
    return replace(log, runs=runs)


class _Broken(Exception):
    """What is wrong with one line (the caller names the line)."""


def _broken(why: str) -> AttemptLog:
    return AttemptLog(status=LogStatus.BROKEN, note=f"the record of the test runs does not verify: {why}", runs=())


def canonical(record: dict[str, Any]) -> str:
    """The text a line's digest is taken over: the recorder's `canonical`."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def line_digest(record: dict[str, Any]) -> str:
    """The digest a line must carry: over everything in it but the digest itself."""
    return hashlib.sha256(canonical({k: v for k, v in record.items() if k != "digest"}).encode("utf-8")).hexdigest()


def _record(line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError:
        raise _Broken("is not JSON") from None
    if not isinstance(record, dict):
        raise _Broken("is not a JSON object")
    for name, kind in _FIELDS.items():
        if name not in record:
            raise _Broken(f"has no {name!r}")
        if not isinstance(record[name], kind) or isinstance(record[name], bool):
            raise _Broken(f"has a {name!r} of the wrong type")
    if line_digest(record) != record["digest"]:
        raise _Broken("was edited after it was written (its digest does not match its content)")
    strings = [*record["args"], *record["selected"], *record["outcomes"], *record["outcomes"].values(),
               *(record["code"] or {}).values(), *(record["code"] or {})]
    if not all(isinstance(s, str) for s in strings):
        raise _Broken("holds a value of the wrong type")
    if not set(record["outcomes"].values()) <= set(OUTCOMES):
        raise _Broken("has an outcome other than " + ", ".join(OUTCOMES))
    return record


def _run(record: dict[str, Any], handout: dict[str, str]) -> LoggedRun:
    try:
        stamped = datetime.datetime.fromisoformat(record["time"]).timestamp()
    except ValueError:
        raise _Broken("has a time that is not ISO 8601") from None
    if abs(stamped - record["epoch"]) > 1:
        raise _Broken("has a time and an epoch that disagree")
    code = None
    if record["code"] is not None:
        code = _rebuilt(record["code"], record["diff"] or "", handout)
    return LoggedRun(time=record["time"], epoch=float(record["epoch"]), args=tuple(record["args"]), cwd=record["cwd"],
                     selected=tuple(record["selected"]), outcomes=dict(record["outcomes"]), exit_status=record["exit"],
                     code=code, note=record["note"])


def _rebuilt(digests: dict[str, str], diff: str, handout: dict[str, str]) -> dict[str, str]:
    """The code a line names: its diff applied to the handout, each file checked against its digest."""
    try:
        code = apply_diff(handout, diff)
    except ValueError as error:
        raise _Broken(f"has a diff that does not apply to the code as handed out ({error})") from None
    for path, expected in digests.items():
        text = code.get(path, "")
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != expected:
            raise _Broken(f"has a diff that does not give the code its digest names ({path})")
    return {path: code.get(path, "") for path in digests}


def apply_diff(base: dict[str, str], diff: str) -> dict[str, str]:
    """`base` (path -> text) with a unified diff of several files applied (`a/` and `b/` prefixes,
    git's "\\ No newline at end of file"); ValueError if a hunk does not match."""
    result = dict(base)
    for path, hunks in _files(diff).items():
        result[path] = _apply(base.get(path, ""), hunks)
    return result


def _files(diff: str) -> dict[str, list[tuple[int, int, list[tuple[str, str]]]]]:
    """The diff's hunks by file: (old start, old length, [(tag, line with its newline)]).

    A hunk's body is read by its line counts, so a removed line that reads "-- x" is not taken
    for the next file's header."""
    files: dict[str, list[tuple[int, int, list[tuple[str, str]]]]] = {}
    hunks: list[tuple[int, int, list[tuple[str, str]]]] | None = None
    body: list[tuple[str, str]] = []  # the current hunk's lines
    rows = diff.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    old = new = 0  # lines of the current hunk still to read
    for row in rows:
        if row.startswith("\\"):
            if not body:
                raise ValueError("a no-newline mark before any line")
            tag, line = body[-1]
            body[-1] = (tag, line.removesuffix("\n"))
        elif old or new:
            tag = row[:1]
            if tag not in (" ", "-", "+") or (tag != "+" and not old) or (tag != "-" and not new):
                raise ValueError(f"a hunk's lines do not add up at {row[:40]!r}")
            old -= tag != "+"
            new -= tag != "-"
            body.append((tag, row[1:] + "\n"))
        elif row.startswith("--- "):
            continue
        elif row.startswith("+++ "):
            hunks, body = files.setdefault(row[4:].removeprefix("b/"), []), []
        elif header := _HUNK.match(row):
            if hunks is None:
                raise ValueError("a hunk before any file")
            old = 1 if header[2] is None else int(header[2])
            new = 1 if header[4] is None else int(header[4])
            body = []
            hunks.append((int(header[1]), old, body))
        else:
            raise ValueError(f"an unexpected line {row[:40]!r}")
    if old or new:
        raise ValueError("the last hunk is cut short")
    return files


def _apply(text: str, hunks: list[tuple[int, int, list[tuple[str, str]]]]) -> str:
    source = lines(text)
    out: list[str] = []
    position = 0
    for start, length, body in hunks:
        first = start - 1 if length else start  # an empty old range names the line before it
        if first < position or first > len(source):
            raise ValueError(f"a hunk at line {start} out of place")
        out.extend(source[position:first])
        position = first
        for tag, line in body:
            if tag in (" ", "-"):
                if position >= len(source) or source[position] != line:
                    raise ValueError(f"line {position + 1} does not match")
                position += 1
            if tag in (" ", "+"):
                out.append(line)
    out.extend(source[position:])
    return "".join(out)


def lines(text: str) -> list[str]:
    """`text` split after each "\\n" (only), as the recorder splits it."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
