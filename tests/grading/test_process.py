"""How a candidate worked, judged from hand-made logs: tests first, re-runs, narrowing, time to green, the change."""

from __future__ import annotations

import json

import jsonschema

from bugsmith.harness.exercises.judge.attempt_log import AttemptLog, LogStatus, parse_attempt
from bugsmith.harness.exercises.judge.changed_functions import touched
from bugsmith.harness.exercises.judge.grade_text import grade_text
from bugsmith.harness.exercises.judge.grading import Grade, TestResult, grade_schema
from bugsmith.harness.exercises.judge.process import Process, Revert, final_change, judge
from tests.grading.attempt_logs import FIXED, HANDOUT, VISIBLE, log_text

CORE = "pkg/core.py"
FAILING = VISIBLE[:1]
# The fix in two steps: a guess in `mean` first, then the right line in `area`.
GUESS = {CORE: HANDOUT[CORE].replace("sum(xs) / len(xs)", "sum(xs) / max(len(xs), 1)")}
GUESS_AND_FIX = {CORE: FIXED[CORE].replace("sum(xs) / len(xs)", "sum(xs) / max(len(xs), 1)")}
REWRITE = {CORE: HANDOUT[CORE].replace(
    "def area(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total * 2\n",
    "def area(values):\n    return sum(value for value in values)\n")}


def _judge(runs, code, *, fill=False) -> Process:
    return judge(parse_attempt(log_text(runs), HANDOUT), handout=HANDOUT, code=code, solution=FIXED,
                 visible=VISIBLE, fill=fill)


def test_tests_first_narrowed_fixed_and_rerun_is_the_recommended_process():
    """Run all, run the failing test alone, fix one line, run all: every measure says so."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (HANDOUT, {"selected": FAILING, "failing": FAILING}),
                      (FIXED, {})], FIXED)
    assert process.log == LogStatus.OK and process.note == ""
    assert process.tests_first is True and process.rerun_after_each_change is True and process.untested_states == 0
    assert process.narrowed is True and process.narrowest == 1
    assert [r.failed for r in process.runs] == [1, 1, 0] and [r.green for r in process.runs] == [False, False, True]
    assert process.minutes_to_green == 2.0 and process.minutes_total == 2.0 and process.code_states == 2
    assert process.runs[0].diff == "" and process.runs[2].diff.startswith(f"--- a/{CORE}\n+++ b/{CORE}\n")
    assert process.change.verdict == "minimal" and process.change.functions == (f"{CORE}::area",)
    assert process.outside_ever == () and process.reverted == ()


def test_editing_before_any_run_is_no_tests_first_and_a_state_never_run():
    """The handout changed before the first run: it was a code state the candidate moved on from untested."""
    process = _judge([(FIXED, {})], FIXED)
    assert process.tests_first is False and process.rerun_after_each_change is False
    assert process.untested_states == 1 and process.narrowed is False and process.minutes_to_green == 0.0


def test_two_functions_changed_between_runs_count_one_state_never_run():
    """Edits to `mean` and `area` with no run between: one in-between state untested, `mean` outside the fix."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (GUESS_AND_FIX, {})], GUESS_AND_FIX)
    assert process.tests_first is True and process.untested_states == 1 and process.rerun_after_each_change is False
    assert process.outside_ever == (f"{CORE}::mean",) and process.change.outside == (f"{CORE}::mean",)
    assert process.change.verdict == "larger than needed"


def test_one_change_at_a_time_with_runs_between_is_rerun_after_each_change():
    """The same two edits, each followed by a run: nothing untested, though `mean` stays outside the fix."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (GUESS, {"failing": FAILING}), (GUESS_AND_FIX, {})],
                     GUESS_AND_FIX)
    assert process.rerun_after_each_change is True and process.code_states == 3


def test_code_changed_after_the_last_run_is_stale_but_still_read():
    """The log is whole but ends before the submitted code: stale, one line, the submitted code never run."""
    process = _judge([(HANDOUT, {"failing": FAILING})], FIXED)
    assert process.log == LogStatus.STALE and "after the last recorded test run" in process.note
    assert "\n" not in process.note and process.tests_first is True
    assert process.untested_states == 1 and process.rerun_after_each_change is False and len(process.runs) == 1


def test_no_run_at_all_on_changed_code_is_stale_and_no_tests_first():
    """The empty log as shipped, with the code changed: the tests never ran on any state."""
    log = parse_attempt("", HANDOUT)
    process = judge(log, handout=HANDOUT, code=FIXED, solution=FIXED, visible=VISIBLE, fill=False)
    assert process.log == LogStatus.STALE and process.tests_first is False
    assert process.rerun_after_each_change is False and process.untested_states == 2 and process.runs == ()
    untouched = judge(log, handout=HANDOUT, code=HANDOUT, solution=FIXED, visible=VISIBLE, fill=False)
    assert untouched.log == LogStatus.OK and untouched.tests_first is None and untouched.change.verdict is None


def test_a_missing_or_broken_log_reports_nothing_of_it_but_the_change():
    """Nothing of an unverified log is used; the change against the fix needs no log."""
    for log in (AttemptLog(status=LogStatus.MISSING, note="no log", runs=()),
                parse_attempt(log_text([(HANDOUT, {})]).replace('"passed"', '"failed"', 1), HANDOUT)):
        process = judge(log, handout=HANDOUT, code=FIXED, solution=FIXED, visible=VISIBLE, fill=False)
        assert process.log in (LogStatus.MISSING, LogStatus.BROKEN) and process.runs == ()
        assert process.tests_first is None and process.minutes_to_green is None and process.untested_states is None
        assert process.change.verdict == "minimal"


def test_green_needs_every_visible_test_selected():
    """All selected tests passing is not green while a visible test was left out."""
    process = _judge([(FIXED, {"selected": FAILING}), (FIXED, {})], FIXED)
    assert [r.green for r in process.runs] == [False, True] and [r.full for r in process.runs] == [False, True]
    assert process.minutes_to_green == 1.0


def test_going_back_to_the_handout_is_a_revert():
    """Edit, run, undo, run: run 3 went back to the code as handed out."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (GUESS, {"failing": FAILING}),
                      (HANDOUT, {"failing": FAILING}), (FIXED, {})], FIXED)
    assert process.reverted == (Revert(run=3, back_to=0),) and process.code_states == 3


def test_a_rewritten_function_is_a_rewrite_and_a_reworded_line_is_not():
    """`area` written anew (all its lines replaced) is a rewrite; one line said differently stays minimal."""
    assert final_change(HANDOUT, REWRITE, FIXED).verdict == "rewrite"
    assert final_change(HANDOUT, REWRITE, FIXED).rewritten == (f"{CORE}::area",)
    reworded = {CORE: HANDOUT[CORE].replace("    return total * 2\n", "    result = total\n    return result\n")}
    assert final_change(HANDOUT, reworded, FIXED).verdict == "minimal"


def test_changed_lines_map_to_their_innermost_function():
    """A method, a class attribute, a nested function and module-level code each get their own name."""
    before = {"m.py": "X = 1\n\n\nclass A:\n    y = 2\n\n    def f(self):\n        def g():\n            return 3\n"
                      "        return g()\n"}
    after = {"m.py": before["m.py"].replace("X = 1", "X = 2").replace("y = 2", "y = 3").replace("return 3", "return 4")}
    assert sorted(touched(before, after)) == ["m.py::<module>", "m.py::A", "m.py::A.f.g"]


def test_the_grade_json_carries_the_process_and_matches_the_schema():
    """A grade with a process: plain JSON, valid against grade.schema.json, `passed` from the tests alone."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (REWRITE, {})], REWRITE)
    grade = Grade(exercise_id="exercise-01", problem="core", fix="different", diff_lines=process.change.lines,
                  timed_out=False, duration=1.0, process=process,
                  tests=tuple(TestResult(id=t, hidden=False, outcome="passed") for t in VISIBLE))
    record = json.loads(json.dumps(grade.to_dict()))
    jsonschema.validate(record, grade_schema(), format_checker=jsonschema.FormatChecker())
    assert record["passed"] is True and record["process"]["change"]["verdict"] == "rewrite"
    assert record["process"]["log"] == "ok" and record["process"]["runs"][1]["green"] is True
    assert set(record["process"]["runs"][0]) >= {"time", "selected", "outcomes", "failed", "passed", "green", "diff"}


def test_the_text_has_a_short_process_section():
    """An ok log: a few lines of measures; a missing one: one line, and the change."""
    process = _judge([(HANDOUT, {"failing": FAILING}), (FIXED, {})], FIXED)
    grade = Grade(exercise_id="exercise-01", problem="core", tests=(), fix="reference", diff_lines=2,
                  timed_out=False, duration=1.0, process=process)
    text = grade_text(grade).splitlines()
    section = text[text.index(next(line for line in text if line.startswith("  process"))):]
    assert len(section) <= 5 and "tests first: yes" in section[1] and section[-1].endswith("area: minimal")
    missing = grade_text(Grade(exercise_id="exercise-01", problem="core", tests=(), fix="none", diff_lines=0,
                               timed_out=False, duration=1.0)).splitlines()
    assert [line for line in missing if line.startswith("  process")] == [
        "  process    log missing: the record of the test runs was not read; the end state is graded as usual"]
