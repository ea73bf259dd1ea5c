"""An error of the machine is not yet a kill (issue 43): which failures are confirmed before
they stand, and what a control run forgives. Pure functions over records: no processes."""

from __future__ import annotations

import pytest

from bugsmith.harness.shared.protocol import TestOutcome, TestResult, Verdict
from bugsmith.harness.verdict import control_failure, environment_failure


def _verdict(*results: TestResult) -> Verdict:
    return Verdict(mutant_id="m", results=results)


def _failed(exception: str, *, in_source: bool = False, test: str = "t.py::b") -> TestResult:
    return TestResult(id=test, outcome=TestOutcome.FAILED, when="call", exception=exception,
                      message="boom", in_source=in_source)


PASSED = TestResult(id="t.py::a", outcome=TestOutcome.PASSED, when="call")


@pytest.mark.parametrize("exception", ["FileNotFoundError", "PermissionError", "ConnectionRefusedError",
                                       "TimeoutError", "OSError"])
def test_an_error_of_the_machine_is_held_for_confirmation(exception: str) -> None:
    failure = _failed(exception, in_source=True)  # even through the code: a mutant's wrong path
    assert environment_failure(_verdict(PASSED, failure)) == failure


@pytest.mark.parametrize("exception", ["AssertionError", "TypeError", "ValueError", "SystemExit"])
def test_a_wrong_value_or_a_crash_of_the_code_stands_at_once(exception: str) -> None:
    assert environment_failure(_verdict(PASSED, _failed(exception))) is None
    assert environment_failure(_verdict(PASSED)) is None


def test_a_control_run_forgives_an_environment_error_only_when_asked() -> None:
    """A test that finds no file an earlier test of the suite writes still proves the worker
    ran it; a wrong value in a control run never passes for a working machine."""
    missing = _verdict(PASSED, _failed("FileNotFoundError"))
    assert control_failure(missing) == "t.py::b: boom"
    assert control_failure(missing, environment_ok=True) is None
    assert control_failure(_verdict(PASSED, _failed("AssertionError")), environment_ok=True) == "t.py::b: boom"
