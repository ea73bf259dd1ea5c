"""Hypothesis strategies that generate valid inputs for `reference.extra_trees`.

Datasets are tiny (up to 16 rows and 4 columns) so that a fit takes milliseconds, and built to
reach the branches that matter: values come from a small pool half of the time, so ties,
duplicate rows and constant columns are common; labels may be ints or strings, with one class
as often as several; `y` arrives as a list, an `(n,)` array or an `(n, 1)` column.

`call_strategies` keys methods as `"ExtraTreesClassifier.fit"` and the like; their `args`
start with a ready estimator (fitted, for `predict`), so `ExtraTreesClassifier.fit(*args,
**kwargs)` calls the method generically.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from reference.extra_trees import ExtraTreesClassifier, ExtraTreesRegressor, Tree

Call = tuple[tuple[Any, ...], dict[str, Any]]
Dataset = tuple[np.ndarray, Any]
Forest = ExtraTreesClassifier | ExtraTreesRegressor

_POOL = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
_FLOATS = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
_LABELS = (st.sampled_from([0, 1, 2]), st.sampled_from(["ant", "bee", "cat"]))


@st.composite
def feature_matrices(
    draw: st.DrawFn, *, rows: int | None = None, columns: int | None = None
) -> np.ndarray:
    """A finite float matrix, by default of 1 to 16 rows and 1 to 4 columns.

    Each column holds values from a small pool (ties, often constant) or from wide floats.
    """
    rows = draw(st.integers(1, 16)) if rows is None else rows
    columns = draw(st.integers(1, 4)) if columns is None else columns
    matrix = np.empty((rows, columns))
    for column in range(columns):
        values = draw(st.sampled_from([_POOL, _FLOATS]))
        matrix[:, column] = draw(st.lists(values, min_size=rows, max_size=rows))
    return matrix


@st.composite
def classification_data(draw: st.DrawFn) -> Dataset:
    """`(X, y)` with labels that are all ints or all strings, in any accepted layout."""
    X = draw(feature_matrices())
    labels = draw(st.sampled_from(_LABELS))
    y = draw(st.lists(labels, min_size=len(X), max_size=len(X)))
    return X, draw(_laid_out(np.array(y)))


@st.composite
def regression_data(draw: st.DrawFn) -> Dataset:
    """`(X, y)` with finite float targets, repeated values included, in any accepted layout."""
    X = draw(feature_matrices())
    y = draw(st.lists(_POOL | _FLOATS, min_size=len(X), max_size=len(X)))
    return X, draw(_laid_out(np.array(y)))


def hyperparameters(n_features: int) -> SearchStrategy[dict[str, Any]]:
    """Constructor keyword arguments that are valid for data with `n_features` columns."""
    return st.fixed_dictionaries(
        {
            "n_estimators": st.integers(1, 4),
            "max_features": st.sampled_from(["sqrt", "log2", None])
            | st.integers(1, n_features)
            | st.floats(min_value=0.01, max_value=1.0),
            "min_samples_split": st.integers(2, 6),
            "min_samples_leaf": st.integers(1, 4),
            "max_depth": st.none() | st.integers(1, 4),
            "random_state": st.integers(0, 2**16),
        }
    )


def _laid_out(y: np.ndarray) -> SearchStrategy[Any]:
    """`y` as a list, a 1-D array or an `(n, 1)` column, the three accepted layouts."""
    return st.sampled_from([y.tolist(), y, y.reshape(-1, 1)])


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
    kind = draw(st.sampled_from([ExtraTreesClassifier, ExtraTreesRegressor]))
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
