"""A pytest plugin that records each test's result cheaply, in every process that runs tests.

Formatting a traceback costs more than running most mutants, and a verdict needs only the
failing test's id, its exception type, a line of message, and whether the exception came from
the code under test (loud) or from the test's own assertion (silent). So failures get a
one-line report instead of pytest's formatted one.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from _pytest.outcomes import Skipped
from _pytest.reports import TestReport

from bugsmith.harness.shared.protocol import TestOutcome, TestResult

MESSAGE_LIMIT = 600


def first_lines(error: BaseException | str, lines: int = 6, limit: int = MESSAGE_LIMIT) -> str:
    """The first `lines` lines of `str(error)`, at most `limit` characters; "" if it cannot be had."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - a mutant can break __str__ too
        return ""
    return "\n".join(text.strip().splitlines()[:lines])[:limit]


def _last_error_line(report: pytest.CollectReport) -> str:
    """The line pytest ends a collection error with (`E   ImportError: ...`), without the `E`."""
    lines = str(report.longrepr).strip().splitlines() or ["(no message)"]
    last = lines[-1].strip()
    return (last[1:] if last.startswith("E ") else last).strip()


def _importer(error: BaseException, root: str) -> str:
    """The project's file that started the import that failed (a conftest, a test module),
    relative to `root`: the first of the project's frames in the traceback."""
    files = []
    tb = error.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith(root + os.sep) and "site-packages" not in name:
            files.append(os.path.relpath(name, root))
        tb = tb.tb_next
    return (files or ["(import)"])[0]


def _innermost(tb: Any, sources: frozenset[str]) -> tuple[str, int] | None:
    """The last frame of the traceback `tb` in one of `sources`, as (file, line)."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in sources:
            found = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _through(tb: Any, sources: frozenset[str]) -> bool:
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in sources:
            return True
        tb = tb.tb_next
    return False


class Recorder:
    """Collects results; `sources` are absolute paths of the files under mutation."""

    def __init__(self, sources: frozenset[str] = frozenset()) -> None:
        self.sources = sources
        self.results: dict[str, TestResult] = {}
        self.failed: list[str] = []
        self.durations: dict[str, float] = {}
        self._pending: dict[tuple[str, str], TestResult] = {}
        self.collect_failures: list[TestResult] = []
        # (file, line) of each warning the code under test raised while a test ran: pytest
        # prints each with its place in the warnings summary, which points a reader at the line.
        self.warned: set[tuple[str, int]] = set()
        # (file, line) of the innermost frame in the code under test of each failing test's
        # traceback: where pytest's report of the failure points a reader.
        self.raised: set[tuple[str, int]] = set()
        self._innermost: dict[tuple[str, str], tuple[str, int]] = {}  # held with `_pending`

    def pytest_warning_recorded(self, warning_message: Any) -> None:
        if warning_message.filename in self.sources:
            self.warned.add((warning_message.filename, warning_message.lineno))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            exception, _, message = _last_error_line(report).partition(": ")
            self.collect_failures.append(TestResult(
                id=report.nodeid, outcome=TestOutcome.FAILED, when="collect",
                exception=exception if exception.isidentifier() else "CollectError",
                message=message if exception.isidentifier() else exception, in_source=False))

    def broken_collection(self, import_error: BaseException | None, root: str) -> TestResult | None:
        """The failure that stopped the tests before any ran, or None.

        A test file that cannot be collected fails a plain pytest run, and so does a conftest
        that cannot be imported (pytest then reports no test at all): either kills the mutant
        that caused it. `import_error` is what executing the mutated module raised, if it did:
        the exact exception, where pytest's report has only text.
        """
        if self.collect_failures:
            first = self.collect_failures[0]
            if import_error is None:
                return first
            return TestResult(id=first.id, outcome=TestOutcome.FAILED, when="collect",
                              exception=type(import_error).__name__, message=first_lines(import_error),
                              in_source=True)
        if import_error is None or self.results:
            return None
        return TestResult(id=_importer(import_error, root), outcome=TestOutcome.FAILED, when="collect",
                          exception=type(import_error).__name__, message=first_lines(import_error),
                          in_source=True)

    # Not tryfirst: pytest's unittest support moves a TestCase's failure (or its SkipTest)
    # into `call` in a tryfirst hook of its own, and this firstresult hook must see that.
    # It still runs before pytest's default report, which would format a traceback.
    @pytest.hookimpl
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        excinfo = call.excinfo
        if excinfo is not None and isinstance(excinfo.value, Skipped):
            return None  # pytest's own report knows how to describe a skip
        longrepr = None
        if excinfo is not None:
            exception = excinfo.type.__name__
            longrepr = f"{exception}: {first_lines(excinfo.value)}"
            self._failure(item.nodeid, call, exception, excinfo)
        assert call.when != "collect", "a runtest hook never sees collection"
        return TestReport(
            item.nodeid,
            item.location,
            {},
            "passed" if excinfo is None else "failed",
            longrepr,
            call.when,
            duration=call.duration,
            start=call.start,
            stop=call.stop,
        )

    def _failure(self, nodeid: str, call: pytest.CallInfo, exception: str, excinfo: Any) -> None:
        # Held until logreport: the xfail machinery may still turn this failure into a skip.
        if (innermost := _innermost(excinfo.tb, self.sources)) is not None:
            self._innermost[(nodeid, call.when)] = innermost
        self._pending[(nodeid, call.when)] = TestResult(
            id=nodeid,
            outcome=TestOutcome.FAILED,
            when=call.when,
            exception=exception,
            message=first_lines(excinfo.value),
            in_source=_through(excinfo.tb, self.sources),
            duration=call.duration,
        )

    def pytest_runtest_logreport(self, report: TestReport) -> None:
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration
        pending = self._pending.pop((report.nodeid, report.when), None)
        innermost = self._innermost.pop((report.nodeid, report.when), None)
        if report.failed and innermost is not None:
            self.raised.add(innermost)
        if report.failed and report.nodeid not in self.results:
            self.failed.append(report.nodeid)
            self.results[report.nodeid] = pending or TestResult(
                id=report.nodeid, outcome=TestOutcome.FAILED, when=report.when,
                exception="Failed", message=str(report.longrepr)[:MESSAGE_LIMIT],
            )
        elif report.when == "teardown" and report.nodeid not in self.results:
            self.results[report.nodeid] = TestResult(
                id=report.nodeid, outcome=TestOutcome.PASSED, when="call",
                duration=self.durations.get(report.nodeid, 0.0),
            )
