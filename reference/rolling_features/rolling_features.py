"""Leakage-free rolling features: each row sees only strictly earlier rows of its own entity.

A feature built for training must be computable at prediction time, so the window that ends at
a row never contains that row, a later row, or another entity's row.
"""
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.api.typing import Rolling, SeriesGroupBy
from pandas.tseries.frequencies import to_offset

STATS = ("mean", "std", "min", "max")


def add_rolling_features(
    df: pd.DataFrame,
    *,
    value: str,
    time: str,
    windows: Sequence[int | str],
    stats: Sequence[str] = STATS,
    by: str | None = None,
    min_periods: int | None = None,
) -> pd.DataFrame:
    """Return a copy of `df` with one past-only rolling statistic per window and stat.

    An integer window `w` covers the `w` most recent earlier rows of the row's entity; an
    offset string such as "7D" covers its earlier rows with time in `[t - 7D, t)`. New
    columns are named `f"{value}_{stat}_{window}"`, windows first, then stats, in the order
    given; the index and row order of `df` are kept and `df` itself is left untouched.
    """
    keys = _checked_keys(df, value=value, time=time, by=by)
    _check_list("windows", windows)
    _check_list("stats", stats)
    _check_windows(windows, min_periods)
    _check_stats(stats)
    ordered = df.reset_index(drop=True).sort_values(keys)  # the index keeps each row's position
    history = ordered.set_index(time)[value]
    entity = None if by is None else ordered[by].to_numpy()
    features = {}
    for window in windows:
        rolling = _past_rolling(history, entity, window, min_periods)
        for stat in stats:
            name = f"{value}_{stat}_{window}"
            if name in features or name in df.columns:
                raise ValueError(f"column {name!r} already exists: ask for each feature once")
            features[name] = getattr(rolling, stat)().to_numpy()
    # Results come back in the sorted row order, so each row's position puts it back in place.
    restored = pd.DataFrame(features, index=ordered.index).sort_index()
    out = df.copy()
    out[list(features)] = restored.to_numpy()
    return out


def _past_rolling(
    values: pd.Series, entity: np.ndarray | None, window: int | str, min_periods: int | None
) -> Rolling:
    """Windows over each row's strictly earlier rows of its entity; `values` is time-sorted."""
    if isinstance(window, str):
        return _per_entity(values, entity).rolling(window, min_periods=min_periods, closed="left")
    # An integer window counts rows, so shifting each entity by one row leaves the row itself out.
    past = _per_entity(values, entity).shift(1)
    return _per_entity(past, entity).rolling(window, min_periods=min_periods)


def _per_entity(values: pd.Series, entity: np.ndarray | None) -> pd.Series | SeriesGroupBy:
    # sort=False keeps the rows in their (entity, time) order instead of re-sorting the entities.
    return values if entity is None else values.groupby(entity, sort=False)


def _checked_keys(df: pd.DataFrame, *, value: str, time: str, by: str | None) -> list[str]:
    """The columns that identify a row, after checking every column the features need."""
    keys = [time] if by is None else [by, time]
    for column in (value, *keys):
        if column not in df.columns:
            raise KeyError(f"column {column!r} is not in the frame")
    if not pd.api.types.is_numeric_dtype(df[value]):
        raise ValueError(f"value column {value!r} must be numeric, got dtype {df[value].dtype}")
    if not pd.api.types.is_datetime64_any_dtype(df[time]):
        raise ValueError(f"time column {time!r} must hold datetimes, got dtype {df[time].dtype}")
    if df[keys].isna().any(axis=None):
        raise ValueError(f"columns {keys} must not have missing values (NaT or NaN)")
    if df.duplicated(keys).any():
        raise ValueError(f"rows repeat the same {keys}: an entity may have one row per time")
    return keys


def _check_list(name: str, items: Sequence[object]) -> None:
    # A bare "7D" or "mean" would otherwise be read one character at a time.
    if isinstance(items, (str, int)):
        raise ValueError(f"{name} must be a list such as [3, '7D'] or ['mean'], got {items!r}")
    if not items:
        raise ValueError(f"{name} must not be empty")


def _check_windows(windows: Sequence[int | str], min_periods: int | None) -> None:
    # 0 is refused: no statistic is defined on zero observations, so it would silently mean 1.
    if min_periods is not None and min_periods < 1:
        raise ValueError(f"min_periods must be at least 1, got {min_periods}")
    for window in windows:
        if isinstance(window, str):
            _check_offset(window)
        elif not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a positive int or an offset string, got {window!r}")
        elif min_periods is not None and min_periods > window:
            raise ValueError(f"min_periods={min_periods} is larger than the window {window}")


def _check_offset(window: str) -> None:
    try:
        span = to_offset(window).nanos
    except ValueError as error:
        raise ValueError(f"window {window!r} is not a fixed pandas offset such as '7D'") from error
    if span <= 0:
        raise ValueError(f"offset window must be positive, got {window!r}")


def _check_stats(stats: Sequence[str]) -> None:
    for stat in stats:
        if stat not in STATS:
            raise ValueError(f"unknown stat {stat!r}: choose from {STATS}")
