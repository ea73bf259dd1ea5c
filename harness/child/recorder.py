"""A pytest plugin that records each test's result cheaply, in every process that runs tests.

Formatting a traceback costs more than running most mutants, and a verdict needs only the
failing test's id, its exception type, a line of message, and whether the exception came from
the code under test (loud) or from the test's own assertion (silent). So failures get a
one-line report instead of pytest's formatted one.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from typing import Any

import pytest
from _pytest.outcomes import Skipped
from _pytest.reports import TestReport

MESSAGE_LIMIT = 600


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    """One test phase that did not simply pass, or a whole test's pass."""

    __test__ = False

    id: str
    outcome: str  # "passed" or "failed" (a skip or an expected failure is not a failure)
    when: str
    exception: str | None = None
    message: str = ""
    in_source: bool = False  # the exception passed through the code under test
    duration: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {field: getattr(self, field) for field in self.__dataclass_fields__}


def _message(value: BaseException) -> str:
    try:
        text = str(value)
    except Exception:  # a mutant can break __str__ too
        text = ""
    lines = text.strip().splitlines()[:6]
    return "\n".join(lines)[:MESSAGE_LIMIT]


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
            longrepr = f"{exception}: {_message(excinfo.value)}"
            self._failure(item.nodeid, call, exception, excinfo)
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
        self._pending[(nodeid, call.when)] = TestResult(
            id=nodeid,
            outcome="failed",
            when=call.when,
            exception=exception,
            message=_message(excinfo.value),
            in_source=_through(excinfo.tb, self.sources),
            duration=call.duration,
        )

    def pytest_runtest_logreport(self, report: TestReport) -> None:
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration
        pending = self._pending.pop((report.nodeid, report.when), None)
        if report.failed and report.nodeid not in self.results:
            self.failed.append(report.nodeid)
            self.results[report.nodeid] = pending or TestResult(
                id=report.nodeid, outcome="failed", when=report.when,
                exception="Failed", message=str(report.longrepr)[:MESSAGE_LIMIT],
            )
        elif report.when == "teardown" and report.nodeid not in self.results:
            self.results[report.nodeid] = TestResult(
                id=report.nodeid, outcome="passed", when="call",
                duration=self.durations.get(report.nodeid, 0.0),
            )


def collect_error(report: pytest.CollectReport) -> str:
    """A collection failure in one line: the file and the error pytest ends its report with
    (e.g. `E   ImportError: ...`), never a multi-line traceback."""
    lines = str(report.longrepr).strip().splitlines() or ["(no message)"]
    last = lines[-1].strip()
    return f"{report.nodeid}: {last[1:].strip() if last.startswith('E ') else last}"[:300]


def protocol_streams() -> tuple[Any, Any]:
    """Take stdin/stdout for the coordinator's protocol and point fds 0/1 at /dev/null.

    Tests and pytest itself print to stdout; they must never corrupt the protocol stream.
    """
    reader = os.fdopen(os.dup(0), "rb", buffering=0)
    writer = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    return reader, writer


def limit_memory(extra_mb: int) -> None:
    """Cap the address space so a runaway allocation fails fast instead of eating the machine."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        current = int(statm.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + extra_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
