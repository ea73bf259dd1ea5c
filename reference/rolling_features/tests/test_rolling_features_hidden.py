"""Hidden tests for `add_rolling_features`: oracle and leakage properties, the other edge cases."""
import math
import statistics
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.rolling_features import add_rolling_features
from reference.rolling_features.strategies import (
    BY,
    ENTITIES,
    OFFSETS,
    STEP,
    TIME,
    VALUE,
    feature_kwargs,
    frames,
    rolling_calls,
)

pytestmark = pytest.mark.hidden

NAN = math.nan
START = pd.Timestamp("2024-01-01")
STATISTICS = {"mean": statistics.fmean, "std": statistics.stdev, "min": min, "max": max}


def brute_force(
    df: pd.DataFrame,
    *,
    value: str,
    time: str,
    windows: list,
    stats: list,
    by: str | None,
    min_periods: int | None,
) -> dict[str, list[float]]:
    """Per row: gather the entity's strictly earlier rows, cut the window, apply the stat."""
    times = df[time].tolist()
    values = df[value].astype(float).tolist()
    entities = df[by].tolist() if by is not None else [None] * len(df)
    columns = {}
    for window in windows:
        needed = min_periods or (window if isinstance(window, int) else 1)
        observed = [window_values(times, values, entities, row, window) for row in range(len(df))]
        for stat in stats:
            columns[f"{value}_{stat}_{window}"] = [statistic(obs, stat, needed) for obs in observed]
    return columns


def window_values(times: list, values: list, entities: list, row: int, window: Any) -> list[float]:
    earlier = sorted(
        (times[j], values[j])
        for j in range(len(times))
        if entities[j] == entities[row] and times[j] < times[row]
    )
    if isinstance(window, int):
        chosen = earlier[-window:]
    else:
        chosen = [(t, v) for t, v in earlier if t >= times[row] - pd.Timedelta(window)]
    return [v for _, v in chosen if not math.isnan(v)]


def statistic(observed: list[float], stat: str, needed: int) -> float:
    if len(observed) < max(needed, 2 if stat == "std" else 1):
        return NAN
    return STATISTICS[stat](observed)


def features(out: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    return out.drop(columns=df.columns)


def days(*offsets: float) -> list[pd.Timestamp]:
    return [START + pd.Timedelta(days=offset) for offset in offsets]


def assert_column(out: pd.DataFrame, name: str, expected: list[float]) -> None:
    got = out[name].to_numpy(dtype=float)
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True, err_msg=name)


@settings(max_examples=15)
@given(rolling_calls())
def test_matches_a_brute_force_oracle(call):
    """On random frames (entities, unsorted rows, NaNs, gaps) every feature equals brute force."""
    (df,), kwargs = call
    out = add_rolling_features(df, **kwargs)
    expected = brute_force(df, **kwargs)
    assert list(out.columns) == [*df.columns, *expected], "wrong new columns or column order"
    pd.testing.assert_frame_equal(out[df.columns], df)
    for name, column in expected.items():
        np.testing.assert_allclose(
            out[name].to_numpy(dtype=float), column, rtol=1e-9, atol=1e-9, equal_nan=True,
            err_msg=f"{name} on {df.to_dict('list')} with {kwargs}",
        )


def seeded_call(rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A random valid call: 6-12 unsorted rows, 2 entities or none, NaNs, both window kinds."""
    by = BY if rng.random() < 0.7 else None
    rows = int(rng.integers(6, 13))
    # Distinct codes give distinct (entity, step) pairs; without entities the steps alone differ.
    codes = rng.choice(2 * 24, size=rows, replace=False)
    steps = codes // 2 if by is not None else rng.choice(24, size=rows, replace=False)
    entities = np.array(["a", "b"])[codes % 2]
    values = rng.integers(-40, 41, size=rows) / 4
    values[rng.random(rows) < 0.15] = NAN
    df = pd.DataFrame(
        {BY: entities, TIME: START + steps * STEP, VALUE: values},
        index=rng.permutation(rows) * 3 + 5,
    )
    window = int(rng.integers(1, 5))
    windows = [window, str(rng.choice(OFFSETS))][:: 1 if rng.random() < 0.5 else -1]
    min_periods = None if rng.random() < 0.3 else int(rng.integers(1, window + 1))
    kwargs = {
        "value": VALUE,
        "time": TIME,
        "windows": windows,
        "stats": ["mean", "std", "min", "max"],
        "by": by,
        "min_periods": min_periods,
    }
    return df, kwargs


def test_matches_brute_force_on_seeded_random_frames():
    """A fixed sweep of 10 random frames (entities, gaps, NaNs, min_periods) equals brute force."""
    rng = np.random.default_rng(7)
    for _ in range(10):
        df, kwargs = seeded_call(rng)
        out = add_rolling_features(df, **kwargs)
        for name, column in brute_force(df, **kwargs).items():
            np.testing.assert_allclose(
                out[name].to_numpy(dtype=float), column, rtol=1e-9, atol=1e-9, equal_nan=True,
                err_msg=f"{name} on {df.to_dict('list')} with {kwargs}",
            )


@settings(max_examples=12)
@given(st.data())
def test_values_at_or_after_a_time_never_change_features_up_to_it(data):
    """No leakage: rewriting every value at or after time t leaves all features at or before t."""
    by = data.draw(st.sampled_from([BY, None]))
    df = data.draw(frames(by=by, min_rows=1))
    kwargs = data.draw(feature_kwargs(by=by))
    cutoff = data.draw(st.sampled_from(sorted(df[TIME])))
    later = df[TIME] >= cutoff
    rewritten = df.copy()
    rewritten.loc[later, VALUE] = 1000.0 + np.arange(later.sum())
    known = df[TIME] <= cutoff
    before = features(add_rolling_features(df, **kwargs), df)[known]
    after = features(add_rolling_features(rewritten, **kwargs), df)[known]
    pd.testing.assert_frame_equal(after, before)


@settings(max_examples=10)
@given(frames(by=BY), feature_kwargs(by=BY), st.sampled_from(ENTITIES))
def test_other_entities_never_change_an_entitys_features(df, kwargs, entity):
    """An entity's features are the same whether or not the other entities' rows are present."""
    mine = df[BY] == entity
    together = add_rolling_features(df, **kwargs)[mine]
    alone = add_rolling_features(df[mine], **kwargs)
    pd.testing.assert_frame_equal(together, alone)


def test_std_is_the_sample_std_and_needs_two_observations():
    """std uses ddof=1, so one observation gives NaN even when min_periods=1 allows it."""
    df = pd.DataFrame({"t": days(0, 1, 2), "x": [1.0, 3.0, 0.0]})
    out = add_rolling_features(df, value="x", time="t", windows=["5D"], min_periods=1)
    assert_column(out, "x_std_5D", [NAN, NAN, math.sqrt(2.0)])
    assert_column(out, "x_mean_5D", [NAN, 1.0, 2.0])


def test_a_window_of_one_row_and_min_periods_equal_to_the_window_are_allowed():
    """window=1 is the smallest integer window; min_periods may equal an integer window."""
    df = pd.DataFrame({"t": days(0, 1, 2), "x": [1.0, 3.0, 5.0]})
    out = add_rolling_features(
        df, value="x", time="t", windows=[1, 2], stats=["max"], min_periods=1
    )
    assert_column(out, "x_max_1", [NAN, 1.0, 3.0])
    assert_column(out, "x_max_2", [NAN, 1.0, 3.0])
    full = add_rolling_features(df, value="x", time="t", windows=[2], stats=["max"], min_periods=2)
    assert_column(full, "x_max_2", [NAN, NAN, 3.0])


def test_a_one_nanosecond_window_is_allowed_and_sees_nothing_a_day_away():
    """'1ns' is the smallest positive offset; daily rows never fall inside it."""
    df = pd.DataFrame({"t": days(0, 1), "x": [1.0, 3.0]})
    out = add_rolling_features(df, value="x", time="t", windows=["1ns"], stats=["mean"])
    assert_column(out, "x_mean_1ns", [NAN, NAN])


def test_sub_day_offsets_count_hours():
    """'12h' at 18:00 covers [06:00, 18:00): the rows at 06:00 and 12:00 but not 00:00."""
    times = [START + pd.Timedelta(hours=h) for h in (0, 6, 12, 18)]
    df = pd.DataFrame({"t": times, "x": [1.0, 2.0, 4.0, 8.0]})
    out = add_rolling_features(df, value="x", time="t", windows=["12h"], stats=["min"])
    assert_column(out, "x_min_12h", [NAN, 1.0, 1.0, 2.0])


def test_only_missing_history_gives_nan():
    """A window whose earlier values are all missing has no observations, so every stat is NaN."""
    df = pd.DataFrame({"t": days(0, 1, 2), "x": [NAN, NAN, 5.0]})
    out = add_rolling_features(df, value="x", time="t", windows=[2, "2D"], min_periods=1)
    assert out.iloc[:, 2:].isna().all(axis=None), out


def test_empty_frames_get_empty_float_columns():
    """Zero rows is valid, with or without entities: the new columns exist and are float."""
    df = pd.DataFrame({"k": pd.Series([], dtype=str), "t": pd.to_datetime([]), "x": []})
    for by in ("k", None):
        out = add_rolling_features(df, value="x", time="t", by=by, windows=[2, "1D"], stats=["std"])
        assert list(out.columns) == ["k", "t", "x", "x_std_2", "x_std_1D"]
        assert len(out) == 0 and (out.dtypes.iloc[3:] == "float64").all(), out.dtypes


def test_duplicate_index_labels_keep_rows_apart():
    """Rows are matched by position, so repeated index labels do not mix their features."""
    df = pd.DataFrame(
        {"k": ["a", "b", "a", "b"], "t": days(1, 0, 0, 1), "x": [1.0, 2.0, 3.0, 4.0]},
        index=[7, 7, 5, 5],
    )
    out = add_rolling_features(df, value="x", time="t", by="k", windows=[1], stats=["mean"])
    assert list(out.index) == [7, 7, 5, 5]
    assert_column(out, "x_mean_1", [3.0, NAN, NAN, 2.0])


def test_an_index_named_like_a_column_is_kept():
    """The index is carried through untouched, even when its name is also a column name."""
    df = pd.DataFrame({"t": days(1, 0), "x": [2.0, 1.0]}, index=pd.Index([5, 6], name="x"))
    out = add_rolling_features(df, value="x", time="t", windows=[1], stats=["mean"])
    pd.testing.assert_index_equal(out.index, df.index)
    assert_column(out, "x_mean_1", [1.0, NAN])


def test_categorical_and_numeric_entities():
    """Entities may be categorical (in any category order) or integers."""
    base = {"t": days(2, 0, 1, 1), "x": [1.0, 2.0, 3.0, 4.0]}
    categorical = pd.Categorical(["b", "a", "a", "b"], categories=["b", "a"])
    for ids in (categorical, [20, 10, 10, 20]):
        df = pd.DataFrame({"k": ids, **base})
        out = add_rolling_features(df, value="x", time="t", by="k", windows=["5D"], stats=["max"])
        assert_column(out, "x_max_5D", [4.0, NAN, 2.0, NAN])


def test_integer_nullable_and_bool_values_are_numeric():
    """Ints, nullable ints with <NA> and bools are numeric values; <NA> is skipped like NaN; the
    new columns are floats."""
    df = pd.DataFrame({"t": days(0, 1, 2, 3), "x": pd.array([1, None, 3, 5], dtype="Int64")})
    out = add_rolling_features(df, value="x", time="t", windows=[2], stats=["mean"], min_periods=1)
    assert_column(out, "x_mean_2", [NAN, 1.0, 1.0, 3.0])
    counts = df.fillna(7).astype({"x": "int64"})
    out = add_rolling_features(counts, value="x", time="t", windows=[1])
    assert_column(out, "x_max_1", [NAN, 1.0, 7.0, 3.0])
    flags = df.assign(x=[True, False, True, True])
    out = add_rolling_features(flags, value="x", time="t", windows=["3D"], stats=["mean"])
    assert_column(out, "x_mean_3D", [NAN, 1.0, 0.5, 2.0 / 3.0])
    for frame in (df, counts, flags):  # every new column is a float column, whatever the input
        out = add_rolling_features(frame, value="x", time="t", windows=[1, "1D"], stats=["min"])
        assert all(pd.api.types.is_float_dtype(out[name]) for name in ("x_min_1", "x_min_1D"))


def test_timezone_aware_times():
    """Times with a time zone work like naive ones."""
    times = pd.DatetimeIndex(days(1, 0, 2)).tz_localize("Europe/Paris")
    df = pd.DataFrame({"t": times, "x": [2.0, 1.0, 4.0]})
    out = add_rolling_features(df, value="x", time="t", windows=["1D"], stats=["mean"])
    assert_column(out, "x_mean_1D", [1.0, NAN, 2.0])


def sample_frame() -> pd.DataFrame:
    return pd.DataFrame({"k": ["a", "b"], "t": days(0, 0), "x": [1.0, 2.0]})


BASE_CALL = {"value": "x", "time": "t", "by": "k", "windows": [1]}


def test_the_base_call_of_the_error_cases_is_valid():
    """The call every error case below breaks in one way is itself accepted: two entities may
    share a time, so each case fails for its own reason only."""
    out = add_rolling_features(sample_frame(), **BASE_CALL)
    assert list(out.columns) == ["k", "t", "x", "x_mean_1", "x_std_1", "x_min_1", "x_max_1"]


BAD_ARGUMENTS = {
    "no time column": ({"time": "when"}, KeyError),
    "no value column": ({"value": "y"}, KeyError),
    "no by column": ({"by": "store"}, KeyError),
    "windows a bare offset string": ({"windows": "7D"}, ValueError),
    "windows a bare one-letter offset": ({"windows": "D"}, ValueError),
    "windows a bare int": ({"windows": 3}, ValueError),
    "windows empty": ({"windows": []}, ValueError),
    "windows an empty tuple": ({"windows": ()}, ValueError),
    "stats a bare string": ({"stats": "mean"}, ValueError),
    "stats a bare int": ({"stats": 3}, ValueError),
    "stats empty": ({"stats": []}, ValueError),
    "window 0": ({"windows": [0]}, ValueError),
    "window -2": ({"windows": [-2]}, ValueError),
    "window 2.5": ({"windows": [2.5]}, ValueError),
    "window a Timedelta": ({"windows": [pd.Timedelta("1D")]}, ValueError),
    "window True": ({"windows": [True]}, ValueError),
    "window False": ({"windows": [False]}, ValueError),
    "window 0D": ({"windows": ["0D"]}, ValueError),
    "window -1D": ({"windows": ["-1D"]}, ValueError),
    "window abc": ({"windows": ["abc"]}, ValueError),
    "window 1ME": ({"windows": ["1ME"]}, ValueError),
    "window 7 as a string": ({"windows": ["7"]}, ValueError),
    "unknown stat": ({"stats": ["mean", "average"]}, ValueError),
    "min_periods 0": ({"min_periods": 0}, ValueError),
    "min_periods 0 on an offset window": ({"min_periods": 0, "windows": ["1D"]}, ValueError),
    "min_periods -1": ({"min_periods": -1, "windows": ["1D"]}, ValueError),
    "min_periods 1.5": ({"min_periods": 1.5, "windows": ["1D"]}, ValueError),
    "min_periods 2.0": ({"min_periods": 2.0, "windows": [2]}, ValueError),
    "min_periods over one of the integer windows": (
        {"windows": ["1D", 2, 3], "min_periods": 3}, ValueError),
    "min_periods over the first integer window": (
        {"windows": [2, 3, "1D"], "min_periods": 3}, ValueError),
    "a window asked twice": ({"windows": [2, 2]}, ValueError),
    "an offset window asked twice": ({"windows": ["1D", "1D"]}, ValueError),
    "a stat asked twice": ({"stats": ["max", "max"]}, ValueError),
}


@pytest.mark.parametrize(("kwargs", "error"), list(BAD_ARGUMENTS.values()), ids=list(BAD_ARGUMENTS))
def test_bad_arguments_are_refused(kwargs, error):
    """Each impossible argument problem.md names raises its documented error (any wording)."""
    with pytest.raises(error):
        add_rolling_features(sample_frame(), **{**BASE_CALL, **kwargs})


BAD_FRAMES = {
    "text values": sample_frame().assign(x=["1", "2"]),
    "text times": sample_frame().assign(t=["2024-01-01", "2024-01-02"]),
    "NaT in time": sample_frame().assign(t=[pd.NaT, START]),
    "missing entity": sample_frame().assign(k=["a", None]),
    "missing entity as NaN": sample_frame().assign(k=[1.0, np.nan]),
    "a new column exists already": sample_frame().assign(x_mean_1=[0.0, 0.0]),
    "an entity twice at one time": sample_frame().assign(k=["a", "a"]),
}


@pytest.mark.parametrize("frame", list(BAD_FRAMES.values()), ids=list(BAD_FRAMES))
def test_bad_frames_are_refused(frame):
    """Wrong dtypes, missing times or entities, a repeated (by, time) and a clashing column name
    raise ValueError."""
    with pytest.raises(ValueError):
        add_rolling_features(frame, **BASE_CALL)


def test_repeated_times_without_entities_are_refused():
    """With by=None the times alone identify rows, so two rows at one time are refused."""
    with pytest.raises(ValueError):
        add_rolling_features(sample_frame(), value="x", time="t", windows=[1])


@pytest.mark.parametrize("times", [[0, 1], [0.0, 1.5]], ids=["integer times", "float times"])
def test_numeric_times_are_refused(times):
    """Time must be a datetime column: numbers, which a row window could still order, are a
    ValueError (an offset window such as "7D" has no meaning on them)."""
    with pytest.raises(ValueError):
        add_rolling_features(sample_frame().assign(t=times), **BASE_CALL)
