"""The handed-out folder records every test run, however the candidate runs pytest, and never changes the run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.judge.attempt_log import LOG, LogStatus, parse_attempt
from bugsmith.harness.exercises.judge.submission import submitted_code
from bugsmith.harness.exercises.pack.attempt import CONFTEST, RECORDER, START, conftest_text, recorder_text, start_text
from bugsmith.harness.exercises.pack.pack import export
from bugsmith.harness.exercises.records import is_hidden_test
from bugsmith.harness.exercises.sources.handout_names import corpus_names
from bugsmith.harness.exercises.sources.problems import corpus_layout

pytestmark = pytest.mark.slow  # a pack built, pytest run in fresh interpreters

# Words that would make the recorder read as a bug generator's trace (and the pack's leak check's).
GIVEAWAYS = re.compile(r"reference|candidate|mutant|mutation|bug|grading|famil|operator|hint|hidden|solution", re.I)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One auc exercise and its pack as trees: `bugsmith pack export --problem auc --count 1 --seed 0`."""
    options = ExerciseOptions(problems=("auc",), count=1, seed=0)
    exercises = build_exercises(options, root=builtin_root(), jobs=2)
    pack = export(exercises, tmp_path_factory.mktemp("pack") / "pack", root=builtin_root(), options=options)
    return exercises[0], pack


@pytest.fixture
def folder(built, tmp_path) -> Path:
    exercise, pack = built
    return Path(shutil.copytree(pack.candidate / exercise.id, tmp_path / exercise.id))


def _handout(built) -> dict[str, str]:
    """The instructor's copy of the code as handed out, in the candidate folder's names."""
    exercise, pack = built
    handout = pack.instructor / exercise.id / "handout"
    return {p.relative_to(handout).as_posix(): p.read_text() for p in handout.rglob("*.py")}


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}


def _pytest(folder: Path, *args: str, cwd: Path | None = None, command: tuple[str, ...] = ()):
    command = command or (sys.executable, "-m", "pytest")
    return subprocess.run([*command, "-q", *args], cwd=cwd or folder, env=_env(), capture_output=True, text=True,
                          timeout=300)


def _summary(output: str) -> str:
    """pytest's last line without its timing: `3 failed, 18 passed`."""
    return re.sub(r" in [0-9.]+s.*", "", output.strip().splitlines()[-1]).strip("= ")


def test_every_way_of_running_pytest_appends_one_verified_line(built, folder):
    """The whole suite, one node id, `-k` from a subfolder, the `pytest` script from a subfolder: a line
    each, naming files and tests as the folder does (`auc/...`)."""
    exercise, _ = built
    names = corpus_names(exercise.problem)
    visible = {names.test_id(t) for t in (*exercise.fail_to_pass, *exercise.pass_to_pass) if not is_hidden_test(t)}
    failing = sorted(names.test_id(t) for t in exercise.fail_to_pass if names.test_id(t) in visible)
    tests = folder / exercise.problem / "tests"
    script = Path(sys.executable).with_name("pytest")
    runs = [((), folder, ()), ((failing[0],), folder, ()), (("-k", "weight"), tests, ())]
    if script.is_file():
        runs.append(((), tests, (str(script),)))
    for count, (args, cwd, command) in enumerate(runs, 1):
        done = _pytest(folder, *args, cwd=cwd, command=command)
        log = parse_attempt((folder / LOG).read_text(), _handout(built))
        assert log.status == LogStatus.OK and len(log.runs) == count, done.stdout + done.stderr
        run = log.runs[-1]
        assert run.exit_status == done.returncode and run.args == ("-q", *args) and run.note == ""
        assert run.code == _handout(built)
        assert run.cwd == cwd.relative_to(folder).as_posix()
    whole, alone, keyword = log.runs[:3]
    assert set(whole.selected) == visible and sorted(t for t, o in whole.outcomes.items() if o == "failed") == failing
    assert alone.selected == (failing[0],) and alone.outcomes == {failing[0]: "failed"}
    assert keyword.selected and all("weight" in t for t in keyword.selected)


def test_a_recorder_that_cannot_write_leaves_the_run_as_it_was(folder):
    """No log to append to (a folder in its place, a read-only .attempt/): pytest's own exit status and
    summary, and nothing written."""
    normal = _pytest(folder)
    (folder / LOG).unlink()
    (folder / LOG).mkdir()
    (folder / LOG).parent.chmod(0o555)  # stops a user who is not root; the folder in the way stops root too
    try:
        blocked = _pytest(folder)
    finally:
        (folder / LOG).parent.chmod(0o755)
    assert blocked.returncode == normal.returncode == 1
    assert _summary(blocked.stdout) == _summary(normal.stdout) and blocked.stderr == normal.stderr
    assert list((folder / LOG).iterdir()) == []


def test_a_crash_in_the_recorder_is_noted_and_the_run_goes_on(folder):
    """start.json unreadable: the run ends as usual, and its line says what failed and holds no code."""
    normal = _pytest(folder)
    (folder / START).write_text("{not json")
    crashed = _pytest(folder)
    assert crashed.returncode == normal.returncode and _summary(crashed.stdout) == _summary(normal.stdout)
    rows = [json.loads(row) for row in (folder / LOG).read_text().splitlines()]
    assert len(rows) == 2 and rows[1]["code"] is None and rows[1]["note"].startswith("code: JSONDecodeError")
    assert rows[1]["prev"] == rows[0]["digest"] and rows[1]["exit"] == 1


def test_collecting_without_running_is_not_a_test_run(folder):
    """`--collect-only` runs nothing, so it adds no line."""
    assert _pytest(folder, "--collect-only").returncode == 0
    assert (folder / LOG).read_text() == ""


def test_the_recorder_says_what_it_keeps_and_nothing_about_the_exercise(built, folder):
    """The README tells the candidate; the recorder's own files name no bug, grading or held-back test."""
    exercise, _ = built
    readme = (folder / "README.md").read_text()
    assert "recorded in `.attempt/`" in readme and "Nothing else is kept" in readme
    for path in (RECORDER, CONFTEST):
        assert GIVEAWAYS.findall((folder / path).read_text()) == [], path
    start = json.loads((folder / START).read_text())
    assert set(start["code"]) == {p for p in _handout(built)}
    assert not any(t.split("::")[0] in (folder / START).read_text() for t in exercise.fail_to_pass if is_hidden_test(t))


def test_the_grader_reads_no_recorder_file(built, folder):
    """The recorder's files are never code, and the grader's kit has no conftest that would load it; the
    code is read back under the project's names."""
    exercise, pack = built
    _pytest(folder)
    names = corpus_names(exercise.problem)
    handout = names.project_files(_handout(built))
    code = submitted_code(folder, exercise, corpus_layout(exercise.problem), handout, names)
    assert set(code) == set(handout) and all(path.startswith("reference/auc/") for path in code)
    kit = pack.instructor / exercise.id / "tests"
    assert not (kit / CONFTEST).exists() and not (kit / ".attempt").exists()


PROJECT_CONFTEST = '''import pytest


def pytest_configure(config):
    config.project_configured = True


@pytest.fixture
def answer():
    return 42
'''


def test_a_projects_own_root_conftest_keeps_working_and_records(tmp_path):
    """A project whose root conftest.py has its own pytest_configure and fixtures: both still work, and
    the run is recorded (the loader is added to that file, not put beside it)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (tmp_path / CONFTEST).write_text(conftest_text(PROJECT_CONFTEST))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_it.py").write_text(
        "def test_configured(request, answer):\n    assert request.config.project_configured and answer == 42\n")
    code = {"calc.py": "X = 1\n"}
    (tmp_path / "calc.py").write_text("X = 2\n")
    (tmp_path / ".attempt").mkdir()
    (tmp_path / RECORDER).write_text(recorder_text())
    (tmp_path / START).write_text(start_text(code, None))
    (tmp_path / LOG).write_text("")
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    log = parse_attempt((tmp_path / LOG).read_text(), code)
    assert log.status == LogStatus.OK and [run.code for run in log.runs] == [{"calc.py": "X = 2\n"}]
    assert log.runs[0].outcomes == {"tests/test_it.py::test_configured": "passed"}
