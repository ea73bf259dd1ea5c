"""An independent rewrite of the AUC problem, written from problem.md alone (test data)."""
from .curve import roc_auc_score, roc_curve

__all__ = ["roc_auc_score", "roc_curve"]
