"""Correct reference implementations of eight ML-engineering interview problems.

Each problem lives in its own package with its tests beside it, so that it can be packaged
alone. Nothing here imports from `mutators` or `harness`.
"""
