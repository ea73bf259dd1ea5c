"""A candidate's weak AUC suite: two tests, plain lists, no weights, no errors, no column input.

`bugsmith score` on it must teach what is missing (tests/exercises/test_score_teaches.py).
"""

from reference.auc import roc_auc_score, roc_curve


def test_perfect_ranking_has_area_one():
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0


def test_curve_starts_at_the_origin_and_ends_at_one():
    fpr, tpr, thresholds = roc_curve([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    assert (fpr[0], tpr[0]) == (0.0, 0.0)
    assert (fpr[-1], tpr[-1]) == (1.0, 1.0)
