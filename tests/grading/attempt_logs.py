"""Hand-made logs of test runs, written line by line as the handed-out recorder writes them."""

from __future__ import annotations

import datetime
import json
from typing import Any

from bugsmith.harness.exercises.judge.attempt_log import line_digest
from bugsmith.harness.exercises.pack.attempt_recorder import diff_all, digest

HANDOUT = {
    "pkg/core.py": ('"""Core."""\n\n\ndef area(xs):\n    total = 0\n    for x in xs:\n        total += x\n'
                    '    return total * 2\n\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n'),
}
FIXED = {"pkg/core.py": HANDOUT["pkg/core.py"].replace("total * 2", "total")}
VISIBLE = ("tests/test_core.py::test_area", "tests/test_core.py::test_mean")
T0 = 1_800_000_000.0


def line(code: dict[str, str] | None, *, prev: str, epoch: float, selected: tuple[str, ...] = VISIBLE,
         failing: tuple[str, ...] = (), handout: dict[str, str] = HANDOUT, **changes: Any) -> dict[str, Any]:
    """One record of a run on `code` (None: the recorder could not read it), `failing` failed, the rest passed."""
    record: dict[str, Any] = {
        "format": 1, "time": datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="milliseconds"),
        "epoch": epoch, "args": ["-q"], "cwd": ".", "selected": list(selected),
        "outcomes": {t: "failed" if t in failing else "passed" for t in selected}, "exit": 1 if failing else 0,
        "code": None if code is None else {p: digest(t) for p, t in code.items()},
        "diff": None if code is None else diff_all(handout, code),
        "note": "", "prev": prev, **changes,
    }
    record["digest"] = line_digest(record)
    return record


def log_text(runs: list[tuple[dict[str, str] | None, dict[str, Any]]]) -> str:
    """A chained log: one (code, keyword arguments of `line`) per run, a minute apart."""
    out, prev = [], ""
    for i, (code, options) in enumerate(runs):
        record = line(code, prev=prev, epoch=T0 + 60 * i, **options)
        out.append(json.dumps(record, sort_keys=True))
        prev = record["digest"]
    return "".join(row + "\n" for row in out)
