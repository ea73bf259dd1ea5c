"""An honest candidate who rewrites the whole problem correctly passes grading, on every problem.

The submission is the independent rewrite of tests/contract/rewrites (other names, other
validation order, other messages, other random draws), under the handed-out file names. It
must pass the tests, the canaries and the output check, and the check must have compared
something: function calls for the function problems, method-call sequences for the classes
(the scheduler, the block allocator, extra trees: compared by kind and shape for extra trees,
whose values are draws).
"""

from __future__ import annotations

import shutil

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.judge.grading import grade
from bugsmith.harness.exercises.pack.pack import export
from tests.grading.rewrites import graded_problems, rewrite_submission
from tests.grading.submissions import requires_bwrap

pytestmark = [pytest.mark.slow, requires_bwrap]


@pytest.fixture(scope="module", params=graded_problems())
def one_exercise_pack(request, tmp_path_factory):
    """One exercise of the problem and its pack: `bugsmith pack export --problem P --count 1`."""
    options = ExerciseOptions(problems=(request.param,), count=1, seed=0)
    exercises = build_exercises(options, root=builtin_root(), jobs=2)
    pack = export(exercises, tmp_path_factory.mktemp(request.param) / "pack", root=builtin_root(), options=options)
    return request.param, exercises[0], pack


def test_an_independent_rewrite_passes_with_its_outputs_compared(one_exercise_pack, tmp_path):
    """The rewrite passes every test and agrees with the reference on every compared call."""
    problem, exercise, pack = one_exercise_pack
    folder = tmp_path / "submission"
    shutil.copytree(pack.candidate / exercise.id, folder)
    result = grade(pack.instructor, exercise.id, rewrite_submission(folder, problem))
    assert result.passed, (result.tampering, result.differential, [t for t in result.tests if t.outcome != "passed"])
    assert result.fix == "different" and not result.tampering
    assert result.differential is not None and result.differential.calls > 0
    if problem == "extra_trees":
        assert "random draws" in result.differential.note
