"""`bugsmith score`: the mutation score of a candidate's own tests."""

from __future__ import annotations

import pytest

from bugsmith.errors import BaselineError
from bugsmith.harness.exercises.judge.scoring import score_tests
from bugsmith.harness.exercises.records import ExerciseError

WEAK_TESTS = '''
from reference.auc import roc_auc_score


def test_perfect_ranking():
    assert roc_auc_score([0, 1], [0.1, 0.9]) == 1.0
'''


@pytest.mark.slow
def test_a_weak_suite_scores_per_family_and_lists_its_survivors(tmp_path, root):
    """One easy test catches some metric bugs and misses others; the misses are listed."""
    tests = tmp_path / "test_mine.py"
    tests.write_text(WEAK_TESTS)
    result = score_tests("auc", tests, root=root, families=("metric",), jobs=2, triage=False)
    detected, counted = result.per_family["metric"]
    assert set(result.per_family) == {"metric"} and counted > 0
    assert 0 < detected < counted and result.score == pytest.approx(100 * detected / counted)
    assert len(result.survivors) == counted - detected
    assert all(s.family == "metric" and s.location.startswith("reference/auc/") for s in result.survivors)


@pytest.mark.slow
def test_score_tells_the_candidate_why_each_bug_was_missed(tmp_path, root):
    """Triage explains the survivors: each gets a class, and a found witness comes with a
    suggested test that was verified to pass on the reference and fail on that bug."""
    tests = tmp_path / "test_mine.py"
    tests.write_text(WEAK_TESTS)
    result = score_tests("auc", tests, root=root, families=("metric",), jobs=2, triage=True)
    assert result.survivors
    assert all(s.classification for s in result.survivors)
    explained = [s for s in result.survivors if s.classification in ("unasserted", "undertested")]
    assert explained, "a one-test suite misses metric bugs that a search can show"
    assert all(s.witness for s in explained)
    assert any(s.suggested_test.startswith(("def test", "import", "from")) for s in explained)


@pytest.mark.slow
def test_tests_that_fail_on_the_reference_are_refused(tmp_path, root):
    """A suite must pass on the reference first, or no score would mean anything."""
    tests = tmp_path / "test_wrong.py"
    tests.write_text(WEAK_TESTS.replace("== 1.0", "== 0.5"))
    with pytest.raises(BaselineError):
        score_tests("auc", tests, root=root, families=("metric",), jobs=2)


def test_unknown_problem_is_a_one_line_error(tmp_path, root):
    """A typo in --problem names the choices instead of failing deep inside a run."""
    with pytest.raises(ExerciseError, match="choose from"):
        score_tests("aucc", tmp_path, root=root)
