"""The baseline: run the whole suite once on unmutated code, with per-test line coverage.

It runs in its own interpreter (`python -m harness.baseline`), because the user's code is
untrusted and because coverage must see the first import of every module. A red baseline stops
the run: with a failing suite, every verdict would be meaningless.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import coverage
import pytest

from harness.errors import BaselineError, HarnessError
from harness.outcome import TestInfo
from harness.protocol import WorkerSetup, receive, send
from harness.recorder import Recorder, protocol_streams


@dataclass(frozen=True, slots=True, kw_only=True)
class Baseline:
    tests: tuple[TestInfo, ...]  # in collection order
    lines: dict[str, dict[int, tuple[str, ...]]]  # file (relative) -> line -> covering tests
    duration: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": [{"id": t.id, "file": t.file, "duration": t.duration} for t in self.tests],
            "lines": {f: {str(n): list(ids) for n, ids in lines.items()} for f, lines in self.lines.items()},
            "duration": self.duration,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Baseline:
        return cls(
            tests=tuple(TestInfo(**t) for t in data["tests"]),
            lines={f: {int(n): tuple(ids) for n, ids in lines.items()} for f, lines in data["lines"].items()},
            duration=data["duration"],
        )


class _Contexts:
    """Name coverage's dynamic context after the running test, so lines map to tests."""

    def __init__(self, cov: coverage.Coverage) -> None:
        self.cov = cov
        self.collected: list[pytest.Item] = []
        self.collect_errors: list[str] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            last_line = (str(report.longrepr).strip().splitlines() or ["(no message)"])[-1]
            self.collect_errors.append(f"{report.nodeid}: {last_line}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = list(session.items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self.cov.switch_context(item.nodeid)
        yield
        self.cov.switch_context("")


def _collect_in_this_process(setup: WorkerSetup) -> dict[str, Any]:
    sources = frozenset(setup.sources)
    cov = coverage.Coverage(data_file=None, include=list(sources), config_file=False)
    recorder = Recorder(sources)
    contexts = _Contexts(cov)
    cov.start()
    try:
        code = pytest.main(
            [*setup.pytest_args, "-q", "-p", "no:cacheprovider", *setup.test_paths],
            plugins=[recorder, contexts],
        )
    finally:
        cov.stop()
    data = cov.get_data()
    lines = {
        os.path.relpath(path, setup.root): data.contexts_by_lineno(path) for path in data.measured_files()
    }
    return {
        "exit_code": int(code),
        "collect_errors": contexts.collect_errors,
        "tests": [
            {"id": item.nodeid, "file": item.location[0], "duration": recorder.durations.get(item.nodeid, 0.0)}
            for item in contexts.collected
        ],
        "failed": [
            {"id": r.id, "message": f"{r.exception}: {r.message}".splitlines()[0][:200]}
            for r in recorder.results.values() if r.outcome == "failed"
        ],
        "lines": {f: {str(n): [c for c in ctx if c] for n, ctx in by_line.items()} for f, by_line in lines.items()},
    }


def run_baseline(setup: WorkerSetup, env: dict[str, str]) -> Baseline:
    """Run the suite once in a fresh interpreter; raise BaselineError if it is not green."""
    started = time.monotonic()
    fields = asdict(setup)
    process = subprocess.run(
        [sys.executable, "-m", "harness.baseline"],
        input=json.dumps(fields).encode() + b"\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=setup.root, env=env, check=False,
    )
    if not process.stdout.strip():
        tail = process.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise HarnessError(f"the baseline test run crashed: {tail[0]}")
    data = json.loads(process.stdout)
    if data["collect_errors"]:
        raise BaselineError(f"the tests cannot be collected: {data['collect_errors'][0]}")
    if data["failed"]:
        names = ", ".join(f["id"] for f in data["failed"][:5])
        more = f" and {len(data['failed']) - 5} more" if len(data["failed"]) > 5 else ""
        raise BaselineError(
            f"{len(data['failed'])} test(s) fail on the unmutated code: {names}{more} "
            f"(first: {data['failed'][0]['message']})"
        )
    if not data["tests"]:
        raise BaselineError("no tests were collected: check the test paths")
    return Baseline.from_dict(
        {"tests": data["tests"], "lines": data["lines"], "duration": time.monotonic() - started}
    )


def main() -> int:
    reader, writer = protocol_streams()
    setup = WorkerSetup.from_dict(receive(reader) or {})
    os.chdir(setup.root)
    sys.path.insert(0, setup.root)
    send(writer, _collect_in_this_process(setup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
