"""Hypothesis profiles for the reference suites.

The harness runs these suites thousands of times, so the default profile keeps example counts
small and derandomised (the same examples every run, so a verdict never depends on luck).
"""
import gc
import os

from hypothesis import HealthCheck, Phase, settings

# Under bugsmith's mutation workers (which set BUGSMITH_MUTANT_RUN) a failing example is a
# kill, and shrinking it to a minimal one would cost seconds per mutant for nothing.
_PHASES = (
    (Phase.explicit, Phase.reuse, Phase.generate)
    if os.environ.get("BUGSMITH_MUTANT_RUN")
    else tuple(Phase)
)

settings.register_profile(
    "bugsmith",
    max_examples=15,
    derandomize=True,
    deadline=None,
    database=None,
    phases=_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.register_profile("thorough", max_examples=500, deadline=None, database=None)
settings.load_profile("bugsmith")


def pytest_collection_finish(session: object) -> None:
    """Move everything imported and collected so far out of the garbage collector's reach.

    numpy, pandas, scipy and scikit-learn leave millions of long-lived objects that every full
    collection during the tests (and pytest's own at the end) would scan again for nothing.
    """
    gc.collect()
    gc.freeze()
