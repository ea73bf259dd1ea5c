"""Comparing results, writing values back as source, and drafting the missing test: no processes."""

from __future__ import annotations

import copy
import dataclasses
import decimal
import math
import sys
import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest

from bugsmith.harness.child.triage.call_recorder import arguments
from bugsmith.harness.child.triage.calls import call, difference
from bugsmith.harness.child.triage.observable import first_difference, same
from bugsmith.harness.child.triage.suggest import _pattern, assertions, suggested_test
from bugsmith.harness.child.triage.values import NotLiteral, literal

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


class _Marker:
    """An object whose repr holds its address, as most objects' do."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Point:
    x: float
    tags: list


class _Slotted:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def test_deep_copies_agree_though_their_reprs_differ():
    """A slice holding an object prints with the object's address, which deep copies change:
    values compare by structure, never by repr (mutants were called "unasserted" for this)."""
    cut = slice(0, _Marker())
    assert repr(cut) != repr(copy.deepcopy(cut))
    assert same(cut, copy.deepcopy(cut)) and same([cut], copy.deepcopy([cut]))
    assert not same(slice(0, 2), slice(0, 3))
    assert same(range(3), range(3)) and not same(range(3), range(4))


def test_values_compare_by_their_structure():
    """Dataclasses (slotted too, NaN fields), objects with __slots__, values that only know `==`,
    arrays and frames inside containers, and values that contain themselves."""
    assert same(_Point(math.nan, [1]), _Point(math.nan, [1]))
    assert not same(_Point(1.0, [1]), _Point(1.0, [2]))
    assert same(_Slotted([1, 2]), _Slotted([1, 2])) and not same(_Slotted(1), _Slotted(2))
    assert same(decimal.Decimal("1.0"), decimal.Decimal("1.0")) and not same(decimal.Decimal("1"), decimal.Decimal("2"))
    assert same({"a": np.array([1.0, math.nan])}, {"a": np.array([1.0, math.nan])})
    assert not same([pd.Series([1.0])], [pd.Series([2.0])])
    looped, again = [1], [1]
    looped.append(looped)
    again.append(again)
    assert same(looped, again)


def test_the_first_difference_is_shown_with_its_path():
    """What differs is said: a short path and both values."""
    assert first_difference({"a": [1, _Point(1.0, [2])]}, {"a": [1, _Point(1.0, [3])]}) == "at ['a'][1].tags[0]: 2 != 3"
    assert first_difference((1, 2), (1, 2, 3)) == "(1, 2) != (1, 2, 3) (2 != 3 items)"
    assert first_difference(1, 1.0) == "1 != 1.0 (a float instead of an int)"
    assert first_difference(range(3), range(4)) == "at .stop: 3 != 4"


def test_texts_that_print_alike_are_shown_escaped():
    """Two strings that differ only in Unicode normalisation look equal when printed: the
    difference shows their escaped forms and says what kind of difference it is."""
    composed, decomposed = "caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9")
    found = first_difference([composed], [decomposed])
    assert found == "at [0]: 'caf\\xe9' != 'cafe\\u0301' (the same text in another Unicode normalisation)"
    assert first_difference("a\u200bb", "ab") == "'a\\u200bb' != 'ab'"


def test_a_warning_the_mutant_emits_is_a_difference():
    """Warnings are behaviour a user sees: the same value with another warning differs, and
    the suite's warning filters neither hide nor raise them."""

    def quiet(x):
        return x

    def loud(x):
        warnings.warn("x is deprecated", DeprecationWarning, stacklevel=2)
        return x

    first, second = call(quiet, (1,), {}), call(loud, (1,), {})
    assert second.ok and second.warned == ("DeprecationWarning: x is deprecated",)
    assert difference(first, second) == "emits other warnings: [] != ['DeprecationWarning: x is deprecated'] (0 != 1 items)"
    assert difference(second, call(loud, (1,), {})) is None
    assert "after warning DeprecationWarning: x is deprecated" in second.describe()


def test_a_different_value_says_where():
    """A different return value names the first place it differs."""
    assert difference(call(lambda: [1, 2], (), {}), call(lambda: [1, 3], (), {})) == (
        "returns a different value: at [1]: 2 != 3")


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
