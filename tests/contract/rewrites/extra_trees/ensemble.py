"""The two forests: parameter checks, input checks and averaging over trees."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .growing import grow


class NotFittedError(ValueError):
    """predict or predict_proba before fit."""


def _whole(name: str, v, low: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    if v < low:
        raise ValueError(f"{name} must be at least {low}, got {v}")
    return int(v)


def _features_per_node(spec, d: int) -> int:
    if isinstance(spec, str):
        if spec == "sqrt":
            return int(math.sqrt(d))
        if spec == "log2":
            return max(1, int(math.log2(d)))
        raise ValueError(f"max_features={spec!r}: only 'sqrt' and 'log2' are known strings")
    if spec is None:
        return d
    if isinstance(spec, (bool, np.bool_)):
        raise ValueError("max_features cannot be a boolean")
    if isinstance(spec, numbers.Integral):
        if not 1 <= spec <= d:
            raise ValueError(f"max_features={spec} must lie in [1, {d}]")
        return int(spec)
    if isinstance(spec, numbers.Real):
        if not 0.0 < spec <= 1.0:
            raise ValueError(f"max_features={spec} must lie in (0, 1]")
        return max(1, int(spec * d))
    raise ValueError(f"max_features={spec!r} is not understood")


def _matrix(X) -> np.ndarray:
    try:
        m = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("X must hold numbers only") from None
    if m.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got {m.ndim} dimension(s)")
    if 0 in m.shape:
        raise ValueError(f"X has shape {m.shape}: no data")
    if not np.isfinite(m).all():
        raise ValueError("X holds a non-finite value")
    return m


class _Forest:
    _classify = False

    def __init__(self, n_estimators=100, *, max_features=1.0, min_samples_split=2, min_samples_leaf=1,
                 max_depth=None, random_state=None) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.random_state = random_state

    def _target(self, y, n: int) -> np.ndarray:
        raise NotImplementedError

    def fit(self, X, y):
        trees = _whole("n_estimators", self.n_estimators, 1)
        split = _whole("min_samples_split", self.min_samples_split, 2)
        leaf = _whole("min_samples_leaf", self.min_samples_leaf, 1)
        depth = None if self.max_depth is None else _whole("max_depth", self.max_depth, 1)
        data = _matrix(X)
        k = _features_per_node(self.max_features, data.shape[1])
        Y = self._target(y, data.shape[0])
        rng = np.random.default_rng(self.random_state)
        self.n_features_in_ = data.shape[1]
        self.estimators_ = tuple(
            grow(data, Y, classify=self._classify, k=k, min_split=split, min_leaf=leaf,
                 depth_limit=depth, rng=rng)
            for _ in range(trees))
        return self

    def _mean_leaf_values(self, X) -> np.ndarray:
        if not hasattr(self, "estimators_"):
            raise NotFittedError(f"this {type(self).__name__} has not been fitted")
        data = _matrix(X)
        if data.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {data.shape[1]} columns; the forest was fitted on {self.n_features_in_}")
        total = sum(t.value[t.apply(data)] for t in self.estimators_)
        return total / len(self.estimators_)


def _column(y, n: int) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"y has shape {arr.shape}; expected ({n},) or ({n}, 1)")
    return arr


class ExtraTreesClassifier(_Forest):
    _classify = True

    def __init__(self, n_estimators=100, *, max_features="sqrt", min_samples_split=2, min_samples_leaf=1,
                 max_depth=None, random_state=None) -> None:
        super().__init__(n_estimators, max_features=max_features, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf, max_depth=max_depth, random_state=random_state)

    def _target(self, y, n: int) -> np.ndarray:
        labels = _column(y, n)
        self.classes_, codes = np.unique(labels, return_inverse=True)
        return np.eye(len(self.classes_))[codes.ravel()]

    def predict_proba(self, X) -> np.ndarray:
        return self._mean_leaf_values(X)

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)  # first: it raises NotFittedError before classes_ exists
        return self.classes_[np.argmax(proba, axis=1)]


class ExtraTreesRegressor(_Forest):
    def _target(self, y, n: int) -> np.ndarray:
        try:
            values = _column(np.asarray(y, dtype=np.float64), n)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"y: {exc}") from None
        if not np.isfinite(values).all():
            raise ValueError("y holds a non-finite value")
        return values[:, None]

    def predict(self, X) -> np.ndarray:
        return self._mean_leaf_values(X)[:, 0]
