"""A pytest plugin (`-p bugsmith_grading.reporter`) that streams each test's progress to the grader.

For every test: a `start` message when it begins, so that the grader knows which test to
blame if the process hangs or dies, and a `result` when it ends (passed, failed, error in
setup or teardown, skipped). A module that cannot be imported gives a `collect-error`.
The grader trusts none of this on its own (see grading's canaries).
"""

from __future__ import annotations

from typing import Any

import pytest

from .channel import send

MESSAGE_CHARS = 300


class Reporter:
    def __init__(self) -> None:
        self.outcomes: dict[str, tuple[str, str]] = {}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            send({"event": "collect-error", "id": report.nodeid, "message": _message(report)})

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.outcomes[nodeid] = ("passed", "")
        send({"event": "start", "id": nodeid})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.outcomes.get(report.nodeid, ("passed", ""))[0] != "passed":
            return  # the first thing that went wrong is what the test did
        if report.failed:
            self.outcomes[report.nodeid] = ("failed" if report.when == "call" else "error", _message(report))
        elif report.skipped:
            self.outcomes[report.nodeid] = ("skipped", _message(report))

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        outcome, message = self.outcomes.pop(nodeid, ("passed", ""))
        send({"event": "result", "id": nodeid, "outcome": outcome, "message": message})


def _message(report: Any) -> str:
    """The gist of what went wrong: the crash message (several short lines joined), else the last line."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (file, line, reason)
        return str(longrepr[-1])[:MESSAGE_CHARS]
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if message:
        return " ".join(line.strip() for line in message.splitlines() if line.strip())[:MESSAGE_CHARS]
    lines = [line for line in str(longrepr or "").splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:MESSAGE_CHARS]


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(Reporter(), "bugsmith-grading-reporter")
