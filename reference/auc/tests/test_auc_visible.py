"""Worked examples of the ROC contract in `problem.md`: the curve, ties, weights, inputs, errors."""

import numpy as np
import pytest

from reference.auc import roc_auc_score, roc_curve


def assert_curve(got, fpr, tpr, thresholds):
    """Compare a `(fpr, tpr, thresholds)` triple with the expected points, one array at a time."""
    for name, actual, expected in zip(("fpr", "tpr", "thresholds"), got, (fpr, tpr, thresholds)):
        assert np.shape(actual) == np.shape(expected), (
            f"{name} has {np.size(actual)} points, expected {np.size(expected)}: {actual}"
        )
        np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-12, err_msg=f"wrong {name}")


def test_worked_example_from_the_problem_statement():
    """The prompt's example: a positive/negative tie at 0.4 is one diagonal step."""
    got = roc_curve([0, 0, 1, 1, 0], [0.1, 0.4, 0.4, 0.8, 0.9])
    assert_curve(got, [0, 1 / 3, 1 / 3, 2 / 3, 1], [0, 0, 0.5, 1, 1], [np.inf, 0.9, 0.8, 0.4, 0.1])


def test_worked_example_auc_counts_the_tie_as_half_a_pair():
    """3.5 of the 6 positive/negative pairs are ordered right (the tie counts 1/2): AUC 7/12."""
    got = roc_auc_score([0, 0, 1, 1, 0], [0.1, 0.4, 0.4, 0.8, 0.9])
    assert got == pytest.approx(7 / 12, abs=1e-12), f"AUC {got}, expected 7/12"


def test_perfect_ranking_scores_one():
    """Every positive above every negative gives AUC 1."""
    got = roc_auc_score([0, 1, 0, 1, 1], [0.1, 0.8, 0.3, 0.7, 0.9])
    assert got == pytest.approx(1.0, abs=1e-12), f"AUC {got}, expected 1.0"


def test_reversed_ranking_scores_zero():
    """Every positive below every negative gives AUC 0."""
    got = roc_auc_score([0, 1, 0, 1, 1], [0.9, 0.2, 0.8, 0.1, 0.3])
    assert got == pytest.approx(0.0, abs=1e-12), f"AUC {got}, expected 0.0"


def test_all_scores_tied_is_a_single_diagonal_step():
    """One distinct score: the curve jumps straight from (0, 0) to (1, 1) and the AUC is 0.5."""
    y_true, y_score = [1, 0, 0, 1, 0], [0.5] * 5
    assert_curve(roc_curve(y_true, y_score), [0, 1], [0, 1], [np.inf, 0.5])
    got = roc_auc_score(y_true, y_score)
    assert got == pytest.approx(0.5, abs=1e-12), f"AUC {got}, expected 0.5 (area under diagonal)"


def test_ties_across_classes_make_diagonal_segments():
    """Two tie groups that mix classes: the area uses trapezoids, not rectangles (AUC 7/18)."""
    y_true, y_score = [1, 0, 1, 0, 0, 1], [3, 3, 2, 2, 2, 1]
    # Of the 9 positive/negative pairs, 2 are ordered right and 3 are ties worth 1/2 each.
    expected = (2 + 0.5 * 3) / 9
    assert_curve(
        roc_curve(y_true, y_score), [0, 1 / 3, 1, 1], [0, 1 / 3, 2 / 3, 1], [np.inf, 3, 2, 1]
    )
    got = roc_auc_score(y_true, y_score)
    assert got == pytest.approx(expected, abs=1e-12), f"AUC {got}, expected {expected}"


def test_each_rate_is_normalised_by_its_own_class():
    """One positive and three negatives: TPR moves in steps of 1, FPR in steps of 1/3."""
    got = roc_curve([0, 0, 1, 0], [0.4, 0.3, 0.35, 0.1])
    assert_curve(got, [0, 1 / 3, 1 / 3, 2 / 3, 1], [0, 0, 1, 1, 1], [np.inf, 0.4, 0.35, 0.3, 0.1])
    auc = roc_auc_score([0, 0, 1, 0], [0.4, 0.3, 0.35, 0.1])
    assert auc == pytest.approx(2 / 3, abs=1e-12), f"AUC {auc}, expected 2/3"


def test_weight_two_counts_like_two_copies():
    """A sample of weight 2 moves the curve exactly as two copies of it with weight 1."""
    weighted = roc_curve([1, 0, 0, 1], [0.9, 0.6, 0.3, 0.2], sample_weight=[2, 1, 0.5, 1])
    copied = roc_curve(
        [1, 1, 0, 0, 1], [0.9, 0.9, 0.6, 0.3, 0.2], sample_weight=[1, 1, 1, 0.5, 1]
    )
    expected = [0, 0, 2 / 3, 1, 1], [0, 2 / 3, 2 / 3, 2 / 3, 1], [np.inf, 0.9, 0.6, 0.3, 0.2]
    assert_curve(weighted, *expected)
    assert_curve(copied, *expected)


def test_weighted_auc():
    """Each pair counts w_pos * w_neg, whatever the input order: (2*1 + 2*0.5) / (3 * 1.5)."""
    got = roc_auc_score([0, 1, 1, 0], [0.3, 0.9, 0.2, 0.6], sample_weight=[0.5, 2, 1, 1])
    assert got == pytest.approx(2 / 3, abs=1e-12), f"AUC {got}, expected 2/3"


def test_zero_weight_sample_creates_no_point():
    """A weight-0 sample is ignored: no threshold at its score and no effect on the rates."""
    got = roc_curve([0, 1, 0, 1], [0.2, 0.5, 0.7, 0.9], sample_weight=[1, 1, 0, 1])
    assert_curve(got, [0, 0, 0, 1], [0, 0.5, 1, 1], [np.inf, 0.9, 0.5, 0.2])


def test_class_present_only_with_zero_weight_counts_as_absent():
    """If every negative has weight 0 only positives remain, and the AUC is undefined."""
    with pytest.raises(ValueError):
        roc_auc_score([0, 1, 0, 1], [0.2, 0.5, 0.7, 0.9], sample_weight=[0, 1, 0, 1])


def test_lists_arrays_and_columns_are_accepted():
    """An `(n, 1)` column or a list is treated exactly like the 1-D array."""
    y_true, y_score = np.array([0, 1, 1, 0]), np.array([0.3, 0.6, 0.2, 0.1])
    expected = roc_curve(y_true, y_score)
    assert_curve(roc_curve(y_true.reshape(-1, 1), y_score.reshape(-1, 1)), *expected)
    assert_curve(roc_curve(y_true.tolist(), y_score.tolist()), *expected)
    got = roc_auc_score(y_true.reshape(-1, 1), y_score.tolist())
    assert got == pytest.approx(0.75, abs=1e-12), f"AUC {got}, expected 0.75"


def test_boolean_labels_treat_true_as_positive():
    """`True` is the positive class, exactly as label 1."""
    got = roc_auc_score([False, True, True, False], [0.3, 0.6, 0.2, 0.1])
    assert got == pytest.approx(0.75, abs=1e-12), f"AUC {got}, expected 0.75"


def test_auc_is_a_python_float():
    """The score is a plain Python float, not a numpy scalar or an array."""
    got = roc_auc_score([0, 1], [0.2, 0.4])
    assert type(got) is float, f"got {type(got).__name__}"


@pytest.mark.parametrize(
    ("y_true", "y_score", "kwargs"),
    [
        ([1, 1, 1], [0.1, 0.2, 0.3], {}),
        ([0, 1, 1], [0.1, 0.2], {}),
        ([], [], {}),
        ([0, 1], [0.1, np.nan], {}),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}),
        ([0, 1], [[0.1, 0.9], [0.2, 0.8]], {}),
    ],
    ids=["one-class", "length-mismatch", "empty", "nan-score", "label-2", "negative-weight",
         "two-columns"],
)
def test_bad_input_raises_value_error(y_true, y_score, kwargs):
    """Each kind of invalid input is refused with a ValueError (the message is yours to word)."""
    with pytest.raises(ValueError):
        roc_curve(y_true, y_score, **kwargs)
