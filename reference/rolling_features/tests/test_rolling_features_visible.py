"""Example tests for `add_rolling_features`: the behaviour `problem.md` states, case by case."""
import math

import numpy as np
import pandas as pd
import pytest

from reference.rolling_features import add_rolling_features

NAN = math.nan
START = pd.Timestamp("2024-01-01")


def days(*offsets: float) -> list[pd.Timestamp]:
    return [START + pd.Timedelta(days=offset) for offset in offsets]


def series_frame(day_offsets: list[float], values: list[float], **columns: list) -> pd.DataFrame:
    return pd.DataFrame({"t": days(*day_offsets), "x": values, **columns})


def assert_column(out: pd.DataFrame, name: str, expected: list[float]) -> None:
    got = out[name].to_numpy(dtype=float)
    np.testing.assert_allclose(
        got, expected, rtol=1e-12, equal_nan=True, err_msg=f"column {name}: got {list(got)}"
    )


def test_integer_window_uses_the_previous_rows_only():
    """Window 2 on row i summarises rows i-2 and i-1, never row i; NaN until the window is full."""
    df = series_frame([0, 1, 2, 3, 4], [1.0, 2.0, 4.0, 8.0, 16.0])
    out = add_rolling_features(df, value="x", time="t", windows=[2])
    assert_column(out, "x_mean_2", [NAN, NAN, 1.5, 3.0, 6.0])
    assert_column(out, "x_min_2", [NAN, NAN, 1.0, 2.0, 4.0])
    assert_column(out, "x_max_2", [NAN, NAN, 2.0, 4.0, 8.0])
    assert_column(out, "x_std_2", [NAN, NAN, math.sqrt(0.5), math.sqrt(2.0), math.sqrt(8.0)])


def test_offset_window_is_half_open_and_keeps_its_left_edge():
    """'3D' at day t covers [t-3D, t): a row exactly 3 days back counts, the row itself does not."""
    df = series_frame([0, 1, 3, 4, 8], [1.0, 2.0, 4.0, 8.0, 16.0])
    out = add_rolling_features(df, value="x", time="t", windows=["3D"])
    assert_column(out, "x_mean_3D", [NAN, 1.0, 1.5, 3.0, NAN])
    assert_column(out, "x_min_3D", [NAN, 1.0, 1.0, 2.0, NAN])
    assert_column(out, "x_max_3D", [NAN, 1.0, 2.0, 4.0, NAN])
    assert_column(out, "x_std_3D", [NAN, NAN, math.sqrt(0.5), math.sqrt(2.0), NAN])


def test_each_entity_sees_only_its_own_history():
    """Two stores on the same days: each store's features use its own earlier rows only."""
    df = series_frame(
        [0, 0, 1, 1, 2, 2], [1.0, 100.0, 2.0, 200.0, 4.0, 400.0], k=["a", "b", "a", "b", "a", "b"]
    )
    out = add_rolling_features(
        df, value="x", time="t", by="k", windows=[2, "2D"], stats=["mean"], min_periods=1
    )
    assert_column(out, "x_mean_2", [NAN, NAN, 1.0, 100.0, 1.5, 150.0])
    assert_column(out, "x_mean_2D", [NAN, NAN, 1.0, 100.0, 1.5, 150.0])


def test_without_by_all_rows_share_one_history():
    """With by=None the entity column is ignored and every earlier row counts."""
    df = series_frame([0, 1, 2], [1.0, 10.0, 100.0], k=["a", "b", "a"])
    out = add_rolling_features(df, value="x", time="t", windows=[2], stats=["max"])
    assert_column(out, "x_max_2", [NAN, NAN, 10.0])


def test_unsorted_rows_keep_their_index_and_order():
    """Rows arrive out of time order with their own labels; each keeps its place and its label."""
    df = series_frame([3, 0, 2, 1], [8.0, 1.0, 4.0, 2.0]).set_axis([30, 10, 20, 40])
    out = add_rolling_features(df, value="x", time="t", windows=[1, "2D"], stats=["mean"])
    assert list(out.index) == [30, 10, 20, 40], f"index changed: {list(out.index)}"
    assert out["x"].tolist() == [8.0, 1.0, 4.0, 2.0], "the input rows were reordered"
    assert_column(out, "x_mean_1", [4.0, NAN, 2.0, 1.0])
    assert_column(out, "x_mean_2D", [3.0, NAN, 1.5, 1.0])


def test_missing_values_are_skipped_but_still_fill_a_slot():
    """A NaN is one of the w rows of an integer window, but it is not an observation."""
    df = series_frame([0, 1, 2, 3, 4], [1.0, NAN, 4.0, 8.0, 16.0])
    full = add_rolling_features(df, value="x", time="t", windows=[2], stats=["mean"])
    assert_column(full, "x_mean_2", [NAN, NAN, NAN, NAN, 6.0])
    relaxed = add_rolling_features(
        df, value="x", time="t", windows=[2], stats=["mean"], min_periods=1
    )
    assert_column(relaxed, "x_mean_2", [NAN, 1.0, 1.0, 4.0, 6.0])


def test_min_periods_sets_how_much_history_is_enough():
    """min_periods=2 needs two earlier observations, for integer and offset windows alike."""
    df = series_frame([0, 1, 2, 3], [1.0, 2.0, 4.0, 8.0])
    out = add_rolling_features(
        df, value="x", time="t", windows=[3, "10D"], stats=["mean"], min_periods=2
    )
    assert_column(out, "x_mean_3", [NAN, NAN, 1.5, 7.0 / 3.0])
    assert_column(out, "x_mean_10D", [NAN, NAN, 1.5, 7.0 / 3.0])


def test_new_columns_are_named_windows_first_then_stats():
    """Columns are value_stat_window, looping over windows in order and stats in order."""
    df = series_frame([0, 1], [1.0, 2.0])
    out = add_rolling_features(df, value="x", time="t", windows=["2D", 1], stats=["max", "mean"])
    assert list(out.columns) == ["t", "x", "x_max_2D", "x_mean_2D", "x_max_1", "x_mean_1"]


def test_default_stats_are_mean_std_min_max():
    """Without stats= the four statistics come in the documented order."""
    out = add_rolling_features(series_frame([0, 1], [1.0, 2.0]), value="x", time="t", windows=[3])
    assert list(out.columns) == ["t", "x", "x_mean_3", "x_std_3", "x_min_3", "x_max_3"]


def test_input_frame_is_not_modified():
    """The caller's frame keeps its columns and values; the result is a new frame."""
    df = series_frame([1, 0], [2.0, 1.0])
    before = df.copy()
    out = add_rolling_features(df, value="x", time="t", windows=[1])
    pd.testing.assert_frame_equal(df, before)
    assert out is not df


def test_example_from_the_problem_statement():
    """The worked example in problem.md gives the table shown there."""
    df = pd.DataFrame(
        {
            "store": ["a", "b", "a", "a", "b"],
            "day": pd.to_datetime(
                ["2024-01-03", "2024-01-01", "2024-01-01", "2024-01-02", "2024-01-05"]
            ),
            "sales": [30.0, 5.0, 10.0, 20.0, 7.0],
        }
    )
    out = add_rolling_features(
        df, value="sales", time="day", by="store", windows=[2, "3D"], stats=["mean"]
    )
    assert_column(out, "sales_mean_2", [15.0, NAN, NAN, NAN, NAN])
    assert_column(out, "sales_mean_3D", [15.0, NAN, NAN, 10.0, NAN])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"value": "y"}, KeyError),
        ({"by": "store"}, KeyError),
        ({"windows": []}, ValueError),
        ({"windows": [0]}, ValueError),
        ({"windows": ["abc"]}, ValueError),
        ({"stats": ["median"]}, ValueError),
        ({"windows": [2], "min_periods": 3}, ValueError),
    ],
    ids=["no value column", "no by column", "no windows", "window 0", "window abc",
         "unknown stat", "min_periods over the window"],
)
def test_bad_arguments_are_refused(kwargs, error):
    """A missing column raises KeyError; impossible windows, stats, min_periods raise ValueError."""
    df = series_frame([0, 1], [1.0, 2.0], k=["a", "a"])
    call = {"value": "x", "time": "t", "windows": [1], **kwargs}
    with pytest.raises(error):
        add_rolling_features(df, **call)


def test_two_rows_at_the_same_time_for_one_entity_are_refused():
    """An entity cannot have two observations at one time: which one is 'earlier' is undefined."""
    df = series_frame([0, 0], [1.0, 2.0], k=["a", "a"])
    with pytest.raises(ValueError):
        add_rolling_features(df, value="x", time="t", by="k", windows=[1])
