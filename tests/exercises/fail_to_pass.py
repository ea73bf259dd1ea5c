"""The SWE-bench check, outside the harness: FAIL_TO_PASS fails on the bug, passes on the original."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bugsmith.harness.exercises import Exercise
from bugsmith.harness.exercises.judge.grading import run_tests

Run = tuple[Exercise, str, Path]  # the exercise, "bug" or "original", a folder with tests and that code


def check_fail_to_pass(runs: list[Run], timeout: float) -> None:
    """Run each folder's FAIL_TO_PASS with plain pytest (two at a time) and check the outcomes."""
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda run: run_tests(run[2], run[0].fail_to_pass, timeout), runs))
    for (exercise, label, _), (timed_out, by_test, output) in zip(runs, results):
        assert not timed_out, output
        wanted = "failed" if label == "bug" else "passed"
        outcomes = {by_test[t].outcome for t in exercise.fail_to_pass}
        assert outcomes == {wanted}, (exercise.id, label, output[-800:])
