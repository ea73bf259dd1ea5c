"""An independent rewrite of the precision-recall problem, written from problem.md alone (test data)."""
from .steps import average_precision_score, precision_recall_curve

__all__ = ["average_precision_score", "precision_recall_curve"]
