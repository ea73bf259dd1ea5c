"""Worked examples of the extra-trees contract in `problem.md`."""

from __future__ import annotations

import numpy as np
import pytest

from reference.extra_trees import ExtraTreesClassifier, ExtraTreesRegressor, NotFittedError

# Twelve distinct points on a line with distinct targets: a fully grown tree ends in one-row
# leaves, so it gives every training target back.
LINE_X = np.arange(12.0).reshape(-1, 1)
LINE_Y = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0, 5.5, 3.5, 8.0, 9.5])
# Three classes in a 2-D grid: the class is set by the first column alone.
GRID_X = np.array([[x, y] for x in range(6) for y in (0.0, 1.0)])
GRID_Y = np.repeat(["cat", "ant", "bee"], 4)


def leaf_sizes(model: ExtraTreesRegressor | ExtraTreesClassifier, X: np.ndarray) -> list[int]:
    """How many rows of X reach each reached leaf, over all trees."""
    sizes: list[int] = []
    for tree in model.estimators_:
        sizes.extend(np.unique(tree.apply(X), return_counts=True)[1].tolist())
    return sizes


def test_problem_example() -> None:
    """The example of problem.md: fully grown trees fit four points, leaves hold one class."""
    X = [[0.0], [1.0], [2.0], [3.0]]
    clf = ExtraTreesClassifier(n_estimators=5, random_state=0).fit(X, ["b", "b", "a", "a"])
    assert clf.classes_.tolist() == ["a", "b"], f"classes_ must be sorted, got {clf.classes_}"
    got = clf.predict([[0.5], [2.5]])
    assert got.tolist() == ["b", "a"], f"expected ['b', 'a'], got {got}"
    proba = clf.predict_proba([[0.0]])
    assert proba.tolist() == [[0.0, 1.0]], f"x=0 reaches 'b'-only leaves, got {proba}"
    tree = clf.estimators_[0]
    assert tree.feature[0] == 0, f"the root splits the only feature, got {tree.feature[0]}"
    assert 0.0 <= tree.threshold[0] < 3.0, f"root threshold {tree.threshold[0]} outside [0, 3)"


def test_fit_returns_the_model() -> None:
    """fit returns the estimator itself, so calls chain."""
    model = ExtraTreesRegressor(n_estimators=2, random_state=0)
    assert model.fit(LINE_X, LINE_Y) is model, "fit must return self"


def test_classes_are_sorted_and_order_the_probability_columns() -> None:
    """classes_ is sorted; column j of predict_proba is the probability of classes_[j]."""
    clf = ExtraTreesClassifier(n_estimators=3, max_features=None, random_state=0)
    clf.fit(GRID_X, GRID_Y)
    assert clf.classes_.tolist() == ["ant", "bee", "cat"], f"got classes_ {clf.classes_}"
    proba = clf.predict_proba([[0.0, 0.0], [4.0, 1.0]])
    expected = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    assert proba.tolist() == expected, f"x=0 is 'cat', x=4 'bee': expected {expected}, got {proba}"


def test_predict_shapes() -> None:
    """predict gives (n,), also for one row; predict_proba gives (n, n_classes)."""
    clf = ExtraTreesClassifier(n_estimators=2, random_state=0).fit(GRID_X, GRID_Y)
    reg = ExtraTreesRegressor(n_estimators=2, random_state=0).fit(LINE_X, LINE_Y)
    shapes = {
        "classifier predict": clf.predict(GRID_X).shape,
        "classifier predict one row": clf.predict(GRID_X[:1]).shape,
        "predict_proba": clf.predict_proba(GRID_X).shape,
        "predict_proba one row": clf.predict_proba(GRID_X[:1]).shape,
        "regressor predict": reg.predict(LINE_X).shape,
        "regressor predict one row": reg.predict(LINE_X[:1]).shape,
    }
    expected = {
        "classifier predict": (12,),
        "classifier predict one row": (1,),
        "predict_proba": (12, 3),
        "predict_proba one row": (1, 3),
        "regressor predict": (12,),
        "regressor predict one row": (1,),
    }
    assert shapes == expected, f"expected shapes {expected}, got {shapes}"


def test_fully_grown_classifier_fits_its_training_data() -> None:
    """With every feature tried at every node, leaves are pure, so training rows are recalled."""
    clf = ExtraTreesClassifier(n_estimators=4, max_features=None, random_state=1)
    got = clf.fit(GRID_X, GRID_Y).predict(GRID_X)
    assert got.tolist() == GRID_Y.tolist(), f"expected {GRID_Y.tolist()}, got {got.tolist()}"
    proba = clf.predict_proba(GRID_X)
    assert set(proba.ravel().tolist()) == {0.0, 1.0}, f"pure leaves give 0/1 rows, got {proba}"


def test_fully_grown_regressor_reproduces_its_targets() -> None:
    """Distinct rows with distinct targets end in one-row leaves, so training targets come back."""
    reg = ExtraTreesRegressor(n_estimators=3, random_state=2).fit(LINE_X, LINE_Y)
    got = reg.predict(LINE_X)
    np.testing.assert_allclose(got, LINE_Y, rtol=1e-12, err_msg="training targets not recalled")


def test_column_y_is_the_same_as_flat_y() -> None:
    """y of shape (n, 1) is accepted and gives the same forest as y of shape (n,)."""
    flat = ExtraTreesRegressor(n_estimators=2, random_state=3).fit(LINE_X, LINE_Y)
    column = ExtraTreesRegressor(n_estimators=2, random_state=3).fit(LINE_X, LINE_Y.reshape(-1, 1))
    queries = np.linspace(-1.0, 12.0, 27).reshape(-1, 1)
    assert column.predict(queries).tolist() == flat.predict(queries).tolist(), "(n, 1) y differs"
    clf = ExtraTreesClassifier(n_estimators=2, random_state=3).fit(GRID_X, GRID_Y.reshape(-1, 1))
    assert clf.predict(GRID_X).shape == (12,), "classifier labels from (n, 1) y must be (n,)"


def test_max_depth_one_grows_stumps() -> None:
    """max_depth=1: each tree is one split and two leaves, so it predicts two values."""
    reg = ExtraTreesRegressor(n_estimators=5, max_depth=1, random_state=0).fit(LINE_X, LINE_Y)
    node_counts = [len(tree.feature) for tree in reg.estimators_]
    assert node_counts == [3] * 5, f"a stump has 3 nodes, got {node_counts}"
    for tree in reg.estimators_:
        assert len(np.unique(tree.apply(LINE_X))) == 2, "a stump sends rows to 2 leaves"


def test_leaves_hold_at_least_min_samples_leaf_rows() -> None:
    """min_samples_leaf=3: no leaf gets fewer than 3 training rows, and 3 itself is allowed."""
    reg = ExtraTreesRegressor(n_estimators=8, min_samples_leaf=3, random_state=0)
    sizes = leaf_sizes(reg.fit(LINE_X, LINE_Y), LINE_X)
    assert min(sizes) == 3, f"smallest leaf should hold exactly 3 rows, sizes {sorted(sizes)}"


def test_nodes_smaller_than_min_samples_split_are_leaves() -> None:
    """min_samples_split=4: a node with 4 rows may split, one with 3 may not."""
    reg = ExtraTreesRegressor(n_estimators=8, min_samples_split=4, random_state=0)
    sizes = leaf_sizes(reg.fit(LINE_X, LINE_Y), LINE_X)
    assert max(sizes) == 3, f"leaves of fully grown trees hold at most 3 rows, got {sorted(sizes)}"


def test_a_constant_target_gives_single_leaf_trees() -> None:
    """A pure root is a leaf: constant y means every tree is one node predicting that value."""
    reg = ExtraTreesRegressor(n_estimators=3, random_state=0).fit(LINE_X, np.full(12, 7.5))
    assert [len(tree.feature) for tree in reg.estimators_] == [1, 1, 1], "pure root must not split"
    assert reg.predict([[100.0]]).tolist() == [7.5], "a single leaf predicts the constant"


def test_a_row_on_the_threshold_goes_left() -> None:
    """x == threshold goes to the left child (x <= threshold), not the right."""
    reg = ExtraTreesRegressor(n_estimators=1, max_depth=1, random_state=0).fit(LINE_X, LINE_Y)
    tree = reg.estimators_[0]
    left, right = tree.value[tree.children_left[0], 0], tree.value[tree.children_right[0], 0]
    got = reg.predict([[tree.threshold[0]]])[0]
    assert got == left != right, f"x on the threshold: expected left mean {left}, got {got}"


def test_same_seed_same_forest_other_seed_other_forest() -> None:
    """random_state fixes the forest; another seed draws other thresholds."""
    queries = np.linspace(-1.0, 12.0, 53).reshape(-1, 1)

    def fitted(seed: int) -> np.ndarray:
        forest = ExtraTreesRegressor(n_estimators=3, random_state=seed).fit(LINE_X, LINE_Y)
        return forest.predict(queries)

    assert fitted(5).tolist() == fitted(5).tolist(), "the same seed must give the same predictions"
    assert fitted(5).tolist() != fitted(6).tolist(), "another seed should give other predictions"


def test_predict_before_fit_raises() -> None:
    """Predicting with an unfitted forest raises NotFittedError, a ValueError."""
    with pytest.raises(NotFittedError):
        ExtraTreesClassifier().predict(GRID_X)
    with pytest.raises(ValueError):
        ExtraTreesRegressor().predict(LINE_X)


def test_predict_with_another_number_of_features_raises() -> None:
    """X at predict time must have as many columns as at fit time."""
    reg = ExtraTreesRegressor(n_estimators=1, random_state=0).fit(LINE_X, LINE_Y)
    with pytest.raises(ValueError):
        reg.predict(np.zeros((2, 2)))


def test_one_dimensional_x_raises() -> None:
    """X must be 2-D: a flat list of values is refused, not guessed."""
    with pytest.raises(ValueError):
        ExtraTreesRegressor().fit([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
