"""Target encoding written from the contract only: walk the rows in time order, one time at a
time, encode each group of simultaneous rows from running totals, then add the group in."""
from __future__ import annotations

import math

import pandas as pd

_NONE = ("missing",)  # one key for every missing category


def _key(value):
    try:
        if pd.isna(value):
            return _NONE
    except (TypeError, ValueError):
        pass
    return value


def _check_numbers(smoothing, prior) -> None:
    if not (smoothing >= 0 and math.isfinite(smoothing)):
        raise ValueError("smoothing has to be a non-negative finite number")
    if prior is not None and not math.isfinite(prior):
        raise ValueError("prior has to be finite when it is given")


def _targets(frame: pd.DataFrame, target: str) -> list[float]:
    values = frame[target]
    if not pd.api.types.is_numeric_dtype(values.dtype):
        raise ValueError("targets are not numbers")
    if values.isna().any():
        raise ValueError("a target is missing")
    return [float(v) for v in values]


def _need(frame: pd.DataFrame, *names: str) -> None:
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise KeyError(missing[0])


def _encode(total: float, count: int, prior: float, smoothing: float) -> float:
    return prior if count == 0 else (total + prior * smoothing) / (count + smoothing)


def encode_train(df, *, column, target, time, smoothing=0.0, prior=None):
    _check_numbers(smoothing, prior)
    _need(df, time, target, column)
    times = df[time]
    if not (pd.api.types.is_datetime64_any_dtype(times.dtype) or pd.api.types.is_numeric_dtype(times.dtype)):
        raise ValueError("time must be datetimes or numbers")
    if times.isna().any():
        raise ValueError("a time is missing")
    ys = _targets(df, target)
    keys = [_key(v) for v in df[column]]
    moments = list(times)
    order = sorted(range(len(ys)), key=lambda i: moments[i])
    per_key: dict = {}
    all_total, all_count = 0.0, 0
    out = [math.nan] * len(ys)
    start = 0
    while start < len(order):
        stop = start
        while stop < len(order) and moments[order[stop]] == moments[order[start]]:
            stop += 1
        group = order[start:stop]
        base = (all_total / all_count if all_count else math.nan) if prior is None else float(prior)
        for i in group:
            total, count = per_key.get(keys[i], (0.0, 0))
            out[i] = _encode(total, count, base, smoothing)
        for i in group:
            total, count = per_key.get(keys[i], (0.0, 0))
            per_key[keys[i]] = (total + ys[i], count + 1)
            all_total += ys[i]
            all_count += 1
        start = stop
    return pd.Series(out, index=df.index.copy(), name=f"{column}_encoded", dtype="float64")


def encode_apply(train, test, *, column, target, smoothing=0.0, prior=None):
    _check_numbers(smoothing, prior)
    _need(test, column)
    _need(train, target, column)
    ys = _targets(train, target)
    per_key: dict = {}
    for value, y in zip(train[column], ys):
        total, count = per_key.get(_key(value), (0.0, 0))
        per_key[_key(value)] = (total + y, count + 1)
    base = (sum(ys) / len(ys) if ys else math.nan) if prior is None else float(prior)
    out = [_encode(*per_key.get(_key(v), (0.0, 0)), base, smoothing) for v in test[column]]
    return pd.Series(out, index=test.index.copy(), name=f"{column}_encoded", dtype="float64")
