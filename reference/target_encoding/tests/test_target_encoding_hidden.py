"""Hidden tests for target encoding: plain-loop oracles, the direct leakage test, edge cases."""
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.target_encoding import encode_apply, encode_train
from reference.target_encoding.strategies import (
    COLUMN,
    TARGET,
    TIME,
    apply_calls,
    encoding_kwargs,
    frames,
    train_calls,
)

pytestmark = pytest.mark.hidden

NAN = math.nan
MISSING = object()  # every missing category, whatever its spelling


def category(value: Any) -> Any:
    return MISSING if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else value


def smoothed(targets: list[float], prior: float, smoothing: float) -> float:
    if not targets:
        return prior
    return (sum(targets) + prior * smoothing) / (len(targets) + smoothing)


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else NAN


def oracle_train(df: pd.DataFrame, *, column: str, target: str, time: str, smoothing: float = 0.0,
                 prior: float | None = None) -> list[float]:
    """Per row: gather the strictly earlier rows, then those of its category, then the formula."""
    keys = [category(v) for v in df[column]]
    times, targets = list(df[time]), [float(v) for v in df[target]]
    encoded = []
    for row in range(len(df)):
        earlier = [j for j in range(len(df)) if times[j] < times[row]]
        own = [targets[j] for j in earlier if keys[j] == keys[row]]
        row_prior = mean([targets[j] for j in earlier]) if prior is None else prior
        encoded.append(smoothed(own, row_prior, smoothing))
    return encoded


def oracle_apply(train: pd.DataFrame, test: pd.DataFrame, *, column: str, target: str,
                 smoothing: float = 0.0, prior: float | None = None) -> list[float]:
    keys = [category(v) for v in train[column]]
    targets = [float(v) for v in train[target]]
    default = mean(targets) if prior is None else prior
    return [smoothed([y for k, y in zip(keys, targets) if k == category(value)], default, smoothing)
            for value in test[column]]


def assert_encoding(got: pd.Series, expected: list[float], context: str = "") -> None:
    np.testing.assert_allclose(got.to_numpy(dtype=float), expected, rtol=1e-12, atol=1e-12,
                               equal_nan=True, err_msg=context)


@settings(max_examples=15)
@given(train_calls())
def test_encode_train_matches_a_plain_loop(call):
    """On random frames (ties in time, missing categories, unsorted rows) every encoding equals
    the plain loop's, and the Series keeps the index, name and dtype the contract states."""
    (df,), kwargs = call
    got = encode_train(df, **kwargs)
    assert isinstance(got, pd.Series) and got.dtype == np.float64 and got.name == f"{COLUMN}_encoded"
    pd.testing.assert_index_equal(got.index, df.index)
    assert_encoding(got, oracle_train(df, **kwargs), f"{df.to_dict('list')} {kwargs}")


@settings(max_examples=12)
@given(apply_calls())
def test_encode_apply_matches_a_plain_loop(call):
    """Test rows: statistics over all of train; unseen categories get the prior."""
    (train, test), kwargs = call
    got = encode_apply(train, test, **kwargs)
    assert isinstance(got, pd.Series) and got.dtype == np.float64 and got.name == f"{COLUMN}_encoded"
    pd.testing.assert_index_equal(got.index, test.index)
    assert_encoding(got, oracle_apply(train, test, **kwargs), f"{train.to_dict('list')} {test} {kwargs}")


@settings(max_examples=12)
@given(st.data())
def test_targets_at_or_after_a_time_never_change_encodings_up_to_it(data):
    """No leakage: rewriting every target at or after time t changes no encoding at or before t."""
    df = data.draw(frames(min_rows=1))
    kwargs = {"column": COLUMN, "target": TARGET, "time": TIME, **data.draw(encoding_kwargs())}
    cutoff = data.draw(st.sampled_from(sorted(df[TIME])))
    later = df[TIME] >= cutoff
    rewritten = df.copy()
    rewritten.loc[later, TARGET] = 1000.0 + 7.0 * np.arange(later.sum())
    known = (df[TIME] <= cutoff).to_numpy()
    before = encode_train(df, **kwargs)[known]
    after = encode_train(rewritten, **kwargs)[known]
    pd.testing.assert_series_equal(after, before)


@settings(max_examples=8)
@given(frames(), encoding_kwargs(), st.randoms(use_true_random=False))
def test_row_order_does_not_change_any_rows_encoding(df, kwargs, random):
    """Shuffling the rows shuffles the encodings with them: each row keeps its own value."""
    kwargs = {"column": COLUMN, "target": TARGET, "time": TIME, **kwargs}
    order = random.sample(range(len(df)), len(df))
    expected = encode_train(df, **kwargs)
    shuffled = encode_train(df.iloc[order], **kwargs)
    pd.testing.assert_series_equal(shuffled, expected.iloc[order])


def test_matches_the_plain_loop_on_seeded_random_frames():
    """A fixed sweep of 10 larger frames (up to 30 rows, 4 categories, heavy ties) equals the loop."""
    rng = np.random.default_rng(11)
    for _ in range(10):
        rows = int(rng.integers(5, 31))
        df = pd.DataFrame({
            "k": rng.choice(np.array(["a", "b", "c", None], dtype=object), rows),
            "t": rng.integers(0, 6, rows),
            "y": rng.integers(0, 2, rows).astype(float),
        }, index=rng.permutation(rows) + 50)
        kwargs = {"smoothing": float(rng.choice([0.0, 2.0])), "prior": [None, 0.3][int(rng.integers(0, 2))]}
        got = encode_train(df, column="k", target="y", time="t", **kwargs)
        assert_encoding(got, oracle_train(df, column="k", target="y", time="t", **kwargs), str(kwargs))
        test = df.sample(frac=0.5, random_state=1)[["k"]]
        got = encode_apply(df, test, column="k", target="y", **kwargs)
        assert_encoding(got, oracle_apply(df, test, column="k", target="y", **kwargs), str(kwargs))


def test_datetime_and_tz_aware_times():
    """Datetime times, naive or tz-aware, order rows like numbers do."""
    days = pd.to_datetime(["2024-01-03", "2024-01-01", "2024-01-02", "2024-01-02"])
    for times in (days, days.tz_localize("Europe/Paris")):
        df = pd.DataFrame({"k": ["a", "a", "a", "b"], "t": times, "y": [1.0, 2.0, 4.0, 8.0]})
        assert_encoding(encode_train(df, column="k", target="y", time="t"), [3.0, NAN, 2.0, 2.0])


def test_float_times_and_a_prior_of_zero():
    """Float times compare as numbers; prior=0.0 is a given prior, not 'no prior'."""
    df = pd.DataFrame({"k": ["a", "b", "a"], "t": [0.5, 0.25, 0.75], "y": [3.0, 5.0, 7.0]})
    assert_encoding(encode_train(df, column="k", target="y", time="t", prior=0.0), [0.0, 0.0, 3.0])
    assert_encoding(encode_train(df, column="k", target="y", time="t", smoothing=1, prior=0.0),
                    [0.0, 0.0, 1.5])


def test_categorical_and_integer_categories():
    """Categories may be a pandas categorical (unused levels, missing values) or integers."""
    codes = pd.Categorical(["x", None, "x", None], categories=["w", "x"])
    for column in (codes, [7, None, 7, None]):
        df = pd.DataFrame({"k": column, "t": [1, 2, 3, 4], "y": [1.0, 2.0, 3.0, 4.0]})
        assert_encoding(encode_train(df, column="k", target="y", time="t", prior=9.0), [9.0, 9.0, 1.0, 2.0])
        got = encode_apply(df, df.iloc[[3, 0]], column="k", target="y")
        assert_encoding(got, [3.0, 2.0])


def test_integer_bool_and_nullable_targets_are_numeric():
    """Targets may be ints, bools or nullable ints without <NA>; the encodings are floats."""
    base = {"k": ["a", "a", "a"], "t": [1, 2, 3]}
    for targets in ([1, 0, 1], [True, False, True], pd.array([1, 0, 1], dtype="Int64")):
        df = pd.DataFrame({**base, "y": targets})
        got = encode_train(df, column="k", target="y", time="t")
        assert got.dtype == np.float64
        assert_encoding(got, [NAN, 1.0, 0.5])
        assert_encoding(encode_apply(df, df, column="k", target="y"), [2 / 3] * 3)


def test_index_name_and_repeated_labels_are_kept():
    """The index comes back as it was: its name, and repeated labels in their places."""
    df = pd.DataFrame({"k": ["a", "a", "a"], "t": [2, 1, 3], "y": [1.0, 3.0, 5.0]},
                      index=pd.Index([4, 4, 2], name="row"))
    got = encode_train(df, column="k", target="y", time="t")
    pd.testing.assert_index_equal(got.index, df.index)
    assert_encoding(got, [3.0, NAN, 2.0])
    applied = encode_apply(df, df, column="k", target="y")
    pd.testing.assert_index_equal(applied.index, df.index)


def test_empty_frames_give_empty_float_series():
    """Zero rows are valid: encode_train of an empty frame, encode_apply with either frame empty."""
    empty = pd.DataFrame({"k": pd.Series([], dtype=object), "t": pd.Series([], dtype=float),
                          "y": pd.Series([], dtype=float)})
    got = encode_train(empty, column="k", target="y", time="t")
    assert len(got) == 0 and got.dtype == np.float64 and got.name == "k_encoded"
    applied = encode_apply(empty, pd.DataFrame({"k": ["a"]}, index=[3]), column="k", target="y")
    assert list(applied.index) == [3] and math.isnan(applied.iloc[0])
    assert_encoding(encode_apply(empty, pd.DataFrame({"k": ["a"]}), column="k", target="y", prior=0.5), [0.5])
    none = encode_apply(pd.DataFrame({"k": ["a"], "y": [1.0]}), empty[["k"]], column="k", target="y")
    assert len(none) == 0 and none.dtype == np.float64


def test_apply_default_prior_is_the_train_mean():
    """encode_apply's default prior is the mean of all train targets, smoothing included."""
    train = pd.DataFrame({"k": ["a", "b", "b", "b"], "y": [4.0, 0.0, 0.0, 0.0]})
    got = encode_apply(train, pd.DataFrame({"k": ["a", "c"]}), column="k", target="y", smoothing=2)
    assert_encoding(got, [(4.0 + 2.0) / 3, 1.0])


def sample_frame() -> pd.DataFrame:
    return pd.DataFrame({"k": ["a", "b", "a"], "t": [1, 1, 2], "y": [1.0, 0.0, 1.0]})


BASE_CALL = {"column": "k", "target": "y", "time": "t"}


def test_the_base_call_of_the_error_cases_is_valid():
    """The call every error case below breaks in one way is itself accepted."""
    assert_encoding(encode_train(sample_frame(), **BASE_CALL, smoothing=0.0, prior=0.5), [0.5, 0.5, 1.0])
    assert_encoding(encode_apply(sample_frame(), sample_frame()[["k"]], column="k", target="y"),
                    [1.0, 0.0, 1.0])


BAD_TRAIN_CALLS = {
    "no column": (sample_frame(), {"column": "city"}, KeyError),
    "no target": (sample_frame(), {"target": "sold"}, KeyError),
    "no time": (sample_frame(), {"time": "day"}, KeyError),
    "text target": (sample_frame().assign(y=["1", "0", "1"]), {}, ValueError),
    "NaN target": (sample_frame().assign(y=[1.0, NAN, 0.0]), {}, ValueError),
    "NA target": (sample_frame().assign(y=pd.array([1, None, 0], dtype="Int64")), {}, ValueError),
    "text time": (sample_frame().assign(t=["1", "1", "2"]), {}, ValueError),
    "NaN time": (sample_frame().assign(t=[1.0, NAN, 2.0]), {}, ValueError),
    "NaT time": (sample_frame().assign(t=pd.to_datetime(["2024-01-01", None, "2024-01-02"])), {}, ValueError),
    "negative smoothing": (sample_frame(), {"smoothing": -0.5}, ValueError),
    "infinite smoothing": (sample_frame(), {"smoothing": math.inf}, ValueError),
    "NaN smoothing": (sample_frame(), {"smoothing": NAN}, ValueError),
    "NaN prior": (sample_frame(), {"prior": NAN}, ValueError),
    "infinite prior": (sample_frame(), {"prior": -math.inf}, ValueError),
}


@pytest.mark.parametrize(("df", "kwargs", "error"), list(BAD_TRAIN_CALLS.values()), ids=list(BAD_TRAIN_CALLS))
def test_bad_train_calls_are_refused(df, kwargs, error):
    """Each impossible input problem.md names raises its documented error (any wording)."""
    with pytest.raises(error):
        encode_train(df, **{**BASE_CALL, **kwargs})


BAD_APPLY_CALLS = {
    "no column in train": (sample_frame().drop(columns="k"), sample_frame(), {}, KeyError),
    "no target in train": (sample_frame(), sample_frame(), {"target": "sold"}, KeyError),
    "no column in test": (sample_frame(), sample_frame().drop(columns="k"), {}, KeyError),
    "text target": (sample_frame().assign(y=["1", "0", "1"]), sample_frame(), {}, ValueError),
    "NaN target": (sample_frame().assign(y=[1.0, NAN, 0.0]), sample_frame(), {}, ValueError),
    "negative smoothing": (sample_frame(), sample_frame(), {"smoothing": -1}, ValueError),
    "infinite smoothing": (sample_frame(), sample_frame(), {"smoothing": math.inf}, ValueError),
    "NaN prior": (sample_frame(), sample_frame(), {"prior": NAN}, ValueError),
}


@pytest.mark.parametrize(("train", "test", "kwargs", "error"), list(BAD_APPLY_CALLS.values()),
                         ids=list(BAD_APPLY_CALLS))
def test_bad_apply_calls_are_refused(train, test, kwargs, error):
    """encode_apply checks train's column and target, test's column, smoothing and prior."""
    with pytest.raises(error):
        encode_apply(train, test, **{"column": "k", "target": "y", **kwargs})


# encode_apply refuses what encode_train refuses, case for case: a check written once for
# encode_train and again, shorter, for encode_apply is a slip these cases catch.
MORE_BAD_APPLY_CALLS = {
    "NA target": (sample_frame().assign(y=pd.array([1, None, 0], dtype="Int64")), {}),
    "NaN smoothing": (sample_frame(), {"smoothing": NAN}),
    "minus infinite prior": (sample_frame(), {"prior": -math.inf}),
    "infinite prior": (sample_frame(), {"prior": math.inf}),
}


@pytest.mark.parametrize(("train", "kwargs"), list(MORE_BAD_APPLY_CALLS.values()),
                         ids=list(MORE_BAD_APPLY_CALLS))
def test_encode_apply_refuses_a_missing_target_and_non_finite_settings(train, kwargs):
    """A pd.NA target, a NaN smoothing or an infinite prior is a ValueError in encode_apply too."""
    with pytest.raises(ValueError):
        encode_apply(train, sample_frame()[["k"]], **{"column": "k", "target": "y", **kwargs})
