"""Rolling statistics over each row's strict past, written from the contract only.

Per entity: sort by time once, then each row's window is a slice of the rows before it.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

_STATS = ("mean", "std", "min", "max")


def _window_spec(window):
    """('rows', w) or ('span', nanoseconds); ValueError for anything else."""
    if isinstance(window, (bool, np.bool_)):
        raise ValueError(f"window {window!r}: booleans are not windows")
    if isinstance(window, numbers.Integral):
        if int(window) < 1:
            raise ValueError(f"window {window!r}: a row count must be at least 1")
        return ("rows", int(window))
    if isinstance(window, str):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                offset = to_offset(window)
        except (ValueError, TypeError):
            raise ValueError(f"window {window!r} is not an offset pandas can read") from None
        try:
            span = int(offset.nanos)  # a calendar offset (month end, week) has no fixed length
        except ValueError:
            raise ValueError(f"window {window!r} has no fixed length") from None
        if span <= 0:
            raise ValueError(f"window {window!r} must be a positive span")
        return ("span", span)
    raise ValueError(f"window {window!r}: expected a positive int or an offset string")


def _sequence(arg, what: str) -> list:
    if not isinstance(arg, (list, tuple)):
        raise ValueError(f"{what} must be a list or a tuple, got {type(arg).__name__}")
    if len(arg) == 0:
        raise ValueError(f"{what} must not be empty")
    return list(arg)


def _stat(values: np.ndarray, stat: str) -> float:
    present = values[~np.isnan(values)]
    if stat == "std":
        if present.size < 2:
            return np.nan
        return float(np.std(present, ddof=1))
    if present.size == 0:
        return np.nan
    return float({"mean": np.mean, "min": np.min, "max": np.max}[stat](present))


def add_rolling_features(df: pd.DataFrame, *, value, time, windows, stats=_STATS, by=None,
                         min_periods=None) -> pd.DataFrame:
    window_list = _sequence(windows, "windows")
    stat_list = _sequence(stats, "stats")
    specs = [_window_spec(w) for w in window_list]
    for s in stat_list:
        if not isinstance(s, str) or s not in _STATS:
            raise ValueError(f"stat {s!r} is not one of {_STATS}")
    row_windows = [n for kind, n in specs if kind == "rows"]
    if min_periods is not None:
        if isinstance(min_periods, (bool, np.bool_)) or not isinstance(min_periods, numbers.Integral):
            raise ValueError(f"min_periods={min_periods!r} is not an integer")
        if min_periods < 1:
            raise ValueError(f"min_periods={min_periods} is below 1")
        if row_windows and min_periods > min(row_windows):
            raise ValueError(f"min_periods={min_periods} exceeds the row window {min(row_windows)}")
    for col in (value, time) + (() if by is None else (by,)):
        if col not in df.columns:
            raise KeyError(col)
    names = [f"{value}_{s}_{w}" for w in window_list for s in stat_list]
    clash = [n for n in names if n in df.columns]
    if clash or len(set(names)) != len(names):
        raise ValueError(f"output columns collide: {clash or names}")

    values = df[value]
    if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_complex_dtype(values.dtype):
        raise ValueError(f"column {value!r} is not numeric")
    stamps = df[time]
    if not pd.api.types.is_datetime64_any_dtype(stamps.dtype):
        raise ValueError(f"column {time!r} does not hold datetimes")
    if stamps.isna().any():
        raise ValueError(f"column {time!r} has missing times")
    if by is not None and df[by].isna().any():
        raise ValueError(f"column {by!r} has missing entity keys")
    keys = [time] if by is None else [by, time]
    if df.duplicated(subset=keys).any():
        raise ValueError("two rows share an entity and a time")

    if isinstance(stamps.dtype, pd.DatetimeTZDtype):
        stamps = stamps.dt.tz_convert("UTC").dt.tz_localize(None)
    ns = stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64)
    x = values.to_numpy(dtype=np.float64, na_value=np.nan)
    n = len(df)
    result = {name: np.full(n, np.nan) for name in names}
    groups = [np.arange(n)] if by is None else list(pd.Series(np.arange(n)).groupby(
        df[by].to_numpy(), sort=False).indices.values())
    for members in groups:
        members = np.asarray(members)
        order = members[np.argsort(ns[members], kind="stable")]
        t = ns[order]
        v = x[order]
        for w, (kind, size) in zip(window_list, specs):
            need = (size if kind == "rows" else 1) if min_periods is None else min_periods
            for pos in range(len(order)):
                start = max(0, pos - size) if kind == "rows" else int(np.searchsorted(t, t[pos] - size, "left"))
                chunk = v[start:pos]
                enough = np.count_nonzero(~np.isnan(chunk)) >= need
                for s in stat_list:
                    if enough:
                        result[f"{value}_{s}_{w}"][order[pos]] = _stat(chunk, s)
    out = df.copy()
    for name in names:
        out[name] = pd.Series(result[name], index=df.index, dtype="float64")
    return out
