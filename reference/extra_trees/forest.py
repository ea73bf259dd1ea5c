"""Extra-trees forests: input checks, hyperparameters, and averaging the trees' leaf values."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from .tree import GrowthRules, grow_tree

MaxFeatures = str | int | float | None


class NotFittedError(ValueError):
    """A prediction was asked of a forest that has not been fitted."""


class _ExtraTrees:
    """What the classifier and the regressor share: everything but the encoding of `y`."""

    def __init__(
        self,
        n_estimators: int,
        *,
        max_features: MaxFeatures,
        min_samples_split: int,
        min_samples_leaf: int,
        max_depth: int | None,
        random_state: int | None,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> _ExtraTrees:
        """Grow `n_estimators` trees on all of `X` (n, d) and `y` (n,) or (n, 1)."""
        X = _checked_X(X)
        rules = self._rules(X.shape[1])
        Y = self._encode(_checked_y(y, len(X)))
        rng = np.random.default_rng(self.random_state)
        self.estimators_ = tuple(grow_tree(X, Y, rules, rng) for _ in range(self.n_estimators))
        self.n_features_in_ = X.shape[1]
        return self

    def _encode(self, y: np.ndarray) -> np.ndarray:
        """`y` as the (n, k) float matrix whose leaf means are the predictions."""
        raise NotImplementedError

    def _rules(self, n_features: int) -> GrowthRules:
        _check_int("n_estimators", self.n_estimators, 1)
        _check_int("min_samples_split", self.min_samples_split, 2)
        _check_int("min_samples_leaf", self.min_samples_leaf, 1)
        if self.max_depth is not None:
            _check_int("max_depth", self.max_depth, 1)
        return GrowthRules(
            n_candidates=_n_candidates(self.max_features, n_features),
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            max_depth=self.max_depth,
        )

    def _mean_value(self, X: Any) -> np.ndarray:
        """The trees' leaf values for each row of `X`, averaged over the trees: (n, k)."""
        if not hasattr(self, "estimators_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")
        X = _checked_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the forest was fitted with {self.n_features_in_}"
            )
        return np.mean([tree.value[tree.apply(X)] for tree in self.estimators_], axis=0)


class ExtraTreesClassifier(_ExtraTrees):
    """A forest of extremely randomized trees voting by averaged class probabilities."""

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        max_features: MaxFeatures = "sqrt",
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        max_depth: int | None = None,
        random_state: int | None = None,
    ) -> None:
        super().__init__(
            n_estimators,
            max_features=max_features,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            max_depth=max_depth,
            random_state=random_state,
        )

    def _encode(self, y: np.ndarray) -> np.ndarray:
        self.classes_, codes = np.unique(y, return_inverse=True)
        return np.eye(len(self.classes_))[codes]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (n, n_classes), columns ordered as `classes_`."""
        return self._mean_value(X)

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row; a tie goes to the first of `classes_`."""
        proba = self.predict_proba(X)
        return self.classes_[proba.argmax(axis=1)]


class ExtraTreesRegressor(_ExtraTrees):
    """A forest of extremely randomized trees averaging their leaf means."""

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        max_features: MaxFeatures = 1.0,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        max_depth: int | None = None,
        random_state: int | None = None,
    ) -> None:
        super().__init__(
            n_estimators,
            max_features=max_features,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            max_depth=max_depth,
            random_state=random_state,
        )

    def _encode(self, y: np.ndarray) -> np.ndarray:
        y = y.astype(float)
        if not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity")
        return y[:, np.newaxis]

    def predict(self, X: Any) -> np.ndarray:
        """The mean over trees of the leaf means, shape (n,)."""
        return self._mean_value(X).ravel()


def _checked_X(X: Any) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.size == 0:
        raise ValueError(f"X is empty: shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinity")
    return X


def _checked_y(y: Any, n_samples: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},) or ({n_samples}, 1), got {y.shape}")
    return y


def _check_int(name: str, value: Any, low: int) -> None:
    if not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


def _n_candidates(max_features: MaxFeatures, n_features: int) -> int:
    """How many features a node draws, resolved as scikit-learn does."""
    if max_features is None:
        # Every feature, as the int d: then the checks below treat it as any other count.
        max_features = n_features
    if max_features == "sqrt":
        return int(np.sqrt(n_features))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, Integral) and 1 <= max_features <= n_features:
        return int(max_features)
    if isinstance(max_features, float) and 0 < max_features <= 1:
        return max(1, int(max_features * n_features))
    raise ValueError(
        "max_features must be 'sqrt', 'log2', None, an int in [1, n_features] or a float in"
        f" (0, 1], got {max_features!r}"
    )
