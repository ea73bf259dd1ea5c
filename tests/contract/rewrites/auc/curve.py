"""ROC curve and AUC, written from the contract only: unique scores, weighted counts per score."""
from __future__ import annotations

import math
import numbers

import numpy as np


def _column(raw, what: str) -> np.ndarray:
    """A list or an array of shape (n,) or (n, 1), as a 1-D array (any dtype)."""
    try:
        arr = np.asarray(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}: cannot read as an array ({exc})") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional or a single column, got shape {arr.shape}")
    return arr


def _is_real(item) -> bool:
    return isinstance(item, (bool, np.bool_, numbers.Real)) and not isinstance(item, str)


def _reals(arr: np.ndarray, what: str) -> np.ndarray:
    """Finite float64 values, or ValueError."""
    if arr.dtype == object:
        if not all(_is_real(v) for v in arr):
            raise ValueError(f"{what} may only hold real numbers")
        vals = np.array([float(v) for v in arr], dtype=np.float64)
    elif arr.dtype.kind in "biuf":
        vals = arr.astype(np.float64)
    else:
        raise ValueError(f"{what} has dtype {arr.dtype}, numbers were expected")
    if not np.isfinite(vals).all():
        raise ValueError(f"{what} must be finite (no NaN, inf or missing entries)")
    return vals


def _labels(arr: np.ndarray) -> np.ndarray:
    if arr.dtype == np.bool_:
        return arr.copy()
    if arr.dtype == object:
        for v in arr:
            if not _is_real(v) or isinstance(v, float) and math.isnan(v) or v not in (0, 1):
                raise ValueError(f"y_true: {v!r} is not a 0/1 label")
        return np.array([v == 1 for v in arr], dtype=bool)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"y_true: dtype {arr.dtype} cannot hold 0/1 labels")
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        raise ValueError(f"y_true: {arr[bad][0]!r} is not a 0/1 label")
    return arr == 1


def _prepare(y_true, y_score, sample_weight):
    truth = _column(y_true, "y_true")
    score = _column(y_score, "y_score")
    weight = None if sample_weight is None else _column(sample_weight, "sample_weight")
    if len(score) != len(truth) or (weight is not None and len(weight) != len(truth)):
        raise ValueError("y_true, y_score and sample_weight need one entry per sample")
    if len(truth) == 0:
        raise ValueError("no samples")
    scores = _reals(score, "y_score")
    positive = _labels(truth)
    if weight is None:
        weights = np.ones(len(truth))
    else:
        weights = _reals(weight, "sample_weight")
        if (weights < 0).any():
            raise ValueError("sample_weight: weights cannot be negative")
    kept = weights > 0
    if not (positive & kept).any() or not (~positive & kept).any():
        raise ValueError("AUC undefined: need a positive and a negative sample with non-zero weight")
    return positive[kept], scores[kept], weights[kept]


def roc_curve(y_true, y_score, *, sample_weight=None):
    positive, scores, weights = _prepare(y_true, y_score, sample_weight)
    distinct, group = np.unique(scores, return_inverse=True)  # ascending
    pos_mass = np.bincount(group, weights=np.where(positive, weights, 0.0), minlength=len(distinct))
    neg_mass = np.bincount(group, weights=np.where(positive, 0.0, weights), minlength=len(distinct))
    # from the highest score down
    tp = np.concatenate(([0.0], np.cumsum(pos_mass[::-1])))
    fp = np.concatenate(([0.0], np.cumsum(neg_mass[::-1])))
    tpr = tp / tp[-1]
    fpr = fp / fp[-1]
    cuts = np.concatenate(([np.inf], distinct[::-1])).astype(np.float64)
    return fpr.astype(np.float64), tpr.astype(np.float64), cuts


def roc_auc_score(y_true, y_score, *, sample_weight=None) -> float:
    fpr, tpr, _ = roc_curve(y_true, y_score, sample_weight=sample_weight)
    widths = fpr[1:] - fpr[:-1]
    heights = (tpr[1:] + tpr[:-1]) / 2.0
    return float(np.sum(widths * heights))
