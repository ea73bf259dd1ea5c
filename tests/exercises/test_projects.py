"""Exercises, packs and grades from a user's own src-layout project, configured by pyproject.toml."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bugsmith.errors import ConfigError
from bugsmith.harness.cli import cli, main
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.assemble.selection import ProblemBuilder
from bugsmith.harness.exercises.judge.grading import grade
from bugsmith.harness.exercises.judge.scoring import score_tests
from bugsmith.harness.exercises.pack.archive import extract_pack
from bugsmith.harness.exercises.pack.instances import schema
from bugsmith.harness.exercises.pack.pack import export
from bugsmith.harness.exercises.records import Difficulty, Exercise, ExerciseError
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.harness.exercises.sources.layout import candidate_tree
from bugsmith.harness.exercises.sources.pytest_config import (
    PytestConfig,
    exercise_config,
    find_config,
    with_addopts,
    with_pythonpath,
)
from bugsmith.mutators import registry
from tests.exercises.fail_to_pass import check_fail_to_pass
from tests.exercises.leaks import revealed
from tests.exercises.userproject import CORE, make_project
from tests.grading.submissions import requires_bwrap

OPTIONS = ExerciseOptions(count=2, seed=1)


def tree_digest(root: Path) -> dict[str, bytes]:
    """Every file of the project but bugsmith's own store."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".bugsmith" not in p.relative_to(root).parts}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("user") / "windowstats")


@pytest.fixture(scope="module")
def untouched(project) -> dict[str, bytes]:
    return tree_digest(project)


@pytest.fixture(scope="module")
def built(project, untouched):
    return build_exercises(OPTIONS, root=project, jobs=2)


@pytest.fixture(scope="module")
def user_pack(built, project, tmp_path_factory):
    return export(built, tmp_path_factory.mktemp("user-pack") / "pack.zip", root=project, options=OPTIONS)


@pytest.fixture(scope="module")
def unpacked(user_pack, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("user-unpacked")
    extract_pack(user_pack.candidate, folder)
    extract_pack(user_pack.instructor, folder)
    return folder


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}


def test_the_project_declares_its_problem_in_pyproject(project):
    """The table gives the statement, the code, the visible tests; the rest is derived."""
    problem = load_problems(project)["core"]
    assert problem.mutate == ("src/windowstats/core.py",)
    # The whole package is handed out, so that `import windowstats` works as in the project.
    assert problem.code == ("src/windowstats/__init__.py", "src/windowstats/_validate.py",
                            "src/windowstats/core.py")
    assert problem.visible == ("tests/test_core.py",)
    assert problem.hidden == ("tests/test_core_more.py",)  # every other test file under `tests`
    assert problem.support == ("tests/conftest.py", "tests/helpers.py")
    assert problem.candidate_glue == {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n'}


@pytest.mark.slow
def test_user_exercises_validate_on_the_project(built):
    """Each exercise has a bug in the configured file, a visible symptom, and a schema-valid id."""
    assert len(built) == 2
    for exercise in built:
        assert exercise.problem == "core" and set(exercise.buggy) == {"src/windowstats/core.py"}
        assert exercise.symptoms and all(s.test.startswith("tests/test_core.py::") for s in exercise.symptoms)
        assert exercise.instance_id.startswith("windowstats__core-")
        assert exercise.reference["src/windowstats/core.py"] == CORE


@pytest.mark.slow
def test_fail_to_pass_fails_on_the_bug_and_passes_on_the_original(built, unpacked, tmp_path):
    """Checked with plain pytest in the grader's kit: the bug fails FAIL_TO_PASS, the original passes it."""
    runs = []
    for exercise in built:
        for label, code in (("bug", exercise.buggy), ("original", exercise.reference)):
            work = tmp_path / f"{exercise.id}-{label}"
            shutil.copytree(unpacked / "instructor" / exercise.id / "tests", work)
            shutil.copytree(unpacked / "instructor" / exercise.id / "handout", work, dirs_exist_ok=True)
            for path, text in code.items():
                (work / path).write_text(text, encoding="utf-8")
            runs.append((exercise, label, work))
    check_fail_to_pass(runs, 120)


@pytest.mark.slow
def test_the_candidate_folder_runs_its_visible_tests_with_plain_pytest(built, unpacked):
    """`python -m pytest` in a handed-out folder imports the src layout and fails the symptom tests."""
    for exercise in built:
        folder = unpacked / "candidate" / exercise.id
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf"],
                              cwd=folder, env=_clean_env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done.stdout + done.stderr
        failed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")}
        assert failed == {s.test for s in exercise.symptoms}
        assert "error" not in done.stdout.splitlines()[-1]


@pytest.mark.slow
def test_the_user_candidate_archive_reveals_nothing(built, user_pack, project):
    """The leak checks of corpus packs hold, and neither bugsmith's table nor held-back tests ship."""
    problem = load_problems(project)["core"]
    assert revealed(built, user_pack.candidate, problem.is_hidden) == []
    extracted = {name for name in candidate_tree(problem, built[0])}
    assert "tests/test_core_more.py" not in extracted and "pyproject.toml" in extracted
    assert "bugsmith" not in candidate_tree(problem, built[0])["pyproject.toml"]


@pytest.mark.slow
def test_exercises_jsonl_of_a_project_matches_the_schema(built, unpacked):
    """Instances name the project as their repo and keep its paths."""
    lines = (unpacked / "instructor" / "exercises.jsonl").read_text().splitlines()
    for line, exercise in zip(lines, built, strict=True):
        data = json.loads(line)
        jsonschema.validate(data, schema())
        assert data["repo"] == "windowstats" and data["instance_id"] == exercise.instance_id
        assert set(data["test_files"]) == {"tests/test_core.py"}
        assert data["patch"].startswith("--- a/src/windowstats/core.py")


@pytest.mark.slow
@requires_bwrap
def test_grading_a_user_pack_passes_the_original_and_fails_the_bug(built, user_pack, unpacked, tmp_path):
    """The grader needs only the pack: the original code passes every test, the handout fails FAIL_TO_PASS."""
    exercise = built[0]
    handout = unpacked / "candidate" / exercise.id
    fixed = tmp_path / "fixed"
    shutil.copytree(handout, fixed)
    (fixed / "src/windowstats/core.py").write_text(CORE, encoding="utf-8")
    (fixed / "src/windowstats/_validate.py").unlink()  # a file the candidate did not touch may be missing
    with ThreadPoolExecutor(2) as pool:
        bad, good = pool.map(lambda folder: grade(user_pack.instructor, exercise.id, folder, timeout=120),
                             [handout, fixed])
    assert good.passed and good.fix == "reference" and good.diff_lines > 0
    assert {t.id for t in good.tests} == {*exercise.fail_to_pass, *exercise.pass_to_pass}
    assert {t.id for t in good.tests if t.hidden} == {t.id for t in good.tests
                                                      if t.id.startswith("tests/test_core_more.py::")}
    assert not bad.passed and bad.fix == "none" and bad.diff_lines == 0
    assert {t.id for t in bad.tests if t.outcome != "passed"} == set(exercise.fail_to_pass)


@pytest.mark.slow
def test_two_exports_of_a_project_are_byte_identical(built, user_pack, project, untouched, tmp_path):
    """Rebuilt from scratch in another checkout with the same seed, both archives are the same bytes;
    and no file of the original project was written."""
    checkout = shutil.copytree(project, tmp_path / "elsewhere" / "checkout",
                               ignore=shutil.ignore_patterns(".bugsmith", ".benchmarks", "__pycache__"))
    again = export(build_exercises(OPTIONS, root=checkout, jobs=2), tmp_path / "pack.zip", root=checkout,
                   options=OPTIONS)
    assert again.candidate.read_bytes() == user_pack.candidate.read_bytes()
    assert again.instructor.read_bytes() == user_pack.instructor.read_bytes()
    assert tree_digest(project) == untouched


@pytest.mark.slow
def test_commands_run_from_inside_the_project_write_only_under_bugsmith(project, untouched, monkeypatch):
    """`cd project && bugsmith exercises`, then `pack export --from`: outputs default to .bugsmith/."""
    monkeypatch.chdir(project)
    runner = CliRunner()
    done = runner.invoke(cli, ["exercises", "--count", "2", "--seed", "1", "--jobs", "2"])
    assert done.exit_code == 0, done.output
    saved = project / ".bugsmith" / "exercises"
    assert (saved / "exercises.json").is_file() and "exercise-02" in done.output
    exported = runner.invoke(cli, ["pack", "export", "--from", str(saved)])
    assert exported.exit_code == 0, exported.output
    assert (project / ".bugsmith" / "pack" / "candidate" / "exercise-01" / "tests" / "test_core.py").is_file()
    assert tree_digest(project) == untouched


BAD_TABLES = [
    ('visible = ["tests/test_core.py"]', 'visible = ["tests/test_core.py"]\ncolour = "red"',
     "unknown key 'colour'"),
    ('statement = "docs/core.md"', 'statement = "docs/nope.md"', "'docs/nope.md': no such file"),
    ('statement = "docs/core.md"', "", "`statement` (the file shown to the candidate) is required"),
    ('visible = ["tests/test_core.py"]', "visible = []", "no visible tests"),
    ('visible = ["tests/test_core.py"]', 'visible = ["docs"]', "no visible tests"),
    ('visible = ["tests/test_core.py"]', 'visible = ["tests/test_core.py"]\nhidden = ["tests/test_core.py"]',
     "is both visible and hidden"),
    ('paths = ["src/windowstats/core.py"]', 'paths = ["../elsewhere"]', "is outside the project"),
    ('paths = ["src/windowstats/core.py"]', 'paths = ["tests"]', "hold no Python code"),
    ("[tool.bugsmith.exercises.core]", "[tool.bugsmith.exercises.Core]", "a problem name is lower-case"),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD_TABLES)
def test_bad_exercise_tables_are_one_line_config_errors(tmp_path, old, new, message):
    """Each mistake in [tool.bugsmith.exercises] names the table and the fix, in one line."""
    root = make_project(tmp_path / "p")
    pyproject = root / "pyproject.toml"
    assert old in pyproject.read_text()
    pyproject.write_text(pyproject.read_text().replace(old, new))
    done = CliRunner().invoke(cli, ["exercises", "--project", str(root), "--count", "1"])
    assert isinstance(done.exception, ConfigError), done.output
    assert message in str(done.exception) and "\n" not in str(done.exception)
    assert "[tool.bugsmith.exercises." in str(done.exception)


def test_a_project_without_exercises_is_an_error_with_exit_2(tmp_path, monkeypatch, capsys):
    """`--project` on a project with no exercise table: one line on stderr, exit status 2."""
    root = make_project(tmp_path / "p")
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text[:text.index("[tool.bugsmith.exercises.core]")])
    monkeypatch.setattr(sys, "argv", ["bugsmith", "pack", "export", "--project", str(root)])
    with pytest.raises(SystemExit) as exit_status:
        main()
    assert exit_status.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no [tool.bugsmith.exercises] table" in err


def built_like(problem):
    """An exercise record with no bug: its candidate tree is the project's code as it is."""
    return Exercise(id="exercise-01", instance_id="x__core-0000000000", problem=problem.name, mutants=(),
                    buggy={}, reference={}, fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                    difficulty=Difficulty(score=1, level="easy"), time_limit_minutes=15)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text", "written"), [
    ("pyproject", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
     ("pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n')),
    ("pytest.ini", "[pytest]\nmarkers =\n    slow: takes long\n",
     ("pytest.ini", "[pytest]\nmarkers = slow: takes long\npythonpath = src\n")),
    ("setup.cfg", "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n",
     ("pytest.ini", "[pytest]\naddopts = -q\npythonpath = src\n")),
    ("tox.ini", "[tox]\nenvlist = py311\n\n[pytest]\ntestpaths = tests\n",
     ("pytest.ini", "[pytest]\ntestpaths = tests\npythonpath = src\n")),
])
def test_a_src_layout_that_relies_on_an_installed_package_gets_a_pythonpath(tmp_path, name, text, written):
    """Nothing is installed in an exercise folder: the pytest configuration is rewritten to import
    from src/, in the project's own format, and the handed-out tree passes its tests."""
    root = tmp_path / "p"
    if name == "pyproject":
        make_project(root, pytest='testpaths = ["tests"]\n')
    else:
        make_project(root, pytest=None)
        (root / name).write_text(text)
    problem = load_problems(root)["core"]
    assert problem.candidate_glue == dict([written])
    # Without the package installed, the project's own suite cannot import it ...
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_core.py"]
    alone = subprocess.run(command, cwd=root, env=_clean_env(), capture_output=True, text=True, timeout=120)
    assert alone.returncode != 0 and "No module named 'windowstats'" in alone.stdout
    # ... but a tree laid out like a candidate's, with the original code, passes.
    folder = tmp_path / "handout"
    no_bug = candidate_tree(problem, built_like(problem))
    for path, content in no_bug.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(content)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=folder,
                          env=_clean_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


WEAK_TESTS = '''
from windowstats import rank


def test_rank_of_the_largest():
    assert rank([1.0, 2.0], 3.0) == 1.0
'''


@pytest.mark.slow
def test_score_runs_a_candidates_tests_against_the_project_problem(project, tmp_path):
    """`bugsmith score` works on a project problem: a one-test suite detects some bugs, misses others."""
    tests = tmp_path / "test_mine.py"
    tests.write_text(WEAK_TESTS)
    result = score_tests("core", tests, root=project, jobs=2, triage=False)
    assert result.tests == 1 and result.score is not None and 0 < result.score < 100
    assert result.survivors
    assert all(s.location.startswith("src/windowstats/core.py:") for s in result.survivors)


@pytest.mark.slow
def test_saved_exercises_do_not_export_once_the_code_changed(built, project, tmp_path):
    """A saved exercise is a patch of the code as it was: exporting it over edited code is refused."""
    copy = shutil.copytree(project, tmp_path / "copy", ignore=shutil.ignore_patterns(".bugsmith"))
    core = copy / "src/windowstats/core.py"
    core.write_text(core.read_text().replace("Share of values", "Fraction of values"))
    with pytest.raises(ExerciseError, match="core.py changed since exercise-01 was built"):
        export(built, tmp_path / "pack", root=copy)


def test_an_unknown_problem_names_the_projects_problems(project):
    """`--problem` must be one of the project's tables; the error lists them."""
    done = CliRunner().invoke(cli, ["exercises", "--project", str(project), "--problem", "nope"])
    assert isinstance(done.exception, ExerciseError) and "choose from core" in str(done.exception)


@pytest.mark.parametrize(("name", "text", "table"), [
    ("pytest.toml", '[pytest]\nminversion = "9.0"\nxfail_strict = true\ntestpaths = ["tests"]\n', "pytest"),
    ("pyproject.toml", '[tool.pytest]\nxfail_strict = true\naddopts = ["-ra"]\n', "tool.pytest"),
])
def test_native_toml_pytest_settings_keep_their_types(tmp_path, name, text, table):
    """pytest 9's native TOML tables are written back as TOML, values typed as they were, plus pythonpath."""
    (tmp_path / name).write_text(text)
    found = find_config(tmp_path)
    written_name, written = exercise_config(with_pythonpath(found, ("src",)))
    assert written_name == name
    values = tomllib.loads(written)
    for part in table.split("."):
        values = values[part]
    expected = tomllib.loads(text)
    for part in table.split("."):
        expected = expected[part]
    assert values == {**expected, "pythonpath": ["src"]}


@pytest.mark.slow
def test_the_projects_pytest_args_go_with_the_exercise(tmp_path):
    """`[tool.bugsmith] pytest-args` validated the exercises, so the candidate's and the grader's
    pytest run with them too: a test the project deselects stays deselected in the handout."""
    root = make_project(tmp_path / "p")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "jobs = 2\n", 'jobs = 2\npytest-args = ["-k", "not needs_network"]\n', 1))
    visible = root / "tests" / "test_core.py"
    visible.write_text(visible.read_text() + "\n\ndef test_needs_network():\n    raise OSError('offline')\n")
    problem = load_problems(root)["core"]
    ((_, written),) = problem.candidate_glue.items()
    assert "-k 'not needs_network'" in written and problem.grader_glue == problem.candidate_glue
    folder = tmp_path / "handout"
    for path, content in candidate_tree(problem, built_like(problem)).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(content)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=folder,
                          env=_clean_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "1 deselected" in done.stdout, done.stdout


@pytest.mark.parametrize(("mode", "table", "present", "expected"), [
    ("ini", "", "-q", "-q -k 'not slow'"),
    ("ini", "", None, "-k 'not slow'"),
    ("toml", "tool.pytest.ini_options", "-ra", "-ra -k 'not slow'"),
    ("toml", "tool.pytest", ["-ra"], ["-ra", "-k", "not slow"]),
    ("toml", "pytest", None, ["-k", "not slow"]),
])
def test_pytest_args_join_addopts_in_the_files_own_form(mode, table, present, expected):
    """A string addopts gets the arguments shell-quoted; a native TOML list gets them as items."""
    values = {} if present is None else {"addopts": present}
    found = PytestConfig(source="x", mode=mode, table=table, values=values)
    assert with_addopts(found, ("-k", "not slow")).values["addopts"] == expected
    assert with_addopts(found, ()) is found


def test_no_exercise_bug_goes_into_a_function_the_module_runs_at_import(tmp_path):
    """A function the module calls while it is imported fails loudly at import when it has a
    bug, and the workers' code swap would not reproduce it: it gives no exercise."""
    root = make_project(tmp_path / "p")
    core = root / "src" / "windowstats" / "core.py"
    core.write_text(core.read_text() + "\n\nONE = trailing_mean([1.0], 1)\n")
    builder = ProblemBuilder(load_problems(root)["core"], OPTIONS, registry.select(()), 1, None)
    functions = {m.function for m in builder.candidates}
    assert "trailing_mean" not in functions and {"rank", "histogram"} <= functions
