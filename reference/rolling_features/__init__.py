"""Leakage-free rolling time-series features (see problem.md for the contract)."""
from .rolling_features import STATS, add_rolling_features

__all__ = ["STATS", "add_rolling_features"]
