"""Precision-recall curve and average precision, from scratch with numpy.

One curve point per distinct score: samples with tied scores are called positive together by
any threshold, so a tie moves precision and recall in one step. The average precision is the
step sum of the curve (each gain in recall weighted by the precision where it was gained), not
a trapezoidal area, which would reward interpolating between points no threshold reaches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Curve = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


def precision_recall_curve(
    y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> Curve:
    """Return `(precision, recall, thresholds)`: one point per distinct score, thresholds
    increasing, then the final point precision 1, recall 0, which has no threshold.

    Point `i` calls positive every sample whose score is at least `thresholds[i]`. Zero-weight
    samples are ignored. Raises `ValueError` on bad input.
    """
    positive, scores, weights = _validated(y_true, y_score, sample_weight)
    order = np.argsort(-scores)
    scores, positive, weights = scores[order], positive[order], weights[order]
    # The last sample of each run of tied scores: a threshold cannot separate the run.
    last = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]
    tps = np.cumsum(weights * positive)[last]
    fps = np.cumsum(weights * ~positive)[last]
    precision = tps / (tps + fps)
    # Without a positive, recall is 0/0; scikit-learn's documented convention makes it 1.
    recall = tps / tps[-1] if tps[-1] > 0 else np.ones(tps.size)
    # Computed from the highest threshold down; returned from the lowest up.
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], scores[last][::-1]


def average_precision_score(
    y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Return the step sum of the PR curve: each recall gain times the precision it ends at."""
    precision, recall, _ = precision_recall_curve(y_true, y_score, sample_weight=sample_weight)
    return float(np.sum((recall[:-1] - recall[1:]) * precision[:-1]))


def _validated(
    y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None
) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.float64]]:
    """Check every input, then drop zero-weight samples; return (is positive, score, weight)."""
    labels = _column(y_true, "y_true")
    # float, so that booleans and unsigned integers negate correctly and None becomes NaN
    scores = _column(y_score, "y_score", dtype=float)
    _check_length(scores, labels, "y_score")
    binary = np.isin(labels, (0, 1))
    if not binary.all():
        raise ValueError(f"y_true must contain only 0 and 1 or booleans, got {labels[~binary][0]}")
    if not np.isfinite(scores).all():
        raise ValueError("y_score must be finite (no NaN or inf)")
    weights = np.ones(labels.size) if sample_weight is None else _weights(sample_weight, labels)
    # Zero-weight samples must not even create a curve point, as in scikit-learn.
    keep = weights > 0
    if not keep.any():  # also an empty input
        raise ValueError("no sample has a positive weight (or there is no sample): nothing to rank")
    return labels[keep] == 1, scores[keep], weights[keep]


def _weights(sample_weight: ArrayLike, labels: NDArray[np.generic]) -> NDArray[np.float64]:
    weights = _column(sample_weight, "sample_weight", dtype=float)
    _check_length(weights, labels, "sample_weight")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    return weights


def _column(values: ArrayLike, name: str, dtype: type | None = None) -> NDArray[Any]:
    """`values` as a 1-D array; a single column `(n, 1)` is flattened, any other shape refused."""
    array = np.asarray(values, dtype=dtype)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"{name} must have shape (n,) or (n, 1), got {array.shape}")
    return array


def _check_length(array: NDArray[np.generic], labels: NDArray[np.generic], name: str) -> None:
    if array.size != labels.size:
        raise ValueError(f"{name} has {array.size} samples but y_true has {labels.size}")
