"""Hypothesis strategies that generate valid inputs for the extra-trees models.

Datasets are tiny (up to 16 rows and 4 columns) so that a fit takes milliseconds, and built to
reach the branches that matter: columns and targets are drawn from a small pool (ties,
duplicate rows), from wide floats, or constant; labels are ints or strings, one to three
classes; `y` arrives as a list, an `(n,)` array or an `(n, 1)` column.

`call_strategies` keys methods as `"ExtraTreesClassifier.fit"` and the like; their `args`
start with a ready estimator (fitted, for `predict`), so `ExtraTreesClassifier.fit(*args,
**kwargs)` calls the method generically.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from . import ExtraTreesClassifier, ExtraTreesRegressor, Tree

Call = tuple[tuple[Any, ...], dict[str, Any]]
Dataset = tuple[np.ndarray, Any]
Forest = ExtraTreesClassifier | ExtraTreesRegressor

_POOL = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
_LABEL_SETS = (np.array([0, 1, 2]), np.array(["ant", "bee", "cat"]))
# Built once: hypothesis analyses each new strategy object, which costs more than the draw.
_SEEDS = st.integers(0, 2**32 - 1)
_ROWS = st.integers(1, 16)
_COLUMNS = st.integers(1, 4)
_COLUMN_KINDS = st.sampled_from(["pool", "wide", "constant"])
_TARGET_KINDS = st.sampled_from(["pool", "wide", "pool", "wide", "constant"])  # rarely constant
_LABELS = st.sampled_from(_LABEL_SETS)
_N_CLASSES = st.integers(1, 3)
_LAYOUTS = st.sampled_from(["list", "flat", "column"])
_N_ESTIMATORS = st.integers(1, 4)
_MAX_FEATURES = st.sampled_from(["sqrt", "log2", None, "int"]) | st.floats(0.01, 1.0)
_MIN_SAMPLES_SPLIT = st.integers(2, 6)
_MIN_SAMPLES_LEAF = st.integers(1, 4)
_MAX_DEPTH = st.none() | st.integers(1, 4)


@st.composite
def feature_matrices(
    draw: st.DrawFn, *, rows: int | None = None, columns: int | None = None
) -> np.ndarray:
    """A finite float matrix, by default of 1 to 16 rows and 1 to 4 columns.

    Each column holds values from a small pool (ties), wide floats, or one constant. Values come
    from a drawn numpy seed: drawing each value through hypothesis costs ten times more.
    """
    rows = draw(_ROWS) if rows is None else rows
    columns = draw(_COLUMNS) if columns is None else columns
    kinds = [draw(_COLUMN_KINDS) for _ in range(columns)]
    rng = np.random.default_rng(draw(_SEEDS))
    matrix = np.empty((rows, columns))
    for column, kind in enumerate(kinds):
        matrix[:, column] = _values(kind, rows, rng)
    return matrix


def _values(kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "pool":
        return rng.choice(_POOL, size=size)
    if kind == "wide":
        return rng.uniform(-1e3, 1e3, size=size)
    return np.full(size, rng.choice(_POOL))


@st.composite
def classification_data(draw: st.DrawFn) -> Dataset:
    """`(X, y)` with 1 to 3 classes of int or string labels, in any accepted layout."""
    X = draw(feature_matrices())
    labels = draw(_LABELS)[: draw(_N_CLASSES)]
    rng = np.random.default_rng(draw(_SEEDS))
    return X, _laid_out(rng.choice(labels, size=len(X)), draw(_LAYOUTS))


@st.composite
def regression_data(draw: st.DrawFn) -> Dataset:
    """`(X, y)` with finite float targets, ties or all distinct, in any accepted layout."""
    X = draw(feature_matrices())
    rng = np.random.default_rng(draw(_SEEDS))
    y = _values(draw(_TARGET_KINDS), len(X), rng)
    return X, _laid_out(y, draw(_LAYOUTS))


@st.composite
def hyperparameters(draw: st.DrawFn, n_features: int) -> dict[str, Any]:
    """Constructor keyword arguments that are valid for data with `n_features` columns."""
    max_features = draw(_MAX_FEATURES)
    if max_features == "int":
        max_features = draw(st.integers(1, n_features))
    return {
        "n_estimators": draw(_N_ESTIMATORS),
        "max_features": max_features,
        "min_samples_split": draw(_MIN_SAMPLES_SPLIT),
        "min_samples_leaf": draw(_MIN_SAMPLES_LEAF),
        "max_depth": draw(_MAX_DEPTH),
        "random_state": draw(_SEEDS),
    }


def _laid_out(y: np.ndarray, layout: str) -> Any:
    """`y` as a list, a 1-D array or an `(n, 1)` column, the three accepted layouts."""
    if layout == "list":
        return y.tolist()
    if layout == "column":
        return y.reshape(-1, 1)
    return y


@st.composite
def _fit_calls(draw: st.DrawFn, kind: type[Forest]) -> Call:
    data = classification_data() if kind is ExtraTreesClassifier else regression_data()
    X, y = draw(data)
    return (kind(**draw(hyperparameters(X.shape[1]))), X, y), {}


@st.composite
def _predict_calls(draw: st.DrawFn, kind: type[Forest]) -> Call:
    (model, X, y), _ = draw(_fit_calls(kind))
    model.fit(X, y)
    return (model, draw(feature_matrices(rows=draw(st.integers(1, 6)), columns=X.shape[1]))), {}


@st.composite
def _apply_calls(draw: st.DrawFn) -> Call:
    kinds: list[type[Forest]] = [ExtraTreesClassifier, ExtraTreesRegressor]
    kind = draw(st.sampled_from(kinds))
    (model, X), _ = draw(_predict_calls(kind))
    tree: Tree = draw(st.sampled_from(model.estimators_))
    return (tree, X), {}


def call_strategies() -> dict[str, SearchStrategy[Call]]:
    """For each public callable, a strategy of valid `(args, kwargs)`."""
    # Constructors see no data, so only forms of max_features valid for any width are drawn.
    constructors = hyperparameters(1).map(lambda kwargs: ((), kwargs))
    calls: dict[str, SearchStrategy[Call]] = {"Tree.apply": _apply_calls()}
    for kind in (ExtraTreesClassifier, ExtraTreesRegressor):
        name = kind.__name__
        calls[name] = constructors
        calls[f"{name}.fit"] = _fit_calls(kind)
        calls[f"{name}.predict"] = _predict_calls(kind)
    calls["ExtraTreesClassifier.predict_proba"] = _predict_calls(ExtraTreesClassifier)
    return calls
