"""Fixtures for the report tests: small runs built from real Mutants (see runs.py)."""

from __future__ import annotations

import os

import pytest

from bugsmith.harness.outcome import RunResult, Status

from .chromium import find_chromium
from .runs import SNIPPET, make_run

ALL_STATUSES = (
    Status.KILLED, Status.SURVIVED, Status.TIMEOUT, Status.ERROR, Status.NO_COVERAGE, Status.EQUIVALENT,
)
HOSTILE = "</script><script>alert(1)</script>"
HOSTILE_TEST = f"tests/test_snippet.py::test_banner[{HOSTILE}]"


@pytest.fixture
def run() -> RunResult:
    """Six mutants of SNIPPET, one per status, with two tests."""
    return make_run({"pkg/snippet.py": SNIPPET}, ALL_STATUSES)


@pytest.fixture
def hostile_run() -> RunResult:
    """A run whose source, test names and a file name carry a script-closing payload."""
    tests = (HOSTILE_TEST, "tests/test_snippet.py::test_clip")
    return make_run(
        {"pkg/snippet.py": SNIPPET, f"pkg/{HOSTILE}.py": "def f(x):\n    return x < 1\n"},
        ALL_STATUSES,
        tests=tests,
        options={"note": HOSTILE, "families": [HOSTILE]},
    )


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable; its absence fails under CI and skips only on a workstation."""
    found = find_chromium()
    if found is None:
        message = "chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found
