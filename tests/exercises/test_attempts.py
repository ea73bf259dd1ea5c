"""Saved attempts over a season: each exercise's measured effort set against its label.

The attempts here are written by the library's own save function from grade-shaped JSON (the
keys `bugsmith grade --json` prints, `process` as the log of test runs gives it); the test that
saves real grades through the CLI is tests/grading/test_attempts_graded.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.attempts.reading import read_attempts
from bugsmith.harness.exercises.attempts.records import Attempt, AttemptError, Label, PackIdentity, Verdict
from bugsmith.harness.exercises.attempts.saving import (
    SaveOptions,
    new_attempt,
    pack_name,
    save_attempt,
    save_graded,
    save_options,
    submission_digest,
)
from bugsmith.harness.exercises.attempts.summarising import summarise
from bugsmith.harness.exercises.pack.archive import write_zip
from bugsmith.harness.exercises.pack.pack import FORMAT
from bugsmith.harness.exercises.records import Difficulty, Exercise

SEASON = PackIdentity(name="season", manifest_sha256="5" * 64)
EASY_15 = Label(level="easy", score=1, time_limit_minutes=15)
MEDIUM_40 = Label(level="medium", score=5, time_limit_minutes=40)
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def graded(exercise_id: str, *, passed: bool, minutes: float | None, runs: int = 4, log: str = "ok") -> dict:
    """A grade as `bugsmith grade --json` prints it, with the `process` keys of the log of test runs."""
    process = None if log == "absent" else {
        "log": log, "note": "", "runs": [{"time": i, "green": False} for i in range(runs)],
        "minutes_total": minutes, "minutes_to_green": minutes, "tests_first": True,
        "rerun_after_each_change": True, "code_states": runs, "change": {"verdict": "minimal"},
    }
    return {"exercise_id": exercise_id, "problem": "auc", "tests": [], "fix": "reference" if passed else "none",
            "diff_lines": 2, "timed_out": False, "duration": 12.5, "passed": passed,
            "restores_reference": passed, **({"process": process} if process is not None else {})}


def save(folder: Path, exercise_id: str, label: Label, n: int, *, passed: bool, minutes: float | None,
         hints: int | None = None, log: str = "ok", candidate: str | None = None, pack: PackIdentity = SEASON,
         hour: int = 0) -> Attempt:
    """Candidate number `n`'s attempt, saved by the library's own save function."""
    attempt = new_attempt(graded(exercise_id, passed=passed, minutes=minutes, log=log, runs=3 + n), pack=pack,
                          exercise_id=exercise_id, problem="auc", label=label, submission_sha256=f"{n:064x}",
                          candidate=candidate, hints_given=hints, graded_at=START + timedelta(hours=hour or n))
    save_attempt(folder, attempt)
    return attempt


@pytest.fixture
def season(tmp_path: Path) -> Path:
    """exercise-01, labelled easy (15 min), took 40-60 minutes and most failed; exercise-02 fits its 40."""
    folder = tmp_path / "attempts"
    for n, (minutes, passed) in enumerate([(40, False), (55, False), (60, True), (48, False), (52, False)]):
        save(folder, "exercise-01", EASY_15, n, passed=passed, minutes=minutes)
    for n, (minutes, passed) in enumerate([(22, True), (30, True), (35, False), (26, True)]):
        save(folder, "exercise-02", MEDIUM_40, n, passed=passed, minutes=minutes, hints=0)
    return folder


def by_exercise(folder: Path) -> dict:
    return {s.exercise_id: s for s in summarise(read_attempts(folder).attempts)}


def test_an_exercise_that_took_far_longer_than_its_label_is_named_and_a_fitting_one_is_not(season):
    """Easy (15 min) at 40-60 min with 1 of 5 passing is harder than labelled; 26 min of 40 fits."""
    found = by_exercise(season)
    first, second = found["exercise-01"], found["exercise-02"]
    assert first.verdict is Verdict.HARDER
    assert (first.attempts, first.passed, first.with_log, first.timed, first.median_minutes) == (5, 1, 5, 5, 52.0)
    assert any("over the 15-minute limit" in r for r in first.reasons)
    assert any("1 of 5 passed without hints" in r for r in first.reasons)
    assert second.verdict is Verdict.FITS
    assert (second.attempts, second.passed, second.median_minutes, second.median_hints) == (4, 3, 28.0, 0)
    assert second.label == MEDIUM_40 and second.pack == SEASON


def test_the_command_prints_the_verdict_per_exercise_and_the_rule(season):
    """`attempts summarise` names the mislabelled exercise in text and JSON, with the label and the counts."""
    text = CliRunner().invoke(cli, ["attempts", "summarise", str(season)])
    assert text.exit_code == 0, text.output
    first, second = text.output.split("  exercise-02")
    assert "harder than labelled" in first and "labelled easy (score 1), 15 min" in first
    assert "5 attempts, 1 passed (20%" in first and "median 52 min (5 of 5 timed)" in first
    assert "label fits" in second and "harder" not in second.split("rule:")[0]
    assert "rule: at least 3 attempts" in text.output
    as_json = CliRunner().invoke(cli, ["attempts", "summarise", "--json", str(season)])
    data = json.loads(as_json.output)
    assert [(e["exercise_id"], e["verdict"]) for e in data["exercises"]] == [
        ("exercise-01", "harder than labelled"), ("exercise-02", "label fits")]
    assert data["exercises"][0]["label"] == {"level": "easy", "score": 1, "time_limit_minutes": 15}
    assert data["thresholds"]["min_attempts"] == 3 and data["skipped"] == []


def test_two_attempts_are_too_few_to_judge(tmp_path):
    """Even two attempts far over the limit do not judge a label: the median of two is two people's day."""
    for n in range(2):
        save(tmp_path, "exercise-01", EASY_15, n, passed=False, minutes=90)
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.TOO_FEW and only.attempts == 2
    assert only.reasons == ("2 attempts; 3 needed",)


def test_without_whole_logs_a_passing_exercise_is_too_few_to_judge(tmp_path):
    """Four passes, but only two whole logs (one missing, one stale, one graded before logs): no time verdict."""
    save(tmp_path, "exercise-02", MEDIUM_40, 0, passed=True, minutes=20)
    save(tmp_path, "exercise-02", MEDIUM_40, 1, passed=True, minutes=25)
    save(tmp_path, "exercise-02", MEDIUM_40, 2, passed=True, minutes=None, log="missing")
    save(tmp_path, "exercise-02", MEDIUM_40, 3, passed=True, minutes=3, log="stale")
    save(tmp_path, "exercise-02", MEDIUM_40, 4, passed=True, minutes=None, log="absent")
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.TOO_FEW
    assert (only.attempts, only.with_log, only.timed, only.median_minutes, only.median_runs) == (5, 2, 2, 22.5, 3.5)
    assert "2 of 5 attempts timed by a whole log" in only.reasons[0]


def test_a_whole_log_with_no_run_has_runs_but_no_time(tmp_path):
    """A candidate who never ran the tests: 0 runs is a fact of their whole log, their minutes are unknown."""
    never = new_attempt(graded("exercise-02", passed=False, minutes=None, runs=0), pack=SEASON,
                        exercise_id="exercise-02", problem="auc", label=MEDIUM_40, submission_sha256="0" * 64)
    save_attempt(tmp_path, never)
    save(tmp_path, "exercise-02", MEDIUM_40, 1, passed=True, minutes=20)
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert (never.runs, never.minutes) == (0, None)
    assert (only.with_log, only.timed, only.median_runs, only.median_minutes) == (2, 1, 2, 20)


def test_most_failing_is_harder_without_any_log(tmp_path):
    """The grader decides a pass itself: 1 of 3 passing says harder even with no log of the time."""
    for n, passed in enumerate([False, True, False]):
        save(tmp_path, "exercise-01", EASY_15, n, passed=passed, minutes=None, log="missing")
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.HARDER and only.median_minutes is None and only.timed == only.with_log == 0


def test_a_label_that_overstates_the_effort_is_easier(tmp_path):
    """Three passes in 4-6 minutes of a 40-minute label: easier than labelled."""
    for n, minutes in enumerate([4, 6, 5]):
        save(tmp_path, "exercise-02", MEDIUM_40, n, passed=True, minutes=minutes)
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.EASIER and only.median_minutes == 5


def test_quick_givers_up_do_not_make_an_exercise_look_easy(tmp_path):
    """Fast, but 3 of 5 passing (under 80%): the time says little, the label stands."""
    for n, (minutes, passed) in enumerate([(4, True), (5, False), (6, True), (5, False), (4, True)]):
        save(tmp_path, "exercise-02", MEDIUM_40, n, passed=passed, minutes=minutes)
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.FITS


def test_hints_weigh_a_pass_that_needed_them(tmp_path):
    """Every candidate passed in time, but three of four only after hints: harder than labelled."""
    for n, hints in enumerate([2, 1, 0, 3]):
        save(tmp_path, "exercise-02", MEDIUM_40, n, passed=True, minutes=30, hints=hints)
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert only.verdict is Verdict.HARDER
    assert (only.passed, only.passed_unaided, only.with_hints, only.median_hints) == (4, 1, 4, 1.5)


def test_broken_files_are_skipped_with_a_warning_each(season):
    """Files that are not attempts are named once each on stderr; the attempts still count."""
    (season / "notes.txt").write_text("hello", encoding="utf-8")
    (season / "truncated.json").write_text('{"attempt": {', encoding="utf-8")
    (season / "grade-only.json").write_text(json.dumps(graded("exercise-01", passed=True, minutes=5)))
    other = json.loads(next(season.glob("exercise-01-*.json")).read_text(encoding="utf-8"))
    other["attempt"]["format"] = "bugsmith-attempt/0"
    (season / "old-format.json").write_text(json.dumps(other), encoding="utf-8")
    (season / "sub").mkdir()
    (season / ".attempt-half-written.tmp").write_text("{", encoding="utf-8")  # a save in progress: silent
    found = read_attempts(season)
    assert sorted(w.split(":")[0] for w in found.warnings) == [
        "grade-only.json", "notes.txt", "old-format.json", "sub", "truncated.json"]
    assert len(found.attempts) == 9
    result = CliRunner().invoke(cli, ["attempts", "summarise", str(season)])
    warnings = [line for line in result.stderr.splitlines() if line.startswith("bugsmith: warning: ")]
    assert result.exit_code == 0 and len(warnings) == 5
    assert "5 attempts" in result.stdout


def test_the_same_attempt_saved_twice_counts_once(season):
    """Saved again, and copied under another name: one file for the save, one attempt in the summary."""
    attempt = Attempt.from_document(json.loads(next(season.glob("exercise-02-*.json")).read_text(encoding="utf-8")))
    files = sorted(season.iterdir())
    again = save_attempt(season, attempt)
    assert again.replaced and sorted(season.iterdir()) == files
    shutil.copyfile(again.path, season / "copy-of-an-attempt.json")
    assert by_exercise(season)["exercise-02"].attempts == 4


def test_a_named_candidate_counts_once_per_exercise(tmp_path):
    """Ann graded twice on other files (two ids, two files) is one candidate's effort: the latest counts."""
    save(tmp_path, "exercise-01", EASY_15, 1, passed=False, minutes=50, candidate="Ann", hour=1)
    save(tmp_path, "exercise-01", EASY_15, 2, passed=True, minutes=58, candidate="Ann", hour=2)
    save(tmp_path, "exercise-01", EASY_15, 3, passed=True, minutes=20, candidate="Bob")
    assert len(list(tmp_path.iterdir())) == 3
    (only,) = summarise(read_attempts(tmp_path).attempts)
    assert (only.attempts, only.passed, only.median_minutes) == (2, 2, 39.0)


def test_packs_are_summarised_apart(tmp_path):
    """The same exercise id in two packs is two exercises: a pack is its manifest's digest."""
    other = PackIdentity(name="season", manifest_sha256="6" * 64)
    save(tmp_path, "exercise-01", EASY_15, 1, passed=True, minutes=10)
    save(tmp_path, "exercise-01", EASY_15, 2, passed=True, minutes=10, pack=other)
    summaries = summarise(read_attempts(tmp_path).attempts)
    assert [(s.pack.manifest_sha256[0], s.attempts) for s in summaries] == [("5", 1), ("6", 1)]


def test_a_saved_attempt_is_the_grade_plus_its_own_facts(tmp_path):
    """The file holds the grade's keys unchanged, and under `attempt` what the summary needs; it reads back equal."""
    attempt = save(tmp_path, "exercise-01", EASY_15, 7, passed=True, minutes=12.5, hints=1, candidate="Ann")
    (path,) = tmp_path.iterdir()
    document = json.loads(path.read_text(encoding="utf-8"))
    assert {k: v for k, v in document.items() if k != "attempt"} == graded("exercise-01", passed=True,
                                                                               minutes=12.5, runs=10)
    facts = document["attempt"]
    assert facts["label"] == {"level": "easy", "score": 1, "time_limit_minutes": 15}
    assert facts["pack"] == {"name": "season", "manifest_sha256": "5" * 64}
    assert (facts["candidate"], facts["hints_given"], facts["graded_at"]) == ("Ann", 1, "2026-12-01T16:00:00Z")
    assert path.name == f"exercise-01-{facts['id']}.json" and len(facts["id"]) == 64
    assert Attempt.from_document(document) == attempt and attempt.minutes == 12.5 and attempt.runs == 10


def test_a_missing_empty_or_attemptless_folder_is_a_one_line_error(tmp_path):
    """Through the real entry point: one line on stderr, exit 2, nothing on stdout."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "a.json").write_text("[]", encoding="utf-8")
    for folder, says in [("missing", "no such folder"), ("empty", "is empty"), ("junk", "none of its 1 files")]:
        done = subprocess.run([sys.executable, "-m", "bugsmith.harness.cli", "attempts", "summarise",
                               str(tmp_path / folder)], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("bugsmith: error: ") and says in done.stderr


def test_attempt_options_are_checked_before_grading(tmp_path):
    """A name or hints without a folder, or a folder that is a file, is refused before minutes of grading."""
    with pytest.raises(AttemptError, match="--save-attempt"):
        save_options(None, "Ann", None)
    with pytest.raises(AttemptError, match="--save-attempt"):
        save_options(None, None, 2)
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(AttemptError, match="not a folder"):
        save_options(tmp_path / "file", None, None)
    assert save_options(None, None, None) is None
    assert save_options(tmp_path / "new", " Ann ", 0) == SaveOptions(folder=tmp_path / "new", candidate="Ann",
                                                                     hints_given=0)
    result = CliRunner().invoke(cli, ["grade", str(tmp_path), "exercise-01", str(tmp_path), "--candidate", "Ann"])
    assert isinstance(result.exception, AttemptError)


def fake_instructor(folder: Path) -> Path:
    """An instructor part with one exercise record (easy, 15 min): enough to label a saved attempt."""
    exercise = Exercise(id="exercise-01", instance_id="auc-0", problem="auc", mutants=(), buggy={}, reference={},
                        fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                        difficulty=Difficulty(score=1, level="easy"), time_limit_minutes=15)
    (folder / "exercise-01").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"format": FORMAT, "exercises": []}), encoding="utf-8")
    (folder / "exercise-01" / "exercise.json").write_text(json.dumps(exercise.to_dict()), encoding="utf-8")
    return folder


def handed_in(folder: Path, code: str) -> Path:
    (folder / "auc").mkdir(parents=True)  # as the handout names it
    (folder / "auc" / "auc.py").write_text(code, encoding="utf-8")
    return folder


def test_grading_a_folder_again_rewrites_its_file_and_other_folders_never_share_one(tmp_path):
    """Re-grading one folder is one attempt; two unnamed candidates with the same fix are two."""
    pack = fake_instructor(tmp_path / "season" / "instructor")
    ann = handed_in(tmp_path / "ann", "fixed = True\n")
    bob = handed_in(tmp_path / "bob", "fixed = True\n")
    assert submission_digest(ann) == submission_digest(bob)
    options = SaveOptions(folder=tmp_path / "attempts")
    grade = graded("exercise-01", passed=True, minutes=9)
    first = save_graded(grade, options, pack=pack, exercise_id="exercise-01", submission=ann)
    again = save_graded(grade, options, pack=pack, exercise_id="exercise-01", submission=ann)
    other = save_graded(grade, options, pack=pack, exercise_id="exercise-01", submission=bob)
    assert (first.replaced, again.replaced, other.replaced) == (False, True, False)
    assert first.path == again.path != other.path and len(list(options.folder.iterdir())) == 2
    assert first.attempt.pack.name == "season" and first.attempt.label == EASY_15
    (ann / "__pycache__").mkdir()
    (ann / "__pycache__" / "auc.cpython-311.pyc").write_bytes(b"\0")  # the tests ran again: same attempt
    assert save_graded(grade, options, pack=pack, exercise_id="exercise-01", submission=ann).replaced
    (ann / "auc" / "auc.py").write_text("fixed = 'differently'\n", encoding="utf-8")
    assert not save_graded(grade, options, pack=pack, exercise_id="exercise-01", submission=ann).replaced


def test_a_named_candidate_is_one_attempt_wherever_the_folder_is(tmp_path):
    """With --candidate, the same files graded from another place are the same attempt."""
    pack = fake_instructor(tmp_path / "instructor")
    grade = graded("exercise-01", passed=False, minutes=40)
    options = SaveOptions(folder=tmp_path / "attempts", candidate="Ann", hints_given=1)
    first = save_graded(grade, options, pack=pack, exercise_id="exercise-01",
                        submission=handed_in(tmp_path / "here", "x = 1\n"))
    moved = save_graded(grade, options, pack=pack, exercise_id="exercise-01",
                        submission=handed_in(tmp_path / "there", "x = 1\n"))
    assert moved.replaced and moved.path == first.path and moved.attempt.hints_given == 1


def test_a_zipped_pack_is_named_without_its_part(tmp_path):
    """`season-instructor.zip` is the pack `season`, with the same digest as its tree."""
    tree = fake_instructor(tmp_path / "season" / "instructor")
    files = {f"instructor/{p.relative_to(tree).as_posix()}": p.read_text(encoding="utf-8")
             for p in tree.rglob("*") if p.is_file()}
    archive = write_zip(tmp_path / "season-instructor.zip", files)
    assert pack_name(archive) == pack_name(tree) == pack_name(tree.parent) == "season"
    handed = handed_in(tmp_path / "sub", "x = 1\n")
    grade = graded("exercise-01", passed=True, minutes=3)
    zipped = save_graded(grade, SaveOptions(folder=tmp_path / "a"), pack=archive, exercise_id="exercise-01",
                         submission=handed)
    plain = save_graded(grade, SaveOptions(folder=tmp_path / "b"), pack=tree, exercise_id="exercise-01",
                        submission=handed)
    assert zipped.attempt.pack == plain.attempt.pack
