"""Comparing results, writing values back as source, and drafting the missing test: no processes."""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pytest

from bugsmith.harness.child.triage.call_recorder import arguments
from bugsmith.harness.child.triage.calls import call, difference
from bugsmith.harness.child.triage.suggest import _pattern, assertions, suggested_test
from bugsmith.harness.child.triage.values import NotLiteral, literal, same

NAMESPACE = {"np": np, "pd": pd, "math": math}


@pytest.mark.parametrize("value", [
    None, True, 3, -2.5, math.nan, math.inf, "text", (1,), [1, (2.0, None)], {"a": [1, 2]},
    np.float64(0.1), np.int32(7), np.bool_(False),
    np.array([1.5, math.nan, -math.inf]), np.array([[1, 2], [3, 4]], dtype=np.int16),
    np.array([True, False]), np.empty((0, 3)),
    pd.Series([1.0, 2.0], index=pd.Index([10, 20]), name="x"),
    pd.DataFrame({"entity": ["a", "b"], "value": [1.0, math.nan]}),
])
def test_literal_rebuilds_an_equal_value(value):
    """Evaluating `literal(v)` gives back a value that `same` accepts, dtype and shape included."""
    rebuilt = eval(literal(value), dict(NAMESPACE))
    assert same(value, rebuilt), (literal(value), rebuilt)


def test_literal_refuses_objects_it_cannot_write():
    """An arbitrary object has no source form: the caller gets NotLiteral, not a wrong test."""
    with pytest.raises(NotLiteral):
        literal(object())
    with pytest.raises(NotLiteral):
        literal(np.zeros(1000))


@pytest.mark.parametrize(("a", "b", "expected"), [
    (0.1 + 0.2, 0.3, True),  # float noise is not a behaviour difference
    (1.0, 1.001, False),
    (math.nan, math.nan, True),
    (1, 1.0, False),  # a different type is a different result
    (np.array([1, 2]), np.array([1, 2], dtype=np.int32), False),  # dtype matters
    (np.array([1.0]), np.array([[1.0]]), False),  # shape matters
    ((np.array([0.0, 1.0]), 2), (np.array([0.0, 1.0]), 2), True),
    (pd.DataFrame({"a": [1.0]}), pd.DataFrame({"a": [1.0]}, index=[5]), False),
])
def test_same_compares_like_a_careful_test(a, b, expected):
    """`same` is exact on types, shapes and dtypes and tolerant only of float rounding."""
    assert same(a, b) is expected


def test_objects_compare_by_their_attributes():
    """Two objects without __eq__ (a scheduler, a tree) agree when their attributes agree."""

    class Box:
        def __init__(self, items):
            self.items = items

    assert same(Box([1, 2]), Box([1, 2]))
    assert not same(Box([1, 2]), Box([2, 1]))


def test_a_deliberate_refusal_differs_from_a_returned_value():
    """The original raising its own ValueError and the mutant returning is a difference."""

    def refuse(x):
        if x < 0:
            raise ValueError("negative")
        return x

    files = frozenset({refuse.__code__.co_filename})
    refused = call(refuse, (-1,), {}, files=files)
    assert refused.deliberate and not refused.ok
    assert difference(refused, call(lambda x: x, (-1,), {}, files=files)) == "returns instead of refusing the input"
    assert difference(refused, call(refuse, (-1,), {}, files=files)) is None


def test_an_accidental_exception_is_not_a_valid_input():
    """An exception from a library (not a `raise` in the code under triage) marks a bad input."""
    result = call(math.sqrt, ("x",), {}, files=frozenset({__file__}))
    assert not result.valid


def test_a_hanging_call_is_stopped():
    """A call that loops forever is cut by the alarm and reported as hung."""

    def forever():
        while True:
            pass

    result = call(forever, (), {}, seconds=0.2)
    assert result.hung and not result.ok


def test_arguments_are_read_back_from_the_frame():
    """Positional, *args, keyword-only and **kwargs come back as the (args, kwargs) of a call."""
    seen = {}

    def f(a, b=2, *rest, c, **more):
        seen["call"] = arguments(sys._getframe())

    f(1, 5, 6, 7, c=3, d=4)
    assert seen["call"] == ((1, 5, 6, 7), {"c": 3, "d": 4})


def test_the_drafted_test_asserts_each_part_of_a_tuple_result():
    """A (fpr, tpr, thresholds)-like result gets one tolerant assertion per array."""
    expected = (np.array([0.0, 0.5]), np.array([0.0, 1.0]), 3)
    lines = assertions("result", "expected", expected)
    assert lines[0].strip() == "assert len(result) == 3"
    namespace = {**NAMESPACE, "result": expected, "expected": expected}
    exec("\n".join(line.strip() for line in lines), namespace)  # passes on the same value
    namespace["result"] = (np.array([0.0, 0.5]), np.array([0.0, 0.9]), 3)
    with pytest.raises(AssertionError):
        exec("\n".join(line.strip() for line in lines), namespace)


def test_a_refusal_test_matches_the_message_literally():
    """Regex characters in the original's message are escaped; plain words stay readable."""
    assert _pattern("y has shape (n,) [x] 1.5") == repr(r"y has shape \(n,\) \[x\] 1\.5")
    source = suggested_test(module="math", callee="sqrt", args=(-1.0,), kwargs={}, expected=None,
                            mutant_id="abc", operator="toy", raises=("ValueError", "math domain error"))
    namespace: dict = {}
    exec(source, namespace)
    namespace["test_sqrt_catches_abc"]()  # math.sqrt(-1.0) does raise that error
