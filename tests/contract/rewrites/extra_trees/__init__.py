"""An independent rewrite of the extra-trees problem, written from problem.md alone (test data)."""
from .ensemble import ExtraTreesClassifier, ExtraTreesRegressor, NotFittedError
from .growing import Tree

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "NotFittedError", "Tree"]
