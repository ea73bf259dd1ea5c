"""AUC-ROC from scratch: the ROC curve (ties grouped, zero weights ignored) and its area."""

from .auc import roc_auc_score, roc_curve

__all__ = ["roc_auc_score", "roc_curve"]
