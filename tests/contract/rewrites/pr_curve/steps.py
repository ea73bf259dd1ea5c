"""Precision-recall curve and AP, written from the contract only: distinct scores by np.unique,
weighted counts per score by np.bincount, "at or above" as suffix sums."""
from __future__ import annotations

import numbers

import numpy as np


def _vector(raw, label: str) -> np.ndarray:
    try:
        values = np.asarray(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{label} is not array-like: {exc}") from None
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"{label}: expected (n,) or (n, 1), not {values.shape}")
    return values


def _finite_numbers(values: np.ndarray, label: str) -> np.ndarray:
    if values.dtype == object:
        if any(isinstance(v, str) or not isinstance(v, (bool, np.bool_, numbers.Real)) for v in values):
            raise ValueError(f"{label} must hold numbers only")
        values = np.array([float(v) for v in values])
    elif values.dtype.kind not in "biuf":
        raise ValueError(f"{label} must hold numbers, not {values.dtype}")
    numbers_ = values.astype(np.float64)
    if not np.all(np.isfinite(numbers_)):
        raise ValueError(f"{label} has a NaN, an infinity or a missing entry")
    return numbers_


def _is_positive(labels: np.ndarray) -> np.ndarray:
    if labels.dtype == np.bool_:
        return labels.copy()
    if labels.dtype.kind not in "biufO":
        raise ValueError("labels must be 0/1 or booleans")
    as_float = _finite_numbers(labels, "y_true") if labels.size else labels.astype(float)
    if not np.all((as_float == 0) | (as_float == 1)):
        raise ValueError("labels must be 0/1 or booleans")
    return as_float == 1


def _inputs(y_true, y_score, sample_weight):
    # Another order than the statement's list: weights first, then lengths, then values.
    weight = None if sample_weight is None else _vector(sample_weight, "sample_weight")
    score = _vector(y_score, "y_score")
    truth = _vector(y_true, "y_true")
    n = truth.shape[0]
    if score.shape[0] != n or (weight is not None and weight.shape[0] != n):
        raise ValueError("every argument needs one entry per sample")
    if weight is None:
        w = np.ones(n)
    else:
        w = _finite_numbers(weight, "sample_weight")
        if np.any(w < 0):
            raise ValueError("negative sample weights")
    if n == 0:
        raise ValueError("nothing to rank")
    s = _finite_numbers(score, "y_score")
    positive = _is_positive(truth)
    used = w != 0
    if not used.any():
        raise ValueError("all sample weights are zero")
    return positive[used], s[used], w[used]


def precision_recall_curve(y_true, y_score, *, sample_weight=None):
    positive, score, weight = _inputs(y_true, y_score, sample_weight)
    levels, where = np.unique(score, return_inverse=True)  # increasing
    pos_at = np.bincount(where, weights=weight * positive, minlength=levels.size)
    neg_at = np.bincount(where, weights=weight * ~positive, minlength=levels.size)
    # Everything at or above level i: sums from the top level down.
    tp = np.cumsum(pos_at[::-1])[::-1]
    fp = np.cumsum(neg_at[::-1])[::-1]
    precision = tp / (tp + fp)
    recall = np.ones(levels.size) if tp[0] == 0 else tp / tp[0]
    return (np.concatenate([precision, [1.0]]), np.concatenate([recall, [0.0]]),
            levels.astype(np.float64))


def average_precision_score(y_true, y_score, *, sample_weight=None):
    precision, recall, _ = precision_recall_curve(y_true, y_score, sample_weight=sample_weight)
    total = 0.0
    for i in range(len(recall) - 2, -1, -1):  # from the highest threshold down
        total += (recall[i] - recall[i + 1]) * precision[i]
    return float(total)
