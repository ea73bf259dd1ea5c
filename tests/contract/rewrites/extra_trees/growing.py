"""One extremely randomized tree, grown breadth-first into parallel arrays."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True, kw_only=True)
class Tree:
    feature: np.ndarray
    threshold: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray

    def apply(self, X) -> np.ndarray:
        rows = np.asarray(X, dtype=float)
        where = np.zeros(rows.shape[0], dtype=np.intp)
        active = self.feature[where] >= 0
        while active.any():
            idx = np.flatnonzero(active)
            nodes = where[idx]
            go_left = rows[idx, self.feature[nodes]] <= self.threshold[nodes]
            where[idx] = np.where(go_left, self.children_left[nodes], self.children_right[nodes])
            active = self.feature[where] >= 0
        return where


def _gini(onehot_rows: np.ndarray) -> float:
    p = onehot_rows.mean(axis=0)
    return 1.0 - float(np.dot(p, p))


def _variance(target_rows: np.ndarray) -> float:
    return float(np.var(target_rows[:, 0]))


def grow(X: np.ndarray, Y: np.ndarray, *, classify: bool, k: int, min_split: int, min_leaf: int,
         depth_limit: int | None, rng: np.random.Generator) -> Tree:
    """X (n, d) floats; Y (n, c): one-hot classes, or one column of targets."""
    impurity = _gini if classify else _variance
    feats: list[int] = []
    cuts: list[float] = []
    lefts: list[int] = []
    rights: list[int] = []
    means: list[np.ndarray] = []

    def new_node(rows: np.ndarray) -> int:
        feats.append(-1)
        cuts.append(np.nan)
        lefts.append(-1)
        rights.append(-1)
        means.append(Y[rows].mean(axis=0))
        return len(feats) - 1

    todo = deque([(new_node(np.arange(X.shape[0])), np.arange(X.shape[0]), 0)])
    while todo:
        node, rows, depth = todo.popleft()
        ys = Y[rows]
        pure = bool(np.all(ys == ys[0]))
        if len(rows) < min_split or (depth_limit is not None and depth == depth_limit) or pure:
            continue
        parent = impurity(ys)
        best = None
        for f in rng.choice(X.shape[1], size=k, replace=False):
            col = X[rows, f]
            lo, hi = col.min(), col.max()
            cut = rng.uniform(lo, hi)
            if cut >= hi:  # rounded onto the max: problem.md says to take the min
                cut = lo
            mask = col <= cut
            n_left = int(mask.sum())
            if n_left < min_leaf or len(rows) - n_left < min_leaf:
                continue
            share = n_left / len(rows)
            gain = parent - share * impurity(ys[mask]) - (1 - share) * impurity(ys[~mask])
            if best is None or gain > best[0]:
                best = (gain, int(f), float(cut), mask)
        if best is None:
            continue
        _, f, cut, mask = best
        feats[node], cuts[node] = f, cut
        left_rows, right_rows = rows[mask], rows[~mask]
        lefts[node] = new_node(left_rows)
        rights[node] = new_node(right_rows)
        todo.append((lefts[node], left_rows, depth + 1))
        todo.append((rights[node], right_rows, depth + 1))
    return Tree(feature=np.array(feats, dtype=np.intp), threshold=np.array(cuts, dtype=float),
                children_left=np.array(lefts, dtype=np.intp), children_right=np.array(rights, dtype=np.intp),
                value=np.vstack(means))
