"""Hypothesis strategies that generate valid inputs for `roc_curve` and `roc_auc_score`.

The inputs are built to expose ROC errors: scores come from a small pool so ties (also across
classes) are the rule, class counts are unbalanced as often as not, and weights include zeros,
fractions and large values. Both classes always carry positive weight, so every input is valid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

Problem = tuple[np.ndarray, np.ndarray, np.ndarray | None]
Call = tuple[tuple[Any, ...], dict[str, Any]]

_SCORES = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
_POSITIVE_WEIGHTS = st.sampled_from([0.5, 1.0, 2.0, 3.0]) | st.floats(1e-3, 1e3)
_WEIGHTS = st.just(0.0) | _POSITIVE_WEIGHTS
_LAYOUTS = ("list", "array", "column")
# Drawn, then applied: a strategy built around each drawn array would be built and validated
# again for every example.
_LAYOUT = st.sampled_from(_LAYOUTS)
_NO_WEIGHT = st.sampled_from([{}, {"sample_weight": None}])


def binary_problems(*, max_size: int = 14, weighted: bool | None = None) -> SearchStrategy[Problem]:
    """`(y_true, y_score, sample_weight)` as 1-D arrays of 2 to `max_size` samples.

    Labels are int 0/1, scores floats, `sample_weight` floats or None when unweighted;
    `weighted=None` lets hypothesis choose.
    """
    return _problems(max_size, weighted)


@st.composite
def _problems(draw: st.DrawFn, max_size: int, weighted: bool | None) -> Problem:
    size = draw(st.integers(2, max_size))
    labels = draw(st.lists(st.integers(0, 1), min_size=size, max_size=size))
    pool = draw(st.lists(_SCORES, min_size=1, max_size=5, unique=True))
    # Positions into the pool, not `sampled_from(pool)`: a strategy over each new pool would be
    # built and validated again for every example, which cost more than the test it feeds.
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size))
    scores = [pool[pick] for pick in picks]
    # One positive and one negative sample with positive weight make the input valid.
    positive = draw(st.integers(0, size - 1))
    negative = (positive + draw(st.integers(1, size - 1))) % size
    labels[positive], labels[negative] = 1, 0
    if not (draw(st.booleans()) if weighted is None else weighted):
        return np.array(labels), np.array(scores), None
    weights = draw(st.lists(_WEIGHTS, min_size=size, max_size=size))
    weights[positive] = draw(_POSITIVE_WEIGHTS)
    weights[negative] = draw(_POSITIVE_WEIGHTS)
    return np.array(labels), np.array(scores), np.array(weights)


def call_strategies() -> dict[str, SearchStrategy[Call]]:
    """Map each public function to `(args, kwargs)` of valid calls in every accepted layout."""
    calls = _calls()
    return {"roc_curve": calls, "roc_auc_score": calls}


@st.composite
def _calls(draw: st.DrawFn) -> Call:
    y_true, y_score, sample_weight = draw(binary_problems())
    if draw(st.booleans()):
        y_true = y_true.astype(bool)
    args = (_as_layout(y_true, draw(_LAYOUT)), _as_layout(y_score, draw(_LAYOUT)))
    if sample_weight is None:
        return args, draw(_NO_WEIGHT)
    return args, {"sample_weight": _as_layout(sample_weight, draw(_LAYOUT))}


def _as_layout(values: np.ndarray, layout: str) -> Any:
    """`values` as a list, a 1-D array or an `(n, 1)` column, the three accepted layouts."""
    if layout == "list":
        return values.tolist()
    if layout == "column":
        return values.reshape(-1, 1)
    return values
