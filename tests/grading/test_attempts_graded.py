"""`bugsmith grade --save-attempt` on a real pack, in the sandbox, then `bugsmith attempts summarise`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from tests.grading.submissions import requires_bwrap, submission

pytestmark = [pytest.mark.slow, requires_bwrap]


def test_real_grades_are_saved_once_each_and_summarised_with_the_packs_label(auc_pack, auc_exercises, tmp_path):
    """A fix and an unfixed handout are two attempts; grading the fix again rewrites its file; the summary
    has the exercise's label from the pack, the minutes and runs of the one whole log, and too few attempts."""
    exercise = auc_exercises[0]
    attempts = tmp_path / "season" / "attempts"  # made by the first save
    fixed = submission(auc_pack.candidate, exercise, tmp_path / "ann", fixed=True)
    unfixed = submission(auc_pack.candidate, exercise, tmp_path / "bob")
    # Ann ran the tests once on her fix: the handout's recorder logs it, and the grade's process reads it.
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=fixed, check=True,
                   capture_output=True, timeout=600)
    runner = CliRunner()

    def grade(folder, *extra):
        return runner.invoke(cli, ["grade", str(auc_pack.instructor), exercise.id, str(folder), "--json",
                                   "--save-attempt", str(attempts), *extra])

    passed = grade(fixed, "--candidate", "Ann", "--hints-given", "1")
    assert passed.exit_code == 0, passed.output
    assert "bugsmith: attempt saved: " in passed.stderr and "replacing" not in passed.stderr
    (saved,) = attempts.iterdir()
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert {k: v for k, v in document.items() if k != "attempt"} == json.loads(passed.stdout)
    facts = document["attempt"]
    assert facts["label"] == {"level": exercise.difficulty.level, "score": exercise.difficulty.score,
                              "time_limit_minutes": exercise.time_limit_minutes}
    assert (facts["candidate"], facts["hints_given"], facts["exercise_id"]) == ("Ann", 1, exercise.id)
    assert len(facts["pack"]["manifest_sha256"]) == 64

    failed = grade(unfixed)
    assert failed.exit_code == 1 and json.loads(failed.stdout)["passed"] is False
    again = grade(fixed, "--candidate", "Ann", "--hints-given", "1")
    assert again.exit_code == 0 and "(replacing its earlier save)" in again.stderr
    assert len(list(attempts.iterdir())) == 2

    summary = runner.invoke(cli, ["attempts", "summarise", "--json", str(attempts)])
    assert summary.exit_code == 0, summary.output
    (only,) = json.loads(summary.stdout)["exercises"]
    assert (only["exercise_id"], only["attempts"], only["passed"], only["passed_unaided"]) == (exercise.id, 2, 1, 0)
    assert (only["verdict"], only["label"]) == ("too few attempts", facts["label"])
    assert (only["with_hints"], only["median_hints"]) == (1, 1)
    assert document["process"]["log"] == "ok" and len(document["process"]["runs"]) == 1
    assert isinstance(document["process"]["minutes_total"], int | float)
    assert only["timed"] == 1 and only["median_minutes"] == document["process"]["minutes_total"]  # Bob never ran
