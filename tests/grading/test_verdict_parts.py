"""The pieces of a verdict on small inputs: canaries, values as data, and their comparison."""

from __future__ import annotations

import ast
import json
import math
import random
import textwrap

import numpy as np
import pandas as pd
import pytest

from bugsmith.harness.exercises.judge.canaries import plant
from bugsmith.harness.exercises.judge.differential import difference, outcome_difference
from bugsmith.harness.exercises.judge.grading import run_tests
from bugsmith.harness.exercises.judge.sandboxed.values import NotData, TooLarge, encode, observe

TESTS = textwrap.dedent('''
    import pytest

    from calc import double


    def test_double_of_three():
        """Three doubled."""
        assert double(3) == 6


    @pytest.mark.parametrize("x", [1, 2])
    def test_double_is_even(x):
        assert double(x) % 2 == 0


    def test_double_returns_early_on_zero():
        if double(0) == 0:
            return
        assert False


    @pytest.mark.skip(reason="never a canary: a skip would look like a pass")
    def test_skipped():
        pass
''')


def test_canaries_fail_on_correct_code_and_look_like_the_tests_around_them(tmp_path):
    """Planted copies of real tests, named from their words, fail even where the real tests pass
    (a `return` in the copied body included); the real tests still pass; the file still parses."""
    (tmp_path / "calc.py").write_text("def double(x):\n    return 2 * x\n")
    (tmp_path / "test_calc.py").write_text(TESTS)
    canaries = plant(tmp_path, ["test_calc.py"], random.Random(3), count=3)
    assert len(canaries) == 3 and len({c.id for c in canaries}) == 3
    text = (tmp_path / "test_calc.py").read_text()
    names = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    words = {"double", "of", "three", "is", "even", "returns", "early", "on", "zero", "skipped"}
    for canary in canaries:
        name = canary.id.split("::")[1]
        assert name in names and name.startswith("test_") and set(name.split("_")[1:]) <= words | set("23456789")
        assert canary.copies != "test_calc.py::test_skipped"
    real = ["test_calc.py::test_double_of_three", "test_calc.py::test_double_is_even",
            "test_calc.py::test_double_returns_early_on_zero"]
    timed_out, results, output = run_tests(tmp_path, [*real, *(c.id for c in canaries)], 120)
    assert not timed_out, output
    for test, result in results.items():
        planted = any(test.startswith(c.id) for c in canaries)
        assert result.outcome == ("failed" if planted else "passed"), (test, output)


def test_values_leave_the_sandbox_as_plain_json():
    """Arrays keep dtype and shape, frames their columns and index, floats their NaNs; objects that
    are not data are refused as arguments and named as results."""
    frame = pd.DataFrame({"t": [1, 2], "mean": [0.5, float("nan")]}, index=[10, 20])
    data = encode({"array": np.arange(4, dtype=np.float32).reshape(2, 2), "frame": frame, "n": np.int64(3),
                   "when": pd.Timestamp("2024-01-01")})
    text = json.dumps(data, allow_nan=False)
    assert '"<f4"' in text and '"shape": [2, 2]' in text and '"nan"' in text
    with pytest.raises(NotData):
        encode([len])
    assert encode(len, objects=True) == {"object": "builtins.builtin_function_or_method"}
    with pytest.raises(TooLarge):
        encode(np.zeros(10**6))
    assert observe(lambda xs: xs.append(1), ([],), {})["after"] == encode([[[1]], {}])
    assert observe(lambda: 1 / 0, (), {}) == {"raises": ["ZeroDivisionError", "ArithmeticError", "Exception",
                                                         "BaseException"]}


def test_outputs_are_compared_with_a_tolerance_but_dtypes_and_shapes_exactly():
    """1e-13 apart agrees; 1e-6 apart, another dtype, another shape or a NaN where a number was does not."""
    def same(a, b):
        return difference(encode(a), encode(b), "result") is None

    x = np.array([0.25, 0.5, 1.0])
    assert same(x, x + 1e-13) and same(float("nan"), float("nan")) and same((1, "a"), (1, "a"))
    assert not same(x, x + 1e-6) and not same(x, x.astype(np.float32)) and not same(x, x[:2])
    assert not same(x, np.array([0.25, math.nan, 1.0])) and not same([1, 2], (1, 2))
    assert outcome_difference({"raises": ["ValueError"]}, {"raises": ["NotFittedError", "ValueError"]}) is None
    assert "raises ValueError" in outcome_difference({"raises": ["ValueError"]}, {"result": 1, "after": []})
    assert outcome_difference({"result": 1, "after": []}, {"timeout": 10}) is not None


def test_the_summary_is_short_and_verbose_lists_every_test():
    """By default: the verdict, counts, the first failures, the checks, the fix; `verbose` adds a line per test."""
    from bugsmith.harness.exercises.judge.differential import Differential, Mismatch
    from bugsmith.harness.exercises.judge.grade_text import grade_text
    from bugsmith.harness.exercises.judge.grading import BugResult, Grade, TestResult

    tests = tuple(TestResult(id=f"t.py::test_{i}", hidden=i % 2 == 0, outcome="passed" if i > 4 else "failed",
                             message="assert 1 == 2") for i in range(100))
    outputs = Differential(calls=40, functions=("f",), mismatches=2,
                           examples=(Mismatch(call="f(1)", test="t.py::test_7", difference="result: 1 vs 2"),))
    result = Grade(exercise_id="exercise-01", problem="auc", tests=tests, fix="none", diff_lines=3, timed_out=False,
                   duration=1.5, canaries=4, differential=outputs,
                   bugs=(BugResult(index=1, location="a.py:3 (f)", fixed=True),
                         BugResult(index=2, location="a.py:9 (g)", fixed=False, failing=("t.py::test_1",))))
    short = grade_text(result).splitlines()
    assert short[0] == "exercise-01 (auc): FAIL: some tests fail" and len(short) <= 12
    assert "95/100 pass; 5 do not (2 visible, 3 held back)" in short[1]
    assert any("bug 2" in line and "not fixed (1 of its tests fail)" in line for line in short)
    assert any("2 of 40 calls differ" in line for line in short)
    verbose = grade_text(result, verbose=True).splitlines()
    assert sum(line.startswith(("visible", "hidden")) for line in verbose) == 100
