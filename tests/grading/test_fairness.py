"""Grading an honest candidate: the real fix passes, a hang costs one test, bugs earn credit one by one,
and a folder from another exercise is recognised."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.judge.grading import grade
from bugsmith.harness.exercises.judge.submission import WrongExerciseError, recognise
from tests.grading.submissions import requires_bwrap, submission

HANG_IN = "test_perfect_ranking_scores_one"
HANG = f'''

import sys as _sys

_scored = roc_auc_score


def roc_auc_score(*args, **kwargs):
    frame = _sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == {HANG_IN!r}:
            while True:
                pass
        frame = frame.f_back
    return _scored(*args, **kwargs)
'''


@requires_bwrap
def test_the_reference_fix_passes_with_the_outputs_checked(auc_exercises, auc_pack, tmp_path):
    """The real fix: every test passes, the canaries fail, the outputs agree; exit 0 and a short summary;
    --verbose lists every test and --json is the whole record."""
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "fixed", fixed=True)
    done = CliRunner().invoke(cli, ["grade", str(auc_pack.instructor), exercise.id, str(folder), "--json"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["passed"] and record["fix"] == "reference" and record["sandboxed"] and not record["tampering"]
    assert record["canaries"] >= 1 and record["differential"]["calls"] > 0 and record["differential"]["mismatches"] == 0
    assert {t["id"] for t in record["tests"]} == {*exercise.fail_to_pass, *exercise.pass_to_pass}


@requires_bwrap
def test_a_hanging_test_costs_that_test_only(auc_exercises, auc_pack, tmp_path):
    """Code that hangs in one test: that test runs out of its time and fails; every other test still runs and
    passes, and the grading itself does not run out of time."""
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "hangs", fixed=True, append=HANG)
    result = grade(auc_pack.instructor, exercise.id, folder, test_timeout=8)
    outcomes = {t.id.split("::")[-1]: t.outcome for t in result.tests}
    assert outcomes.pop(HANG_IN) == "timeout"
    assert set(outcomes.values()) == {"passed"}
    assert not result.timed_out and not result.passed and not result.tampering


@requires_bwrap
def test_each_bug_of_a_two_bug_exercise_gets_its_own_credit(two_bug_pack, tmp_path):
    """Only the first bug fixed: the grade says bug 1 fixed, bug 2 not, from the tests each fails alone."""
    exercise, pack = two_bug_pack
    assert len(exercise.mutants) == 2 and len(exercise.bug_tests) == 2
    second = exercise.mutants[1]
    code = {path: second.apply(text) if second.file == path else text for path, text in exercise.reference.items()}
    folder = submission(pack.candidate, exercise, tmp_path / "half", files=code)
    result = grade(pack.instructor, exercise.id, folder)
    assert [bug.fixed for bug in result.bugs] == [True, False]
    assert not result.passed and result.bugs[1].failing
    done = CliRunner().invoke(cli, ["grade", str(pack.instructor), exercise.id, str(folder)])
    assert done.exit_code == 1 and "bug 1" in done.output and ": fixed" in done.output
    assert "not fixed (" in done.output.split("bug 2", 1)[1]


def test_a_folder_from_another_exercise_is_named(auc_exercises, auc_pack):
    """Exercise 2's folder graded as exercise 1: its README is exercise 2's statement; a one-line error, exit 2."""
    first, second = auc_exercises
    folder = auc_pack.candidate / second.id
    with pytest.raises(WrongExerciseError, match=f"for {second.id}"):
        recognise(folder, first, auc_pack.instructor)
    recognise(auc_pack.candidate / first.id, first, auc_pack.instructor)  # its own folder: no complaint
    done = CliRunner().invoke(cli, ["grade", str(auc_pack.instructor), first.id, str(folder)])
    assert isinstance(done.exception, WrongExerciseError) and done.exception.exit_code == 2


def _pack_copy(pack, tmp_path):
    instructor = shutil.copytree(pack.instructor, tmp_path / "instructor")
    return instructor, json.loads((instructor / "exercise-02" / "exercise.json").read_text())


def _write(instructor, record):
    (instructor / "exercise-02" / "exercise.json").write_text(json.dumps(record))


def test_code_with_another_exercises_bug_elsewhere_is_named(auc_exercises, auc_pack, tmp_path):
    """Without a README, another exercise's bug in the code (at a line this one's bug does not touch)
    names it; the same line proves nothing (a candidate's attempt may be that bug)."""
    first = auc_exercises[0]
    instructor, record = _pack_copy(auc_pack, tmp_path)
    path = next(iter(first.reference))
    reference = first.reference[path]
    line = next(i for i, text in enumerate(reference.splitlines(), 1)
                if "def " not in text and "=" in text and abs(i - first.mutants[0].span.line) > 3)
    lines = reference.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].replace("=", "= -1 +", 1)
    record["buggy"] = {path: "".join(lines)}
    record["mutants"][0]["span"].update(line=line, end_line=line)
    _write(instructor, record)
    folder = submission(auc_pack.candidate, first, tmp_path / "s", files={path: "".join(lines)})
    (folder / "README.md").unlink()
    with pytest.raises(WrongExerciseError, match="carries that exercise's bug"):
        recognise(folder, first, instructor)
    record["mutants"][0]["span"].update(line=first.mutants[0].span.line, end_line=first.mutants[0].span.end_line)
    _write(instructor, record)
    recognise(folder, first, instructor)


def test_a_folder_for_another_problem_is_named(auc_exercises, auc_pack, tmp_path):
    """A submission with another problem's code and none of this one's is for that problem's exercise."""
    first = auc_exercises[0]
    instructor, record = _pack_copy(auc_pack, tmp_path)
    record.update(problem="scheduler", buggy={"reference/scheduler/scheduler.py": "x = 1\n"})
    _write(instructor, record)
    folder = tmp_path / "scheduler-submission"  # laid out as handed out
    (folder / "scheduler").mkdir(parents=True)
    (folder / "scheduler" / "scheduler.py").write_text("x = 2\n")
    with pytest.raises(WrongExerciseError, match=r"exercise-02 \(scheduler\)"):
        recognise(folder, first, instructor)


@pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux only")
def test_without_bubblewrap_grading_is_a_one_line_error(auc_exercises, auc_pack, monkeypatch, capsys):
    """No `bwrap` on PATH: one line that says how to install it, exit 2, and never an unsandboxed run."""
    from bugsmith.harness.cli import main

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "bwrap" else real(name, *a, **k))
    exercise = auc_exercises[0]
    monkeypatch.setattr(sys, "argv", ["bugsmith", "grade", str(auc_pack.instructor), exercise.id,
                                      str(auc_pack.candidate / exercise.id)])
    with pytest.raises(SystemExit) as exited:
        main()
    err = capsys.readouterr().err
    assert exited.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "apt-get install bubblewrap" in err


def test_no_sandbox_says_so_in_its_output(auc_exercises, auc_pack):
    """`--no-sandbox` is for code one trusts, and the grade and stderr both say it ran unconfined."""
    exercise = auc_exercises[0]
    done = CliRunner().invoke(cli, ["grade", "--no-sandbox", str(auc_pack.instructor), exercise.id,
                                    str(auc_pack.candidate / exercise.id)])
    assert done.exit_code == 1
    assert "NOT SANDBOXED (--no-sandbox)" in done.stdout and "WITHOUT a sandbox" in done.stderr
