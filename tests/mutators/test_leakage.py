"""Golden and edge-case tests for the leakage family."""

from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import leakage
from bugsmith.mutators.testing import check_example, mutated_sources

CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in leakage.MUTATORS
    for index in range(len(cls.examples))
]

PIPELINE = textwrap.dedent(
    """
    import pandas as pd


    def add_features(df: pd.DataFrame, prices: pd.DataFrame) -> pd.DataFrame:
        df = df.sort_values(["store", "day"])
        sales = df.groupby("store")["sales"]
        df["lag_1"] = sales.shift(1)  # yesterday's sales
        df["mean_7"] = df.groupby("store")["sales"].transform(
            lambda s: s.shift(1).rolling(7, min_periods=1).mean()
        )
        df["seen"] = df.groupby("store")["visits"].cumsum()
        df["price"] = df["price"].ffill()
        return pd.merge_asof(df, prices, on="day", by="store")
    """
)


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator makes exactly the mutants its golden example lists, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_every_mutator_has_a_positive_and_a_negative_example():
    """A mutator without a near-miss example could match everything without any test noticing."""
    for cls in leakage.MUTATORS:
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_feature_pipeline_gets_each_kind_of_leak_once_per_site():
    """A typical pandas feature function yields every leak that applies to it, and only those."""
    result = mutants_of_source(
        PIPELINE, file="f.py", module="f", mutators=[cls() for cls in leakage.MUTATORS]
    )
    assert Counter(mutant.operator for mutant in result.mutants) == {
        "leakage/drop-sort": 1,
        "leakage/drop-shift": 2,
        "leakage/flip-shift": 2,
        "leakage/center-window": 1,
        "leakage/drop-groupby": 2,  # the transform(lambda) and the cumsum; `sales` is a name
        "leakage/full-sample-statistic": 1,
        "leakage/cumulative-to-total": 1,
        "leakage/backward-fill": 1,
        "leakage/asof-direction": 1,
    }
    for mutant in result.mutants:
        compile(mutant.apply(PIPELINE), "f.py", "exec")


def test_drop_sort_deletes_the_reassignment_line():
    """`df = df.sort_values(...)` disappears whole instead of leaving `df = df`."""
    result = mutants_of_source(PIPELINE, file="f.py", module="f", mutators=[leakage.DropSort()])
    (mutant,) = result.mutants
    assert "sort_values" not in mutant.apply(PIPELINE) and "df = df\n" not in mutant.apply(PIPELINE)


def test_center_window_keeps_the_comment_and_one_argument_per_line():
    """A window written one argument per line gets `center=True` on its own line; comments stay."""
    source = "def f(s):\n    return s.rolling(\n        7,  # a week\n        min_periods=1,  # warm-up\n    ).mean()\n"
    assert mutated_sources(leakage.CenterWindow(), source) == [
        "def f(s):\n    return s.rolling(\n        7,  # a week\n        min_periods=1,  # warm-up\n        center=True,\n    ).mean()\n"
    ]


def test_imported_and_own_methods_are_not_taken_for_pandas():
    """`ndimage.shift`, `self.shift` and `np.cumsum` are someone else's functions, not leaks."""
    source = textwrap.dedent(
        """
        import scipy.ndimage as nd
        from itertools import accumulate as acc

        def f(self, image, xs):
            return nd.shift(image, 1), self.shift(2), np.cumsum(xs), acc.cumsum()
        """
    )
    assert all(mutated_sources(cls(), source) == [] for cls in leakage.MUTATORS)


def test_flipping_a_lead_explains_a_target_from_the_past():
    """`shift(-1)` builds a next-step target; flipping it is explained as a lag, not as leakage."""
    source = "def f(s):\n    return s.shift(-1)\n"
    (mutant,) = mutants_of_source(source, file="f.py", module="f", mutators=[leakage.FlipShift()]).mutants
    assert mutant.mutated == "1" and "previous one" in mutant.explanation


def test_full_sample_statistic_is_explained_with_whole_calls():
    """Dropping `.expanding()` quotes the whole expression, never an empty string."""
    source = "def f(s):\n    return s - s.expanding().mean()\n"
    (mutant,) = mutants_of_source(
        source, file="f.py", module="f", mutators=[leakage.FullSampleStatistic()]
    ).mutants
    assert mutant.explanation.startswith("`s.expanding().mean()` became `s.mean()`: ")
