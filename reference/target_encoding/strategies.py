"""Hypothesis strategies for valid calls of `encode_train` and `encode_apply`.

Frames are small (the suites run thousands of times) but hit what breaks target encoding: few
distinct times, so rows often share a time with rows of their own and of other categories;
missing categories (None and NaN, one category together); unsorted rows with an index that is
not 0..n-1; categories of the test frame that the training frame lacks. Targets are
quarter-integers, so sums are exact and an oracle can compare closely.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

COLUMN = "k"
TARGET = "y"
TIME = "t"
# Two spellings of a missing category: they are one category.
CATEGORIES = ("a", "b", "c", None, math.nan)
UNSEEN = "z"
LAST_TIME = 5
START = pd.Timestamp("2024-01-01")
SMOOTHINGS = (0.0, 0.0, 0.5, 1.0, 4.0)
PRIORS = (None, None, 0.25, -2.0)

Call = tuple[tuple[Any, ...], dict[str, Any]]

# Strategies built once, not inside each draw: hypothesis builds and validates a new strategy
# object again for every example that makes one.
_TARGETS = 81  # quarter-integers from -10 to 10
_CODE = st.integers(0, len(CATEGORIES) * (LAST_TIME + 1) * _TARGETS - 1)
_NEW_CATEGORIES = st.sampled_from((*CATEGORIES, UNSEEN))
_SMOOTHINGS = st.sampled_from(SMOOTHINGS)
_PRIORS = st.sampled_from(PRIORS)


@st.composite
def frames(draw: st.DrawFn, *, min_rows: int = 0, max_rows: int = 10, dated: bool | None = None) -> pd.DataFrame:
    """Columns k (category, object), t (int or datetime) and y (float), unsorted, index 100+."""
    # One integer per row encodes its category, time and target: one draw per row keeps it fast.
    codes = draw(st.lists(_CODE, min_size=min_rows, max_size=max_rows))
    categories = [CATEGORIES[c % len(CATEGORIES)] for c in codes]
    times = np.array([c // len(CATEGORIES) % (LAST_TIME + 1) for c in codes], dtype=np.int64)
    ys = [(c // (len(CATEGORIES) * (LAST_TIME + 1)) - 40) / 4 for c in codes]
    if dated if dated is not None else draw(st.booleans()):
        times = START + pd.to_timedelta(times, unit="D")
    labels = draw(st.permutations(range(100, 100 + len(codes))))
    return pd.DataFrame(
        {COLUMN: pd.Series(categories, dtype=object).to_numpy(), TIME: times,
         TARGET: np.array(ys, dtype=float)},
        index=np.array(labels, dtype=np.int64),
    )


@st.composite
def new_rows(draw: st.DrawFn, *, max_rows: int = 6) -> pd.DataFrame:
    """The rows to encode with `encode_apply`: known, unseen and missing categories, no target."""
    categories = draw(st.lists(_NEW_CATEGORIES, max_size=max_rows))
    labels = draw(st.permutations(range(len(categories))))
    return pd.DataFrame({COLUMN: pd.Series(categories, dtype=object).to_numpy()},
                        index=np.array(labels, dtype=np.int64) * 7 + 3)


@st.composite
def encoding_kwargs(draw: st.DrawFn) -> dict[str, Any]:
    """`smoothing` and `prior`: zero and positive smoothing, the default prior and given ones."""
    return {"smoothing": draw(_SMOOTHINGS), "prior": draw(_PRIORS)}


@st.composite
def train_calls(draw: st.DrawFn) -> Call:
    kwargs = {"column": COLUMN, "target": TARGET, "time": TIME, **draw(encoding_kwargs())}
    return (draw(frames()),), kwargs


@st.composite
def apply_calls(draw: st.DrawFn) -> Call:
    kwargs = {"column": COLUMN, "target": TARGET, **draw(encoding_kwargs())}
    return (draw(frames()), draw(new_rows())), kwargs


def call_strategies() -> dict[str, st.SearchStrategy[Call]]:
    """Strategies of `(args, kwargs)` per public function, for property tests and triage."""
    return {"encode_train": train_calls(), "encode_apply": apply_calls()}
