"""Target encoding without leakage: a category becomes the (smoothed) mean target of its past.

A training row's encoding may use only rows strictly earlier in time: its own target, and the
targets of rows at the same time, are what the model is meant to predict, so an encoding that
sees them scores well offline and fails in production. Rows are totalled per (category, time)
first, so that rows sharing a time never see each other.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def encode_train(
    df: pd.DataFrame,
    *,
    column: str,
    target: str,
    time: str,
    smoothing: float = 0.0,
    prior: float | None = None,
) -> pd.Series:
    """Encode each row of `df` from the rows of its category strictly earlier in `time`.

    The encoding is `(sum + prior * smoothing) / (count + smoothing)` over those rows; `prior`
    defaults to the mean target of every strictly earlier row. Index and row order are kept.
    """
    _check_time(df[time])
    y = _checked_target(df[target])
    _check_smoothing(smoothing, prior)
    # Positional columns (`.array` drops the index): rows are matched by position, never by label.
    rows = pd.DataFrame({"key": _category_codes(df[column]), "time": df[time].array, "y": y})
    # Totals per (category, time), then the running total of each category's earlier times.
    per_time = rows.groupby(["key", "time"])["y"].agg(["sum", "count"])
    earlier = per_time.groupby(level="key").cumsum().groupby(level="key").shift(1, fill_value=0)
    at_row = earlier.reindex(pd.MultiIndex.from_frame(rows[["key", "time"]]))
    if prior is None:
        # The mean target of every strictly earlier row, whatever its category.
        overall = rows.groupby("time")["y"].agg(["sum", "count"]).cumsum().shift(1)
        totals = overall.reindex(rows["time"])
        priors = (totals["sum"] / totals["count"]).to_numpy()
    else:
        priors = prior
    encoded = _smoothed(at_row["sum"].to_numpy(), at_row["count"].to_numpy(), priors, smoothing)
    return pd.Series(encoded, index=df.index, name=f"{column}_encoded", dtype=float)


def encode_apply(
    train: pd.DataFrame,
    test: pd.DataFrame,
    *,
    column: str,
    target: str,
    smoothing: float = 0.0,
    prior: float | None = None,
) -> pd.Series:
    """Encode each row of `test` from all of `train`; unseen categories get the prior.

    `prior` defaults to the mean target of `train`. Index and row order of `test` are kept.
    """
    y = _checked_target(train[target])
    _check_smoothing(smoothing, prior)
    # One coding of both frames, so that a category means the same in each.
    keys = _category_codes(pd.concat([train[column], test[column]]))
    train_keys, test_keys = keys[: len(train)], keys[len(train):]
    stats = pd.Series(y).groupby(train_keys).agg(["sum", "count"])
    at_row = stats.reindex(test_keys, fill_value=0)
    if prior is None:
        with np.errstate(invalid="ignore"):
            prior = y.sum() / y.size  # NaN for an empty train: there is no mean to fall back on
    encoded = _smoothed(at_row["sum"].to_numpy(), at_row["count"].to_numpy(), prior, smoothing)
    return pd.Series(encoded, index=test.index, name=f"{column}_encoded", dtype=float)


def _smoothed(sums: np.ndarray, counts: np.ndarray, priors: np.ndarray | float, smoothing: float) -> np.ndarray:
    """Shrink each category mean towards its prior; a category without rows is its prior."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (sums + priors * smoothing) / (counts + smoothing)
    return np.where(counts > 0, means, priors)


def _category_codes(values: pd.Series) -> np.ndarray:
    """An integer per distinct value; every missing value (None, NaN, NA) is one more value."""
    codes, uniques = pd.factorize(values)
    return np.where(codes < 0, len(uniques), codes)


def _check_time(times: pd.Series) -> None:
    if not (pd.api.types.is_datetime64_any_dtype(times) or pd.api.types.is_numeric_dtype(times)):
        raise ValueError(f"time column must hold datetimes or numbers, got dtype {times.dtype}")
    if times.isna().any():
        raise ValueError("time column has missing values: a row without a time has no past")


def _checked_target(values: pd.Series) -> np.ndarray:
    if not pd.api.types.is_numeric_dtype(values):
        raise ValueError(f"target column must be numeric, got dtype {values.dtype}")
    if values.isna().any():
        raise ValueError("target column has missing values")
    return values.to_numpy(dtype=float)


def _check_smoothing(smoothing: float, prior: float | None) -> None:
    if not math.isfinite(smoothing) or smoothing < 0:
        raise ValueError(f"smoothing must be a finite number of at least 0, got {smoothing}")
    if prior is not None and not math.isfinite(prior):
        raise ValueError(f"prior must be a finite number or None, got {prior}")
