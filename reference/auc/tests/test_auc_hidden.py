"""Held-back tests of `reference.auc`: oracles (sklearn, brute force), invariants, edge cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from reference.auc import roc_auc_score, roc_curve
from reference.auc.strategies import binary_problems, call_strategies

pytestmark = pytest.mark.hidden

TOLERANCE = 1e-12


def assert_same_curve(got, expected, context=""):
    """Two `(fpr, tpr, thresholds)` triples agree point by point."""
    for name, actual, wanted in zip(("fpr", "tpr", "thresholds"), got, expected):
        assert actual.shape == np.shape(wanted), f"{name}: {actual} vs {wanted} {context}"
        np.testing.assert_allclose(actual, wanted, rtol=0, atol=TOLERANCE, err_msg=name + context)


def brute_force_curve(y_true, y_score, sample_weight):
    """The curve by definition: for each distinct weighted score, the weighted rates at or above."""
    weight = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight)
    counted = weight > 0
    positive, negative = counted & (y_true == 1), counted & (y_true == 0)
    thresholds = np.unique(y_score[counted])[::-1]
    above = y_score[None, :] >= thresholds[:, None]
    tpr = (above * (weight * positive)).sum(axis=1) / weight[positive].sum()
    fpr = (above * (weight * negative)).sum(axis=1) / weight[negative].sum()
    return np.r_[0.0, fpr], np.r_[0.0, tpr], np.r_[np.inf, thresholds]


def pairwise_auc(y_true, y_score, sample_weight):
    """AUC as the weighted share of positive/negative pairs ordered right, ties counting half."""
    weight = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight)
    pos, neg = y_true == 1, y_true == 0
    pair_weight = weight[pos][:, None] * weight[neg][None, :]
    above = y_score[pos][:, None] > y_score[neg][None, :]
    tied = y_score[pos][:, None] == y_score[neg][None, :]
    return float((pair_weight * (above + 0.5 * tied)).sum() / pair_weight.sum())


def seeded_problem(seed, size=40, positive_share=0.3):
    """A fixed random problem with heavy ties, unbalanced classes and some zero weights."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random(size) < positive_share).astype(int)
    y_score = rng.integers(0, 6, size) * 0.25 - 0.5
    weight = rng.choice([0.0, 0.5, 1.0, 2.5, 4.0], size)
    y_true[:2], weight[:2] = (1, 0), (1.5, 0.75)
    return y_true, y_score, weight


# --- oracles ---------------------------------------------------------------------------------


@given(binary_problems())
def test_curve_and_auc_match_sklearn(problem):
    """Curve and AUC equal sklearn's (no dropped points) within 1e-12, ties and weights included."""
    y_true, y_score, weight = problem
    expected = metrics.roc_curve(y_true, y_score, sample_weight=weight, drop_intermediate=False)
    assert_same_curve(roc_curve(y_true, y_score, sample_weight=weight), expected)
    got = roc_auc_score(y_true, y_score, sample_weight=weight)
    want = metrics.roc_auc_score(y_true, y_score, sample_weight=weight)
    assert abs(got - want) <= TOLERANCE, f"AUC {got}, sklearn {want}"


@settings(max_examples=15)
@given(binary_problems())
def test_curve_and_auc_match_their_definitions(problem):
    """Points are the weighted rates of `score >= t` per distinct score; AUC is Mann-Whitney."""
    y_true, y_score, weight = problem
    curve = roc_curve(y_true, y_score, sample_weight=weight)
    assert_same_curve(curve, brute_force_curve(y_true, y_score, weight))
    for name, values in zip(("fpr", "tpr", "thresholds"), curve):
        assert values.dtype == np.float64, f"{name} is {values.dtype}, not float64"
    got, expected = roc_auc_score(y_true, y_score, sample_weight=weight), pairwise_auc(*problem)
    assert abs(got - expected) <= TOLERANCE, f"AUC {got}, share of ordered pairs {expected}"


@pytest.mark.parametrize("seed", range(4))
def test_seeded_problems_match_sklearn(seed):
    """Larger fixed problems (40 samples, 6 distinct scores, 30% positives) match sklearn."""
    y_true, y_score, weight = seeded_problem(seed)
    for kwargs in ({}, {"sample_weight": weight}):
        expected = metrics.roc_curve(y_true, y_score, drop_intermediate=False, **kwargs)
        assert_same_curve(roc_curve(y_true, y_score, **kwargs), expected, f" seed {seed}")
        got = roc_auc_score(y_true, y_score, **kwargs)
        want = metrics.roc_auc_score(y_true, y_score, **kwargs)
        assert abs(got - want) <= TOLERANCE, f"seed {seed} {kwargs}: AUC {got}, sklearn {want}"


CALLS = call_strategies()  # built once: the flatmap below runs for every example


@settings(max_examples=15)
@given(st.sampled_from(sorted(call_strategies())).flatmap(
    lambda name: st.tuples(st.just(name), CALLS[name])))
def test_every_layout_gives_the_flat_array_answer(call):
    """Lists, 1-D arrays, `(n, 1)` columns and boolean labels all mean the same 1-D input."""
    name, (args, kwargs) = call
    function = {"roc_curve": roc_curve, "roc_auc_score": roc_auc_score}[name]
    flat_args = tuple(np.asarray(arg).ravel() for arg in args)
    flat_kwargs = {key: None if value is None else np.asarray(value, dtype=float).ravel()
                   for key, value in kwargs.items()}
    got, expected = function(*args, **kwargs), function(*flat_args, **flat_kwargs)
    if name == "roc_auc_score":
        assert got == expected, f"AUC {got} for {args}, {kwargs}; {expected} for flat arrays"
    else:
        assert_same_curve(got, expected)


# --- invariants ------------------------------------------------------------------------------


@settings(max_examples=15)
@given(binary_problems())
def test_flipping_labels_or_negating_scores_mirrors_the_curve(problem):
    """Swapping classes swaps TPR and FPR; either that or negated scores give 1 - AUC."""
    y_true, y_score, weight = problem
    fpr, tpr, thresholds = roc_curve(y_true, y_score, sample_weight=weight)
    assert_same_curve(roc_curve(1 - y_true, y_score, sample_weight=weight), (tpr, fpr, thresholds))
    auc = roc_auc_score(y_true, y_score, sample_weight=weight)
    flipped = roc_auc_score(1 - y_true, y_score, sample_weight=weight)
    negated = roc_auc_score(y_true, -y_score, sample_weight=weight)
    assert abs(flipped - (1 - auc)) <= TOLERANCE, f"flipped labels: {flipped}, AUC {auc}"
    assert abs(negated - (1 - auc)) <= TOLERANCE, f"negated scores: {negated}, AUC {auc}"


@settings(max_examples=15)
@given(binary_problems(weighted=True), st.randoms(use_true_random=False),
       st.sampled_from([0.125, 3.0, 1000.0]))
def test_sample_order_and_weight_scale_do_not_matter(problem, random, factor):
    """Shuffling samples or scaling all weights leaves the curve unchanged (rates are shares)."""
    y_true, y_score, weight = problem
    expected = roc_curve(y_true, y_score, sample_weight=weight)
    order = np.array(random.sample(range(len(y_true)), len(y_true)))
    shuffled = roc_curve(y_true[order], y_score[order], sample_weight=weight[order] * factor)
    assert_same_curve(shuffled, expected)


@settings(max_examples=15)
@given(binary_problems(weighted=False), st.lists(st.integers(0, 3), min_size=14, max_size=14))
def test_integer_weights_equal_repeated_samples(problem, counts):
    """Weight k equals k copies of the sample; weight 0 equals removing it."""
    y_true, y_score, _ = problem
    counts = np.array(counts[: len(y_true)])
    counts[y_true.argmax()] = counts[y_true.argmin()] = 1
    repeated = roc_curve(np.repeat(y_true, counts), np.repeat(y_score, counts))
    assert_same_curve(roc_curve(y_true, y_score, sample_weight=counts), repeated)


@settings(max_examples=15)
@given(binary_problems(), st.lists(st.tuples(st.integers(0, 1), st.floats(-10, 10)), max_size=4))
def test_zero_weight_samples_change_nothing(problem, extra):
    """Appending samples of weight 0, at any score, leaves the curve exactly as it was."""
    y_true, y_score, weight = problem
    weight = np.ones(len(y_true)) if weight is None else weight
    more_true = np.r_[y_true, [label for label, _ in extra]].astype(int)
    more_score = np.r_[y_score, [score for _, score in extra]]
    more_weight = np.r_[weight, np.zeros(len(extra))]
    assert_same_curve(roc_curve(more_true, more_score, sample_weight=more_weight),
                      roc_curve(y_true, y_score, sample_weight=weight))


# --- remaining edge cases --------------------------------------------------------------------


def test_smallest_valid_input():
    """One positive above one negative: (0,0), (0,1), (1,1) and AUC 1; the other way round 0."""
    assert_same_curve(roc_curve([1, 0], [2, 1]), ([0, 0, 1], [0, 1, 1], [np.inf, 2, 1]))
    assert roc_auc_score([1, 0], [2, 1]) == 1.0
    assert roc_auc_score([0, 1], [2, 1]) == 0.0


def test_thresholds_are_float_even_for_integer_scores():
    """Integer scores give float64 thresholds holding the same values."""
    fpr, tpr, thresholds = roc_curve([0, 1, 0], [3, 7, 5])
    assert thresholds.dtype == np.float64 and fpr.dtype == tpr.dtype == np.float64
    assert thresholds.tolist() == [np.inf, 7.0, 5.0, 3.0]


def test_unsigned_integer_scores_keep_their_order():
    """uint8 scores must not wrap around when sorted in decreasing order."""
    got = roc_curve([0, 1, 0, 1], np.array([0, 200, 10, 100], dtype=np.uint8))
    assert_same_curve(got, ([0, 0, 0, 0.5, 1], [0, 0.5, 1, 1, 1], [np.inf, 200, 100, 10, 0]))


def test_boolean_scores_are_two_thresholds():
    """Hard 0/1 predictions as booleans: thresholds inf, 1, 0."""
    got = roc_curve([0, 1, 1, 0], [False, True, False, False])
    assert_same_curve(got, ([0, 0, 1], [0, 0.5, 1], [np.inf, 1, 0]))


def test_float_labels_zero_and_one():
    """Labels 0.0 and 1.0 are the same classes as 0 and 1."""
    assert roc_auc_score([0.0, 1.0, 1.0], [0.1, 0.3, 0.2]) == 1.0


def test_negative_and_tied_zero_scores():
    """Negative scores and 0.0 / -0.0 ties are ordinary scores (-0.0 equals 0.0)."""
    got = roc_curve([1, 0, 1, 0], [-0.0, 0.0, -3.5, -1.0])
    assert_same_curve(got, ([0, 0.5, 1, 1], [0, 0.5, 0.5, 1], [np.inf, 0, -1, -3.5]))


def test_fractional_weights_below_one_count():
    """Small positive weights are real weights, not treated as zero."""
    got = roc_curve([1, 0, 1, 0], [4, 3, 2, 1], sample_weight=[0.25, 0.5, 0.75, 0.5])
    assert_same_curve(got, ([0, 0, 0.5, 0.5, 1], [0, 0.25, 0.25, 1, 1], [np.inf, 4, 3, 2, 1]))
    auc = roc_auc_score([1, 0, 1, 0], [4, 3, 2, 1], sample_weight=[0.25, 0.5, 0.75, 0.5])
    assert auc == pytest.approx(0.625, abs=TOLERANCE)


def test_zero_weight_at_the_top_and_bottom_scores():
    """Weight-0 samples at the extreme scores leave no threshold at either end."""
    got = roc_curve([0, 1, 0, 1, 1], [9, 5, 4, 3, 0], sample_weight=[0, 1, 2, 1, 0])
    assert_same_curve(got, ([0, 0, 1, 1], [0, 0.5, 0.5, 1], [np.inf, 5, 4, 3]))


def test_explicit_none_weight_and_column_weight():
    """`sample_weight=None` means unit weights; a weight column `(n, 1)` is accepted."""
    y_true, y_score = [0, 1, 1, 0], [0.3, 0.6, 0.2, 0.1]
    assert roc_auc_score(y_true, y_score, sample_weight=None) == 0.75
    column = np.array([[1.0], [3.0], [1.0], [2.0]])
    assert roc_auc_score(y_true, y_score, sample_weight=column) == pytest.approx(
        (3 * 3 + 1 * 2) / (4 * 3), abs=TOLERANCE)


def test_columns_mix_with_flat_arrays():
    """A `(2, 1)` label column goes with 1-D scores; a `(1, 1)` input is one sample, one class."""
    assert roc_auc_score(np.array([[0], [1]]), [0.1, 0.9]) == 1.0
    with pytest.raises(ValueError):
        roc_curve(np.array([[1]]), np.array([[0.5]]))


# Each bad input is a valid call with one thing broken, so that an implementation missing that
# one check returns a curve (or fails with another exception) instead of the ValueError.
INVALID_INPUTS = {
    "scalar y_true": (0, [0.1], None),
    "scalar y_score": ([0, 1], 0.5, None),
    "scalar sample_weight": ([0, 1], [0.1, 0.2], 1.0),
    "y_true (1, n)": ([[0, 1]], [0.1, 0.2], None),
    "y_score (1, n)": ([0, 1], [[0.1, 0.2]], None),
    "sample_weight (1, n)": ([0, 1], [0.1, 0.2], [[1, 1]]),
    "y_true (n, 2)": ([[0, 1], [1, 0]], [0.1, 0.2], None),
    "sample_weight (n, 2)": ([0, 1], [0.1, 0.2], [[1, 1], [1, 1]]),
    "y_true 3-D": ([[[0]], [[1]]], [0.1, 0.2], None),
    "y_score 3-D": ([0, 1], [[[0.1]], [[0.2]]], None),
    "sample_weight 3-D": ([0, 1], [0.1, 0.2], [[[1.0]], [[1.0]]]),
    "y_score longer": ([0, 1], [0.1, 0.2, 0.3], None),
    "y_score shorter": ([0, 1, 1], [0.1, 0.2], None),
    "sample_weight longer": ([0, 1], [0.1, 0.2], [1, 1, 1]),
    "sample_weight shorter": ([0, 1], [0.1, 0.2], [1]),
    "y_true empty, y_score not": ([], [0.1], None),
    "empty column": (np.zeros((0, 1)), [], None),
    "empty with weights": ([], [], []),
    "label -1 and 2": ([0, 1, -1, 2], [0.1, 0.2, 0.3, 0.4], None),
    "label 0.5": ([0, 1, 0.5], [0.1, 0.2, 0.3], None),
    "label NaN": ([0, 1, np.nan], [0.1, 0.2, 0.3], None),
    "string labels": (["0", "1"], [0.1, 0.2], None),
    "a string among int labels": (np.array([0, 1, "1"], dtype=object), [0.1, 0.2, 0.3], None),
    "score inf": ([0, 1], [0.1, np.inf], None),
    "score -inf": ([0, 1], [-np.inf, 0.2], None),
    "score missing": ([0, 1], [None, 0.2], None),
    "score NaN at weight 0": ([0, 1, 0], [0.1, 0.2, np.nan], [1, 1, 0]),
    "score inf at weight 0": ([0, 1, 1], [0.1, 0.2, np.inf], [1, 1, 0]),
    "label 2 at weight 0": ([0, 1, 2], [0.1, 0.2, 0.3], [1, 1, 0]),
    "weight NaN": ([0, 1], [0.1, 0.2], [1, np.nan]),
    "weight inf": ([0, 1], [0.1, 0.2], [np.inf, 1]),
    "weight missing": ([0, 1], [0.1, 0.2], [None, 1]),
    "weight negative": ([0, 1], [0.1, 0.2], [1, -0.5]),
    "weight negative beside the classes": ([0, 1, 0], [0.1, 0.2, 0.3], [1, 1, -1]),
    "only negatives": ([0, 0], [0.1, 0.2], None),
    "one sample": ([True], [0.1], None),
    "all weights zero": ([0, 1, 1], [0.1, 0.2, 0.3], [0, 0, 0]),
    "negatives only at weight 0": ([0, 1, 1], [0.1, 0.2, 0.3], [0, 1, 1]),
    "positives only at weight 0": ([0, 1, 0], [0.1, 0.2, 0.3], [1, 0, 1]),
}


@pytest.mark.parametrize("function", [roc_curve, roc_auc_score])
@pytest.mark.parametrize(("y_true", "y_score", "sample_weight"), list(INVALID_INPUTS.values()),
                         ids=list(INVALID_INPUTS))
def test_every_invalid_input_is_refused(function, y_true, y_score, sample_weight):
    """Both functions validate every argument and raise ValueError (any wording)."""
    with pytest.raises(ValueError):
        function(y_true, y_score, sample_weight=sample_weight)


# --- label sets: 0/1 only, whatever two values a set happens to hold -------------------------

# Two classes of any other spelling would make a curve if labels were only counted (the larger
# value taken as positive, as scikit-learn does for {-1, 1}); problem.md accepts 0/1 alone.
OTHER_TWO_VALUED_LABELS = {
    "-1 and 1": [-1, 1, 1, -1],
    "1 and 2": [1, 2, 2, 1],
    "0 and 2": [0, 2, 2, 0],
    "2 and 3": [2, 3, 3, 2],
    "True and 2": [True, 2, 2, True],
}


@pytest.mark.parametrize("function", [roc_curve, roc_auc_score])
@pytest.mark.parametrize("labels", list(OTHER_TWO_VALUED_LABELS.values()),
                         ids=list(OTHER_TWO_VALUED_LABELS))
def test_two_valued_labels_other_than_zero_and_one_are_refused(function, labels):
    """Two distinct labels are not enough: they must be 0 and 1, or the call is a ValueError."""
    with pytest.raises(ValueError):
        function(labels, [0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError):
        function(labels, [0.1, 0.4, 0.35, 0.8], sample_weight=[1.0, 2.0, 0.5, 1.0])


@pytest.mark.parametrize("function", [roc_curve, roc_auc_score])
@pytest.mark.parametrize("labels", [[2, 2, 2], [-1, -1, -1], [1, 1, 1], [0.0, 0.0, 0.0]],
                         ids=["all 2", "all -1", "all 1", "all 0.0"])
def test_a_single_label_value_is_refused(function, labels):
    """One label value is one class at most, so the AUC is undefined: ValueError, whether or not
    the value is a valid label."""
    with pytest.raises(ValueError):
        function(labels, [0.1, 0.4, 0.35])


@pytest.mark.parametrize("function", [roc_curve, roc_auc_score])
@pytest.mark.parametrize("weight", [np.nan, None, np.inf, -1.0], ids=["NaN", "missing", "inf", "negative"])
def test_a_bad_weight_is_refused_where_both_classes_keep_weight(function, weight):
    """A NaN, missing, infinite or negative weight is a ValueError even where dropping its sample
    would leave both classes weighted: it is refused, never read as a weight of 0."""
    with pytest.raises(ValueError):
        function([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=[1.0, 1.0, weight, 1.0])
