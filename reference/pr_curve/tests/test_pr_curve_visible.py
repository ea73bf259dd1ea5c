"""Worked examples of the precision-recall contract in `problem.md`: the curve, ties, weights, AP, errors."""

import numpy as np
import pytest

from reference.pr_curve import average_precision_score, precision_recall_curve


def assert_curve(got, precision, recall, thresholds):
    """Compare a `(precision, recall, thresholds)` triple with the expected points."""
    expected = (precision, recall, thresholds)
    for name, actual, wanted in zip(("precision", "recall", "thresholds"), got, expected):
        assert np.shape(actual) == np.shape(wanted), (
            f"{name} has {np.size(actual)} points, expected {np.size(wanted)}: {actual}"
        )
        np.testing.assert_allclose(actual, wanted, rtol=0, atol=1e-12, err_msg=f"wrong {name}")


def test_worked_example_from_the_problem_statement():
    """The prompt's example: thresholds increase, the 0.4 tie is one point, then (P, R) = (1, 0)."""
    got = precision_recall_curve([0, 0, 1, 1, 0], [0.1, 0.4, 0.4, 0.8, 0.9])
    assert_curve(got, [0.4, 0.5, 0.5, 0, 1], [1, 1, 0.5, 0, 0], [0.1, 0.4, 0.8, 0.9])


def test_worked_example_average_precision():
    """Recall rises 0.5 at precision 0.5 (threshold 0.8), then 0.5 at precision 0.5 (0.4)."""
    got = average_precision_score([0, 0, 1, 1, 0], [0.1, 0.4, 0.4, 0.8, 0.9])
    assert got == pytest.approx(0.5, abs=1e-12), f"AP {got}, expected 0.5"


def test_perfect_ranking_has_average_precision_one():
    """Every positive above every negative: precision is 1 wherever recall rises."""
    got = average_precision_score([0, 1, 0, 1, 1], [0.1, 0.8, 0.3, 0.7, 0.9])
    assert got == pytest.approx(1.0, abs=1e-12), f"AP {got}, expected 1.0"


def test_precision_is_the_share_of_positives_among_those_called_positive():
    """One positive among four: its threshold calls two samples positive, precision 1/2."""
    got = precision_recall_curve([0, 0, 1, 0], [0.4, 0.3, 0.35, 0.1])
    assert_curve(got, [0.25, 1 / 3, 0.5, 0, 1], [1, 1, 1, 0, 0], [0.1, 0.3, 0.35, 0.4])
    ap = average_precision_score([0, 0, 1, 0], [0.4, 0.3, 0.35, 0.1])
    assert ap == pytest.approx(0.5, abs=1e-12), f"AP {ap}, expected 0.5"


def test_average_precision_is_a_step_sum_not_a_trapezoid():
    """Recall 0 -> 0.5 at precision 1, then 0.5 -> 1 at precision 2/3: AP = 0.5 + 1/3; the
    trapezoidal area over the same points would be 0.5 + 0.5 * (1/2 + 2/3) / 2."""
    got = average_precision_score([1, 0, 1, 0], [0.9, 0.5, 0.4, 0.1])
    assert got == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-12), f"AP {got}, expected 5/6"


def test_all_scores_tied_is_a_single_point():
    """One distinct score: one threshold, one point at recall 1, then the final (1, 0)."""
    got = precision_recall_curve([1, 0, 0, 1, 0], [0.5] * 5)
    assert_curve(got, [0.4, 1], [1, 0], [0.5])
    ap = average_precision_score([1, 0, 0, 1, 0], [0.5] * 5)
    assert ap == pytest.approx(0.4, abs=1e-12), f"AP {ap}, expected 0.4"


def test_weight_two_counts_like_two_copies():
    """A sample of weight 2 moves the curve exactly as two copies of it with weight 1."""
    weighted = precision_recall_curve([1, 0, 0, 1], [0.9, 0.6, 0.3, 0.2], sample_weight=[2, 1, 0.5, 1])
    copied = precision_recall_curve(
        [1, 1, 0, 0, 1], [0.9, 0.9, 0.6, 0.3, 0.2], sample_weight=[1, 1, 1, 0.5, 1]
    )
    expected = [3 / 4.5, 2 / 3.5, 2 / 3, 1, 1], [1, 2 / 3, 2 / 3, 2 / 3, 0], [0.2, 0.3, 0.6, 0.9]
    assert_curve(weighted, *expected)
    assert_curve(copied, *expected)


def test_zero_weight_sample_creates_no_point():
    """A weight-0 sample is ignored: no threshold at its score and no effect on the counts."""
    got = precision_recall_curve([0, 1, 0, 1], [0.2, 0.5, 0.7, 0.9], sample_weight=[1, 1, 0, 1])
    assert_curve(got, [2 / 3, 1, 1, 1], [1, 1, 0.5, 0], [0.2, 0.5, 0.9])


def test_no_positives_give_recall_one_and_average_precision_zero():
    """Recall is 0/0 without positives: scikit-learn's convention makes it 1, so AP is 0."""
    got = precision_recall_curve([0, 0, 0], [0.1, 0.4, 0.4])
    assert_curve(got, [0, 0, 1], [1, 1, 0], [0.1, 0.4])
    assert average_precision_score([0, 0, 0], [0.1, 0.4, 0.4]) == 0.0


def test_only_positives_give_precision_one():
    """Only positives: every point has precision 1, so AP is 1."""
    got = precision_recall_curve([1, 1, 1], [0.3, 0.1, 0.2])
    assert_curve(got, [1, 1, 1, 1], [1, 2 / 3, 1 / 3, 0], [0.1, 0.2, 0.3])
    assert average_precision_score([1, 1, 1], [0.3, 0.1, 0.2]) == pytest.approx(1.0, abs=1e-12)


def test_lists_arrays_and_columns_are_accepted():
    """An `(n, 1)` column or a list is treated exactly like the 1-D array."""
    y_true, y_score = np.array([0, 1, 1, 0]), np.array([0.3, 0.6, 0.2, 0.1])
    expected = precision_recall_curve(y_true, y_score)
    assert_curve(precision_recall_curve(y_true.reshape(-1, 1), y_score.reshape(-1, 1)), *expected)
    assert_curve(precision_recall_curve(y_true.tolist(), y_score.tolist()), *expected)
    got = average_precision_score(y_true.reshape(-1, 1), y_score.tolist())
    assert got == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-12), f"AP {got}, expected 5/6"


def test_boolean_labels_treat_true_as_positive():
    """`True` is the positive class, exactly as label 1."""
    got = average_precision_score([False, True, True, False], [0.3, 0.6, 0.2, 0.1])
    assert got == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-12), f"AP {got}, expected 5/6"


def test_average_precision_is_a_python_float():
    """The score is a plain Python float, not a numpy scalar or an array."""
    got = average_precision_score([0, 1], [0.2, 0.4])
    assert type(got) is float, f"got {type(got).__name__}"


@pytest.mark.parametrize(
    ("y_true", "y_score", "kwargs"),
    [
        ([0, 1, 1], [0.1, 0.2], {}),
        ([], [], {}),
        ([0, 1], [0.1, np.nan], {}),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}),
        ([0, 1], [0.1, 0.2], {"sample_weight": [0, 0]}),
        ([0, 1], [[0.1, 0.9], [0.2, 0.8]], {}),
    ],
    ids=["length-mismatch", "empty", "nan-score", "label-2", "negative-weight", "all-weights-zero",
         "two-columns"],
)
def test_bad_input_raises_value_error(y_true, y_score, kwargs):
    """Each kind of invalid input is refused with a ValueError (the message is yours to word)."""
    with pytest.raises(ValueError):
        precision_recall_curve(y_true, y_score, **kwargs)
