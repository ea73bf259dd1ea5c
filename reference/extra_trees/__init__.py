"""Extremely randomized trees (extra trees) for classification and regression, numpy only."""

from .forest import ExtraTreesClassifier, ExtraTreesRegressor, NotFittedError
from .tree import Tree

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "NotFittedError", "Tree"]
