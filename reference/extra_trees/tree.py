"""One extremely randomized tree (Geurts, Ernst and Wehenkel, 2006), grown and applied with numpy.

Classification and regression share every line here: the classifier passes one-hot labels as
`Y` and the regressor passes its targets as a single column. A leaf stores the mean of its rows
of `Y`, which is the class frequencies for one-hot labels and the target mean for regression,
and the split score below is Gini for the first and variance for the second.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True, kw_only=True)
class GrowthRules:
    """When a node may split, resolved from an estimator's hyperparameters."""

    n_candidates: int
    min_samples_split: int
    min_samples_leaf: int
    max_depth: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tree:
    """A fitted tree as parallel arrays indexed by node id; node 0 is the root.

    A row goes to `children_left` when its value of `feature` is <= `threshold`, else to
    `children_right`. At a leaf, `feature`, `children_left` and `children_right` are -1 and
    `threshold` is NaN. `value[node]` is the mean of the training rows of `Y` that reach the
    node: class frequencies for a classifier, the target mean (one column) for a regressor.
    """

    feature: np.ndarray
    threshold: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The id of the leaf that each row of `X` reaches."""
        node = np.zeros(len(X), dtype=np.intp)
        while True:
            inner = np.flatnonzero(self.children_left[node] != -1)
            if inner.size == 0:
                return node
            at = node[inner]
            go_left = X[inner, self.feature[at]] <= self.threshold[at]
            node[inner] = np.where(go_left, self.children_left[at], self.children_right[at])


def grow_tree(X: np.ndarray, Y: np.ndarray, rules: GrowthRules, rng: np.random.Generator) -> Tree:
    """Grow one tree on all rows of `X` (n, d) and `Y` (n, k), without bootstrap."""
    feature: list[int] = []
    threshold: list[float] = []
    children: list[tuple[int, int]] = []
    value: list[np.ndarray] = []
    # First in, first out: nodes are processed in the order their ids were handed out, so a
    # node's id is its position in the lists above.
    queue = deque([(np.arange(len(X)), 0)])
    next_id = 1
    while queue:
        rows, depth = queue.popleft()
        node_Y = Y[rows]
        totals = node_Y.sum(axis=0)
        value.append(totals / len(rows))
        split = None
        if _may_split(node_Y, depth, rules):
            split = _draw_split(X, rows, node_Y, totals, rules, rng)
        if split is None:
            feature.append(-1)
            threshold.append(np.nan)
            children.append((-1, -1))
            continue
        best_feature, best_threshold = split
        feature.append(best_feature)
        threshold.append(best_threshold)
        children.append((next_id, next_id + 1))
        next_id += 2
        go_left = X[rows, best_feature] <= best_threshold
        queue.append((rows[go_left], depth + 1))
        queue.append((rows[~go_left], depth + 1))
    left, right = np.array(children, dtype=np.intp).T
    return Tree(
        feature=np.array(feature, dtype=np.intp),
        threshold=np.array(threshold),
        children_left=left,
        children_right=right,
        value=np.array(value),
    )


def _may_split(Y: np.ndarray, depth: int, rules: GrowthRules) -> bool:
    """Whether a node holding rows `Y` at `depth` is allowed to look for a split at all."""
    if len(Y) < rules.min_samples_split or depth == rules.max_depth:
        return False
    # A pure node (every row of Y equal) gains nothing from a split.
    return bool((Y.min(axis=0) != Y.max(axis=0)).any())


def _draw_split(
    X: np.ndarray,
    rows: np.ndarray,
    Y: np.ndarray,
    totals: np.ndarray,
    rules: GrowthRules,
    rng: np.random.Generator,
) -> tuple[int, float] | None:
    """The best of `n_candidates` random (feature, threshold) splits of the node's `rows`.

    `Y` holds the node's rows of the encoded target and `totals` their column sums. Returns
    None when no drawn split is valid. A constant feature draws its threshold at its only value,
    so every row goes left and the empty right child fails the `min_samples_leaf` test.
    """
    candidates = rng.permutation(X.shape[1])[: rules.n_candidates]
    values = X[rows[:, None], candidates]
    low, high = values.min(axis=0), values.max(axis=0)
    thresholds = low + (high - low) * rng.random(len(candidates))
    # Rounding can land a draw on `high` (say for adjacent doubles), which splits nothing off;
    # such a draw goes to `low` instead, as scikit-learn does, so the threshold is in [low, high).
    thresholds = np.where(thresholds < high, thresholds, low)
    go_left = values <= thresholds
    n_left = go_left.sum(axis=0)
    n_right = len(rows) - n_left
    valid = (n_left >= rules.min_samples_leaf) & (n_right >= rules.min_samples_leaf)
    if not valid.any():
        return None
    left_sums = go_left[:, valid].T @ Y
    right_sums = totals - left_sums
    # Maximising sum(S**2) / n over both children minimises their size-weighted impurity: Gini
    # when Y is one-hot (S holds class counts), variance when Y is the target (S its sum).
    score = (
        (left_sums**2).sum(axis=1) / n_left[valid]
        + (right_sums**2).sum(axis=1) / n_right[valid]
    )
    best = np.argmax(score)
    return int(candidates[valid][best]), float(thresholds[valid][best])
