"""Precision-recall curve and average precision from scratch (ties grouped, zero weights ignored)."""

from .pr_curve import average_precision_score, precision_recall_curve

__all__ = ["average_precision_score", "precision_recall_curve"]
