"""Fixtures for the harness tests; the toy project and toy mutators live in toyproject.py."""

from toyproject import project  # noqa: F401 - a fixture, registered by import
