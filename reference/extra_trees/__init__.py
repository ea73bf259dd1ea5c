"""Extremely randomized trees (extra trees) for classification and regression, numpy only."""

from reference.extra_trees.forest import ExtraTreesClassifier, ExtraTreesRegressor, NotFittedError
from reference.extra_trees.tree import Tree

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "NotFittedError", "Tree"]
