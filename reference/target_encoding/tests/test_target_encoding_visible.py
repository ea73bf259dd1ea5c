"""Example tests for `encode_train` and `encode_apply`: the behaviour `problem.md` states, case by case."""
import math

import numpy as np
import pandas as pd
import pytest

from reference.target_encoding import encode_apply, encode_train

NAN = math.nan


def frame(categories, times, targets, index=None) -> pd.DataFrame:
    return pd.DataFrame({"k": categories, "t": times, "y": targets}, index=index)


def assert_encoding(got: pd.Series, expected: list[float]) -> None:
    values = got.to_numpy(dtype=float)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12, equal_nan=True,
                               err_msg=f"got {list(values)}")


def example() -> pd.DataFrame:
    return pd.DataFrame({
        "city": ["a", "b", "a", None, "a", "b"],
        "day": [3, 1, 1, 2, 2, 3],
        "sold": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
    })


def test_example_from_the_problem_statement():
    """The worked example in problem.md gives the table shown there."""
    got = encode_train(example(), column="city", target="sold", time="day")
    assert_encoding(got, [0.5, NAN, NAN, 0.0, 0.0, 0.0])


def test_example_with_smoothing_and_a_given_prior():
    """smoothing=2, prior=0.5: the first row is (1 + 1) / 4 and the fifth (0 + 1) / 3."""
    got = encode_train(example(), column="city", target="sold", time="day", smoothing=2, prior=0.5)
    assert_encoding(got, [0.5, 0.5, 0.5, 0.5, 1 / 3, 1 / 3])


def test_example_applied_to_new_rows():
    """City a has targets 1, 0, 1 in the training frame; the unseen z gets the mean of all six."""
    got = encode_apply(example(), pd.DataFrame({"city": ["a", "z"]}), column="city", target="sold")
    assert_encoding(got, [2 / 3, 0.5])


def test_a_row_never_sees_its_own_target_or_a_later_one():
    """One category over four days: each row is the mean of the days before it, nothing else."""
    got = encode_train(frame(["a"] * 4, [1, 2, 3, 4], [8.0, 4.0, 0.0, 100.0]), column="k", target="y", time="t")
    assert_encoding(got, [NAN, 8.0, 6.0, 4.0])


def test_rows_at_the_same_time_do_not_see_each_other():
    """Two rows of one category share day 2: each sees day 1 only, not the other one."""
    got = encode_train(frame(["a"] * 4, [1, 2, 2, 3], [1.0, 10.0, 20.0, 3.0]), column="k", target="y", time="t")
    assert_encoding(got, [NAN, 1.0, 1.0, 31.0 / 3])


def test_each_category_is_encoded_from_its_own_rows():
    """Two categories interleaved in time: a's encoding never mixes in b's targets."""
    df = frame(["a", "b", "a", "b", "a"], [1, 2, 3, 4, 5], [1.0, 100.0, 3.0, 200.0, 5.0])
    got = encode_train(df, column="k", target="y", time="t", prior=0.0)
    assert_encoding(got, [0.0, 0.0, 1.0, 100.0, 2.0])


def test_smoothing_shrinks_towards_the_prior():
    """(sum + prior * smoothing) / (count + smoothing): day 3 has sum 6 over 2 rows."""
    df = frame(["a", "a", "a"], [1, 2, 3], [2.0, 4.0, 9.0])
    got = encode_train(df, column="k", target="y", time="t", smoothing=3, prior=1.0)
    assert_encoding(got, [1.0, (2 + 3) / 4, (6 + 3) / 5])


def test_the_default_prior_is_the_mean_of_all_earlier_rows():
    """A category seen for the first time gets the mean target of every earlier row, any category."""
    df = frame(["a", "b", "c", "c"], [1, 2, 3, 3], [2.0, 6.0, 40.0, 50.0])
    got = encode_train(df, column="k", target="y", time="t")
    assert_encoding(got, [NAN, 2.0, 4.0, 4.0])


def test_the_default_prior_also_smooths():
    """With smoothing, a category's mean is pulled to the mean of all earlier rows."""
    df = frame(["a", "b", "a"], [1, 2, 3], [2.0, 6.0, 10.0])
    got = encode_train(df, column="k", target="y", time="t", smoothing=1)
    assert_encoding(got, [NAN, 2.0, (2.0 + 4.0) / 2])


def test_missing_categories_are_one_category_of_their_own():
    """None, NaN and pd.NA are the same missing category, encoded from each other only."""
    df = frame([None, "a", np.nan, pd.NA], [1, 2, 3, 4], [4.0, 100.0, 8.0, 0.0])
    got = encode_train(df, column="k", target="y", time="t", prior=-1.0)
    assert_encoding(got, [-1.0, -1.0, 4.0, 6.0])


def test_unsorted_rows_keep_their_index_and_order():
    """Rows arrive out of time order with their own labels; each keeps its place and label."""
    df = frame(["a", "a", "a"], [3, 1, 2], [5.0, 1.0, 3.0], index=[30, 10, 20])
    got = encode_train(df, column="k", target="y", time="t")
    assert list(got.index) == [30, 10, 20], f"index changed: {list(got.index)}"
    assert_encoding(got, [2.0, NAN, 1.0])


def test_output_is_a_float_series_named_after_the_column():
    """A float64 Series named f"{column}_encoded", one value per input row."""
    got = encode_train(frame(["a", "b"], [1, 2], [1, 0]), column="k", target="y", time="t")
    assert isinstance(got, pd.Series) and got.dtype == np.float64, type(got)
    assert got.name == "k_encoded", got.name


def test_input_frame_is_not_modified():
    """The caller's frames keep their columns and values."""
    df = frame(["a", None, "a"], [2, 1, 1], [1.0, 2.0, 3.0], index=[5, 6, 7])
    test = pd.DataFrame({"k": ["a", "q"]})
    before, test_before = df.copy(), test.copy()
    encode_train(df, column="k", target="y", time="t", smoothing=1)
    encode_apply(df, test, column="k", target="y", smoothing=1)
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_frame_equal(test, test_before)


def test_apply_uses_every_training_row_and_smooths():
    """encode_apply: a category's sum and count over all of train, smoothed towards the train mean."""
    train = frame(["a", "a", "b"], [1, 5, 3], [1.0, 3.0, 8.0])
    test = pd.DataFrame({"k": ["b", "a", "a"]}, index=[9, 8, 7])
    got = encode_apply(train, test, column="k", target="y", smoothing=1)
    assert list(got.index) == [9, 8, 7]
    assert_encoding(got, [(8 + 4) / 2, (4 + 4) / 3, (4 + 4) / 3])


def test_apply_gives_unseen_and_missing_categories_their_due():
    """An unseen category gets the prior; a missing one is encoded from train's missing rows."""
    train = frame(["a", None, np.nan], [1, 2, 3], [1.0, 4.0, 6.0])
    got = encode_apply(train, pd.DataFrame({"k": ["new", None, np.nan]}), column="k", target="y", prior=0.0)
    assert_encoding(got, [0.0, 5.0, 5.0])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"column": "city"}, KeyError),
        ({"target": "sold"}, KeyError),
        ({"time": "day"}, KeyError),
        ({"smoothing": -1.0}, ValueError),
        ({"prior": math.nan}, ValueError),
    ],
    ids=["no column", "no target", "no time", "negative smoothing", "NaN prior"],
)
def test_bad_arguments_are_refused(kwargs, error):
    """A missing column raises KeyError; a negative smoothing or a NaN prior raise ValueError."""
    call = {"column": "k", "target": "y", "time": "t", **kwargs}
    with pytest.raises(error):
        encode_train(frame(["a", "b"], [1, 2], [1.0, 0.0]), **call)


def test_a_missing_or_text_target_is_refused():
    """Targets must be numbers, all present."""
    with pytest.raises(ValueError):
        encode_train(frame(["a", "b"], [1, 2], [1.0, NAN]), column="k", target="y", time="t")
    with pytest.raises(ValueError):
        encode_train(frame(["a", "b"], [1, 2], ["yes", "no"]), column="k", target="y", time="t")
