"""Hypothesis strategies for valid calls of `add_rolling_features`.

Frames are small (the suites run thousands of times) but hit what breaks rolling features:
several entities, unsorted rows, an index that is not 0..n-1, missing values, irregular gaps,
and times on a 6-hour grid so that a row often lies exactly one offset window before another.
"""
import math
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

# The statistics problem.md names, in its order (not imported: the contract exports only the
# function, and another implementation need not define this tuple).
STATS = ("mean", "std", "min", "max")
VALUE = "x"
TIME = "t"
BY = "k"
ENTITIES = ("a", "b")
OFFSETS = ("6h", "1D", "30h", "2D", "3D")
START = "2024-01-01"
STEP = pd.Timedelta("6h")
LAST_STEP = 24

Call = tuple[tuple[Any, ...], dict[str, Any]]


def values() -> st.SearchStrategy[float]:
    """Quarter-integers, so sums are exact, and now and then a missing value."""
    return _VALUES


def _quarter_or_missing(v: int) -> float:
    return math.nan if v > 40 else v / 4


def _entity_and_step(code: int) -> int:
    return code


def _step(code: int) -> int:
    return code // len(ENTITIES)


# Strategies built once, not inside each draw: hypothesis builds and validates a new strategy
# object again for every example that makes one, which cost more than the tests they feed.
_VALUES = st.integers(-40, 44).map(_quarter_or_missing)
_SLOT = st.integers(0, len(ENTITIES) * (LAST_STEP + 1) - 1)
_ROWS = st.integers(1, 4)
_OFFSETS = st.sampled_from(OFFSETS)
_STATS = st.lists(st.sampled_from(STATS), min_size=1, max_size=len(STATS), unique=True)
_MIN_PERIODS = tuple(st.none() | st.integers(1, rows) for rows in range(1, 5))  # by rows - 1


@st.composite
def frames(
    draw: st.DrawFn, *, by: str | None = BY, min_rows: int = 0, max_rows: int = 12
) -> pd.DataFrame:
    """Columns x (float), t (datetime), k (entity); unique (k, t), or unique t if `by` is None."""
    # One integer per row encodes its entity and its time step: one draw per row keeps it fast.
    unique_by = _entity_and_step if by is not None else _step
    codes = draw(st.lists(_SLOT, min_size=min_rows, max_size=max_rows, unique_by=unique_by))
    steps = np.array([_step(code) for code in codes], dtype=np.int64)
    xs = draw(st.lists(_VALUES, min_size=len(codes), max_size=len(codes)))
    return pd.DataFrame(
        {
            BY: np.array([ENTITIES[code % len(ENTITIES)] for code in codes], dtype=object),
            TIME: np.datetime64(START, "ns") + steps * np.timedelta64(STEP),
            VALUE: np.array(xs, dtype=float),
        },
        # Labels follow the codes: unique, not 0..n-1, and not in time order.
        index=np.array([100 + code for code in codes], dtype=np.int64),
    )


@st.composite
def feature_kwargs(draw: st.DrawFn, *, by: str | None = BY) -> dict[str, Any]:
    """Keyword arguments for a frame from `frames(by=by)`: windows, stats and min_periods."""
    # One window of each kind, in either order, so that every call exercises both code paths.
    rows = draw(_ROWS)
    windows = draw(st.permutations([rows, draw(_OFFSETS)]))
    stats = draw(_STATS)
    min_periods = draw(_MIN_PERIODS[rows - 1])
    return {
        "value": VALUE,
        "time": TIME,
        "windows": windows,
        "stats": stats,
        "by": by,
        "min_periods": min_periods,
    }


@st.composite
def rolling_calls(draw: st.DrawFn) -> Call:
    """`(args, kwargs)` for one valid call, with or without entities."""
    by = draw(st.sampled_from([BY, None]))
    return (draw(frames(by=by)),), draw(feature_kwargs(by=by))


def call_strategies() -> dict[str, st.SearchStrategy[Call]]:
    """Strategies of `(args, kwargs)` per public function, for property tests and triage."""
    return {"add_rolling_features": rolling_calls()}
