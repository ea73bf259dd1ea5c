"""Hypothesis profiles for the reference suites.

The harness runs these suites thousands of times, so the default profile keeps example counts
small and derandomised (the same examples every run, so a verdict never depends on luck).
"""
from hypothesis import HealthCheck, settings

settings.register_profile(
    "bugsmith",
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.register_profile("thorough", max_examples=500, deadline=None, database=None)
settings.load_profile("bugsmith")
