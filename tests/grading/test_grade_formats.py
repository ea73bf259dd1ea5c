"""`bugsmith grade --format gradescope|junit` on real grades: a passing and a failing submission.

Gradescope's results.json is validated against its documented format (the schema beside this
file) and checked for what a candidate must never see in it: a held-back test's name in the
summary, its message, its source, or the fix. The JUnit XML is parsed and checked against the
grade it came from.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.judge.attempt_log import parse_attempt
from bugsmith.harness.exercises.judge.differential import Differential, Mismatch
from bugsmith.harness.exercises.judge.grade_formats import GRADE_FORMATS, FormatOptions, grade_format
from bugsmith.harness.exercises.judge.grade_text import process_lines
from bugsmith.harness.exercises.judge.gradescope import gradescope_failure, gradescope_results
from bugsmith.harness.exercises.judge.grading import Grade, TestResult, grade
from bugsmith.harness.exercises.judge.junit_grade import VERDICT_CLASS, VERDICT_NAME, junit_failure, junit_grade
from bugsmith.harness.exercises.judge.process import judge
from bugsmith.harness.exercises.sources.handout_names import HandoutNames
from bugsmith.harness.shared.protocol import TestOutcome
from tests.grading.attempt_logs import FIXED, HANDOUT, VISIBLE, log_text
from tests.grading.submissions import requires_bwrap, submission

SCHEMA = json.loads((Path(__file__).parent / "gradescope-results.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PROCESS = ("3 runs over 12 min; tests first: yes", "change 2 lines in roc_curve")


@pytest.fixture(scope="module")
def graded(auc_exercises, auc_pack, tmp_path_factory) -> dict[str, Grade]:
    """The grades of the first exercise's fix (passes) and of its handout left as it was (fails)."""
    exercise = auc_exercises[0]
    folder = tmp_path_factory.mktemp("formats")
    fixed = submission(auc_pack.candidate, exercise, folder / "fixed", fixed=True)
    unfixed = submission(auc_pack.candidate, exercise, folder / "unfixed")
    return {"pass": grade(auc_pack.instructor, exercise.id, fixed, seed=1),
            "fail": grade(auc_pack.instructor, exercise.id, unfixed, seed=1)}


def _fix_lines(exercise) -> set[str]:
    """The lines the fix puts back: the reference's lines the handed-out code lacks."""
    found = set()
    for file, text in exercise.reference.items():
        diff = difflib.unified_diff(exercise.buggy[file].splitlines(), text.splitlines(), n=0, lineterm="")
        found |= {line[1:].strip() for line in diff if line.startswith("+") and not line.startswith("+++")}
    return {line for line in found if len(line) > 8}


def _held_back_asserts(auc_pack, exercise) -> set[str]:
    sources = (auc_pack.instructor / exercise.id / "tests").rglob("test_*_hidden.py")
    return {line.strip() for path in sources for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("assert ") and len(line.strip()) > 20}


def test_the_schema_refuses_what_gradescope_does_not_document() -> None:
    """The schema can fail: an undocumented field, an unknown status or visibility, or no score anywhere."""
    good = {"score": 1.0, "tests": [{"name": "t", "status": "passed", "visibility": "after_published"}]}
    assert VALIDATOR.is_valid(good)
    assert not VALIDATOR.is_valid({**good, "max_points": 1})
    assert not VALIDATOR.is_valid({**good, "tests": [{"name": "t", "status": "ok"}]})
    assert not VALIDATOR.is_valid({**good, "visibility": "later"})
    assert not VALIDATOR.is_valid({"tests": [{"name": "t", "status": "passed"}]})
    assert VALIDATOR.is_valid({"tests": [{"name": "t", "score": 1, "max_score": 1}]})


def test_a_run_with_no_grade_is_a_valid_failed_run() -> None:
    """No grade at all (no sandbox, an unreadable submission) scores 0 with the reason; JUnit says the same."""
    document = gradescope_failure("exercise-01", "bubblewrap cannot start a sandbox here (no namespaces)")
    VALIDATOR.validate(document)
    assert document["score"] == 0.0 and "bubblewrap cannot start" in document["output"]
    case = ET.fromstring(junit_failure("exercise-01", "no namespaces")).find("./testsuite/testcase")
    assert (case.get("classname"), case.get("name")) == (VERDICT_CLASS, VERDICT_NAME)
    assert case.find("error").get("message") == "no namespaces"


def _made_up(*, sandboxed: bool = True, tampering: tuple[str, ...] = (), differential=None) -> Grade:
    """A grade with one visible and one held-back test failing, each with a message."""
    tests = (TestResult(id="t/test_v.py::test_shown", hidden=False, outcome=TestOutcome.FAILED, message="VISIBLE-MSG"),
             TestResult(id="t/test_h.py::test_kept[1]", hidden=True, outcome=TestOutcome.FAILED, message="HELD-MSG"))
    return Grade(exercise_id="exercise-01", problem="auc", tests=tests, fix="none", diff_lines=1, timed_out=False,
                 duration=1.0, sandboxed=sandboxed, tampering=tampering, differential=differential)


def test_no_held_back_name_or_message_reaches_the_candidate() -> None:
    """A tampering reason or an output example naming a held-back test is rewritten or left out;
    without the sandbox even visible messages are left out (the code could have read the key)."""
    named = _made_up(tampering=("1 tests asked for were never reported (e.g. t/test_h.py::test_kept[1])",))
    document = gradescope_results(named)
    summary = document["output"] + json.dumps(document["extra_data"])
    assert "test_kept" not in summary and "e.g. a held-back test" in document["output"]
    text = json.dumps(document)
    assert "HELD-MSG" not in text and "VISIBLE-MSG" in text
    unconfined = json.dumps(gradescope_results(_made_up(sandboxed=False)))
    assert "VISIBLE-MSG" not in unconfined and "HELD-MSG" not in unconfined
    for test, shown in (("t/test_h.py::test_kept", False), ("t/test_v.py::test_shown", True)):
        check = Differential(calls=3, functions=("f",), mismatches=1,
                             examples=(Mismatch(call="f(7)", test=test, difference="2 != 3"),))
        output = gradescope_results(_made_up(differential=check))["output"]
        assert ("f(7)" in output) == shown and "1 of 3 calls differ" in output


def _worked(runs: list, code: dict[str, str]) -> Grade:
    """A passing grade of the hand-made `core` exercise whose log holds `runs` and whose code is `code`."""
    process = judge(parse_attempt(log_text(runs), HANDOUT), handout=HANDOUT, code=code, solution=FIXED,
                    visible=VISIBLE, fill=False)
    return Grade(exercise_id="exercise-01", problem="core", fix="reference", diff_lines=process.change.lines,
                 timed_out=False, duration=1.0, process=process,
                 tests=tuple(TestResult(id=t, hidden=False, outcome=TestOutcome.PASSED) for t in VISIBLE))


def test_a_student_reads_only_neutral_facts_of_their_process() -> None:
    """What a student who can resubmit sees says how many runs their log recorded and whether it verifies,
    never the fix's size or the function it touches; the instructor's full summary is in extra_data."""
    fixed = _worked([(HANDOUT, {"failing": VISIBLE[:1]}), (HANDOUT, {"selected": VISIBLE[:1], "failing": VISIBLE[:1]}),
                     (FIXED, {})], FIXED)
    full = process_lines(fixed.process)
    assert any("(the fix: 2) in area" in line for line in full)  # what must stay hidden is in the summary
    document = gradescope_results(fixed, process_lines=full)
    VALIDATOR.validate(document)
    output = document["output"]
    assert "Process: 3 test runs recorded in your log; log ok." in output
    assert not any(line in output for line in full)
    assert not any(word in output for word in ("the fix", "area", "minimal", "outside", "2 lines"))
    assert all(test["visibility"] == "visible" and "fix" not in json.dumps(test) for test in document["tests"])
    assert document["extra_data"]["bugsmith"]["process"] == full
    stale = gradescope_results(_worked([(HANDOUT, {"failing": VISIBLE[:1]})], FIXED))["output"]
    assert "1 test run recorded in your log; log stale: the code was changed after the last recorded" in stale
    missing = gradescope_results(_made_up())["output"]
    assert "Process: log missing: the record of the test runs was not read." in missing


def test_the_format_table_names_each_format_once() -> None:
    """The CLI's choices are the table's names; an unknown name is a one-line error that lists them."""
    names = [f.name for f in GRADE_FORMATS]
    assert names[0] == "text" and sorted(names) == sorted({"text", "json", "gradescope", "junit", "html"})
    with pytest.raises(Exception, match="gradescope"):
        grade_format("csv")


def test_json_is_an_alias_that_cannot_contradict_format(tmp_path: Path) -> None:
    """`--json` is `--format json`; with another --format it is a usage error, before any grading."""
    done = CliRunner().invoke(cli, ["grade", "--json", "--format", "junit", str(tmp_path), "e", str(tmp_path)])
    assert done.exit_code == 2 and "--json is --format json" in done.output


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("prlimit") is None or shutil.which("setpriv") is None,
                    reason="the sandbox's util-linux tools are missing")
def test_no_namespaces_means_a_failed_run_with_one_line(tmp_path: Path) -> None:
    """bwrap installed but unable to create namespaces (a hosted autograder): exit 2, one line on
    stderr, and results.json a failed run with that line: never a pass, never "tampered with"."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted'"
                                " >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    results = tmp_path / "results" / "results.json"
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "bugsmith", "grade", "--format", "gradescope", "--output",
                           str(results), str(tmp_path), "exercise-01", str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bubblewrap cannot start a sandbox here" in done.stderr
    assert "Creating new namespace failed" in done.stderr
    document = json.loads(results.read_text(encoding="utf-8"))
    VALIDATOR.validate(document)
    assert document["score"] == 0.0 and document["tests"] == []
    assert "Creating new namespace failed" in document["output"] and "tamper" not in document["output"]


def _student_names(grade: Grade):
    """A project test id as the student's results name it (their handout's files)."""
    return HandoutNames(level=grade.handout_level, packages=(grade.problem,)).test_id


@pytest.mark.slow
@requires_bwrap
class TestRealGrades:
    def test_results_json_validates_and_scores_all_or_nothing(self, graded: dict[str, Grade]) -> None:
        """Both grades validate; the pass scores the points, the fail 0; every test listed once."""
        assert graded["pass"].passed and not graded["fail"].passed
        for key, points in (("pass", 2.5), ("fail", 2.5)):
            document = gradescope_results(graded[key], points=points, process_lines=PROCESS)
            VALIDATOR.validate(document)
            assert document["score"] == (2.5 if key == "pass" else 0.0)
            shown = _student_names(graded[key])  # the student's own file names: auc/tests/...
            assert sorted(t["name"] for t in document["tests"]) == sorted(shown(t.id) for t in graded[key].tests)
            failing = {shown(t.id) for t in graded[key].tests if t.outcome != TestOutcome.PASSED}
            assert {t["name"] for t in document["tests"] if t["status"] == "failed"} == failing
            assert not any(line in document["output"] for line in PROCESS)  # the instructor's, not the student's
            assert document["extra_data"]["bugsmith"]["process"] == list(PROCESS)
            assert document["stdout_visibility"] == "hidden"
        assert "FAIL: some tests fail" in gradescope_results(graded["fail"])["output"]

    def test_held_back_tests_wait_for_publication_and_never_show_a_message(
            self, graded: dict[str, Grade], auc_exercises, auc_pack) -> None:
        """Held-back tests are after_published; their names stay out of the summary, and no
        held-back message, held-back assertion or line of the fix is anywhere in the file."""
        failing = graded["fail"]
        document = gradescope_results(failing)
        text = json.dumps(document, ensure_ascii=False)
        held_back = [t for t in failing.tests if t.hidden]
        assert held_back and any(t.message for t in held_back if t.outcome != TestOutcome.PASSED)
        by_name = {t["name"]: t for t in document["tests"]}
        names = HandoutNames(level=failing.handout_level, packages=(failing.problem,))
        assert failing.handout_level == "reference"  # a built-in problem's handout drops `reference/`
        for test in failing.tests:
            entry = by_name[names.test_id(test.id)]
            assert entry["visibility"] == ("after_published" if test.hidden else "visible")
            if test.hidden:
                assert test.id not in document["output"] and names.test_id(test.id) not in document["output"]
                if test.message:
                    assert test.message not in text and names.markdown(test.message) not in text
            elif test.message and test.outcome != TestOutcome.PASSED:
                assert names.markdown(test.message) in entry["output"]
        exercise = auc_exercises[0]
        assert _fix_lines(exercise) and not any(line in text for line in _fix_lines(exercise))
        asserts = _held_back_asserts(auc_pack, exercise)
        assert asserts and not any(line in text for line in asserts)

    def test_junit_matches_the_grade(self, graded: dict[str, Grade]) -> None:
        """One suite, one case per test plus the verdict, failures where the grade has them, held-back
        tests included and named, the process lines as properties."""
        for key in ("pass", "fail"):
            result = graded[key]
            root = ET.fromstring(junit_grade(result, process_lines=PROCESS))
            (suite,) = root.findall("testsuite")
            cases = suite.findall("testcase")
            assert suite.get("name") == result.exercise_id and suite.get("tests") == str(len(result.tests) + 1)
            tests = [c for c in cases if c.get("classname") != VERDICT_CLASS]
            ids = [f"{c.get('file')}::{c.get('name')}" for c in tests]
            assert sorted(ids) == sorted(t.id for t in result.tests)
            assert all(c.get("classname") == c.get("file").removesuffix(".py").replace("/", ".") for c in tests)
            failed = {t.id for t in result.tests if t.outcome == TestOutcome.FAILED}
            assert {i for i, c in zip(ids, tests) if c.find("failure") is not None} == failed
            (verdict,) = [c for c in cases if c.get("classname") == VERDICT_CLASS]
            assert (verdict.find("failure") is None) == result.passed
            assert suite.get("failures") == str(len(failed) + (not result.passed))
            properties = [(p.get("name"), p.get("value")) for p in suite.find("properties")]
            assert [v for n, v in properties if n == "held_back"] == [t.id for t in result.tests if t.hidden]
            assert [v for n, v in properties if n == "process"] == list(PROCESS)
            assert result.exercise_id in suite.find("system-out").text

    def test_the_cli_writes_the_file_and_prints_the_summary(self, graded: dict[str, Grade], auc_exercises, auc_pack,
                                                             tmp_path: Path) -> None:
        """`--format gradescope --output FILE`: the file validates, standard output is the text
        summary, and the exit status is the grade's."""
        exercise = auc_exercises[0]
        folder = submission(auc_pack.candidate, exercise, tmp_path / "unfixed")
        results = tmp_path / "results" / "results.json"
        done = CliRunner().invoke(cli, ["grade", "--format", "gradescope", "--output", str(results), "--points", "3",
                                        str(auc_pack.instructor), exercise.id, str(folder)])
        assert done.exit_code == 1, done.output
        document = json.loads(results.read_text(encoding="utf-8"))
        VALIDATOR.validate(document)
        assert document["score"] == 0.0 and done.output.startswith(f"{exercise.id} ({exercise.problem}): FAIL")
        assert grade_format("text").render(graded["fail"], FormatOptions()).splitlines()[0] == done.output.splitlines()[0]
        assert document["extra_data"]["bugsmith"]["process"] == process_lines(graded["fail"].process)
        assert "Process: 0 test runs recorded in your log; log ok." in document["output"]  # the empty log as shipped
        assert "the fix:" not in document["output"] and "the fix:" in done.output  # the text summary is the instructor's

    def test_the_cli_gives_junit_the_process_summary(self, graded: dict[str, Grade], auc_exercises, auc_pack,
                                                     tmp_path: Path) -> None:
        """`--format junit`: one `process` property per line of the instructor's process summary."""
        exercise = auc_exercises[0]
        folder = submission(auc_pack.candidate, exercise, tmp_path / "fixed", fixed=True)
        report = tmp_path / "junit.xml"
        done = CliRunner().invoke(cli, ["grade", "--format", "junit", "--output", str(report),
                                        str(auc_pack.instructor), exercise.id, str(folder)])
        assert done.exit_code == 0, done.output
        suite = ET.fromstring(report.read_text(encoding="utf-8")).find("testsuite")
        lines = [p.get("value") for p in suite.find("properties") if p.get("name") == "process"]
        assert lines == process_lines(graded["pass"].process) and len(lines) >= 2
        assert lines[0].startswith("from the candidate's own log") and lines[-1].startswith("change ")


def test_a_student_reads_test_ids_as_their_own_files_name_them() -> None:
    """A built-in problem's handout drops `reference/`: the ids and messages a student reads on
    Gradescope name `auc/tests/...` and `auc.`, the files they have, while the grade keeps the
    project's paths."""
    tests = (TestResult(id="reference/auc/tests/test_auc_visible.py::test_shown", hidden=False,
                        outcome=TestOutcome.FAILED, message="in reference/auc/auc.py: reference.auc.roc_curve failed"),)
    grade = Grade(exercise_id="exercise-01", problem="auc", tests=tests, fix="none", diff_lines=1, timed_out=False,
                  duration=1.0, handout_level="reference")
    (entry,) = gradescope_results(grade)["tests"]
    assert entry["name"] == "auc/tests/test_auc_visible.py::test_shown"
    assert "reference" not in entry["output"] and "auc/auc.py" in entry["output"]
    assert grade.to_dict()["tests"][0]["id"].startswith("reference/auc/")
    kept = dataclasses.replace(grade, handout_level="")
    assert gradescope_results(kept)["tests"][0]["name"] == tests[0].id
