"""Handouts read as a codebase of their own. Over packs of every built-in problem at the easy and
hard levels, and the packs of `--candidates 2`: no handed-out file (the candidate part, and the
instructor's handout/ copies) speaks of references, candidates, mutants or grading or imports
`reference.`; the package is named for the problem; and the handed-out tests, run in a copy of
the folder as a candidate runs them, pass once the pack's solution.patch is applied and fail, on
exactly the visible tests the exercise fails, as handed out."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.judge.attempt_log import LOG, apply_diff
from bugsmith.harness.exercises.pack.candidates import export_candidates
from bugsmith.harness.exercises.pack.pack import PackPaths, export, load_exercise
from bugsmith.harness.exercises.records import Exercise, is_hidden_test
from bugsmith.harness.exercises.sources.catalogue import reference_names
from bugsmith.harness.exercises.sources.handout_names import corpus_names

pytestmark = pytest.mark.slow

ROOT = builtin_root()
PROBLEMS = tuple(reference_names(ROOT))
LEVELS = ("easy", "hard")
WORDS = re.compile(r"\b(referenc|candidate|mutant|mutat|grading|grader)", re.I)
START = ".attempt/start.json"


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> list[tuple[Exercise, Path]]:
    """Every exercise of the sweep with the folder holding its pack's `candidate/` and `instructor/`."""
    found: list[tuple[Exercise, Path]] = []
    for level in LEVELS:
        options = ExerciseOptions(problems=PROBLEMS, count=len(PROBLEMS), seed=0, difficulty=level)
        exercises = build_exercises(options, root=ROOT, jobs=2)
        pack = export(exercises, tmp_path_factory.mktemp(level) / "pack", root=ROOT, options=options)
        found += [(exercise, pack.candidate.parent) for exercise in exercises]
    options = ExerciseOptions(problems=("auc",), count=2, seed=0)
    exercises = build_exercises(options, root=ROOT, jobs=2)
    written: list[PackPaths] = export_candidates(exercises, tmp_path_factory.mktemp("candidates") / "packs",
                                                 root=ROOT, candidates=2, seed=0, options=options)
    for pack in written:
        for record in sorted(pack.instructor.glob("*/exercise.json")):
            found.append((load_exercise(pack.instructor, record.parent.name), pack.candidate.parent))
    return found


def _handed_out(root: Path) -> dict[str, str]:
    """Every handed-out file of a pack (by its path in the pack): the candidate part and the
    instructor's handout/ copies."""
    files = [p for p in (root / "candidate").rglob("*") if p.is_file()]
    files += [p for p in (root / "instructor").glob("*/handout/**/*") if p.is_file()]
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(files)}


def _words(path: str, text: str) -> str:
    """The words a file says: all of it, but for Python only its comments and strings (docstrings
    among them; its names are code, such as a tree's `candidates` splits), and for the record of
    the code as handed out its own fields (its code is the folder's, checked there)."""
    if path.endswith(".py"):
        return "\n".join(t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                         if t.type in (tokenize.COMMENT, tokenize.STRING))
    if path.endswith(START):
        return json.dumps({k: v for k, v in json.loads(text).items() if k != "code"})
    return text


def _imports(text: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_the_sweep_covers_every_problem_both_levels_and_the_candidates_packs(packs):
    assert {exercise.problem for exercise, _ in packs} == set(PROBLEMS)
    assert {exercise.difficulty.level for exercise, _ in packs} >= set(LEVELS)
    assert sum(bool(exercise.variant) for exercise, _ in packs) == 2  # one exercise per candidate's pack


def test_no_handed_out_file_speaks_of_references_candidates_mutants_or_grading(packs):
    """Names of files and folders, Markdown, configuration, the recorder, and the code's comments,
    docstrings and strings: none has the words (as a whole word or a prefix, in any case)."""
    checked = 0
    for root in sorted({root for _, root in packs}):
        for path, text in _handed_out(root).items():
            said = sorted({m.group(0) for m in WORDS.finditer(_words(path, text))})
            assert said == [], (root.name, path, said)
            assert not WORDS.search(path.split("/", 1)[1]), path
            checked += 1
    assert checked


def test_the_package_is_named_for_the_problem_and_nothing_imports_reference(packs):
    """`<problem>/` holds the code and the visible tests, which import `<problem>`; the problem
    statement names that import; the record of the code as handed out is the folder's code."""
    for exercise, root in packs:
        folder = root / "candidate" / exercise.id
        assert (folder / exercise.problem / "__init__.py").is_file() and not (folder / "reference").exists()
        assert any(p.name.endswith("_visible.py") for p in (folder / exercise.problem / "tests").iterdir())
        for path in [*folder.rglob("*.py"), *(root / "instructor" / exercise.id / "handout").rglob("*.py")]:
            modules = _imports(path.read_text(encoding="utf-8"))
            assert not [m for m in modules if m.split(".")[0] == "reference"], path
        readme = (folder / "README.md").read_text(encoding="utf-8")
        assert f"from {exercise.problem} import " in readme and f"`{exercise.problem}/`" in readme
        start = json.loads((folder / START).read_text(encoding="utf-8"))
        assert start["code"] == {p: (folder / p).read_text(encoding="utf-8") for p in start["code"]}
        assert start["scan"]["folder"] == exercise.problem


def _pytest(folder: Path) -> tuple[int, dict[str, str]]:
    """`python -m pytest` in `folder` with this interpreter, as a candidate runs it: its exit status
    and each test's outcome, read from the line the folder's recorder wrote."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = (folder / LOG).read_text(encoding="utf-8").splitlines()
    assert lines, done.stdout + done.stderr
    return done.returncode, json.loads(lines[-1])["outcomes"]


def _runs(exercise: Exercise, root: Path, work: Path) -> tuple[tuple[int, dict[str, str]], tuple[int, dict[str, str]]]:
    """The handed-out tests on the folder as handed out, and on a copy with solution.patch applied."""
    handed = Path(shutil.copytree(root / "candidate" / exercise.id, work / "handed"))
    fixed = Path(shutil.copytree(root / "candidate" / exercise.id, work / "fixed"))
    patch = (root / "instructor" / exercise.id / "solution.patch").read_text(encoding="utf-8")
    files = {line[6:] for line in patch.splitlines() if line.startswith("+++ b/")}
    for path, text in apply_diff({p: (fixed / p).read_text(encoding="utf-8") for p in files}, patch).items():
        (fixed / path).write_text(text, encoding="utf-8")
    return _pytest(handed), _pytest(fixed)


def test_the_handed_out_tests_pass_on_the_fix_and_fail_on_the_handout(packs, tmp_path):
    """The renaming is coherent: the fixed folder is all green; the folder as handed out fails the
    exercise's visible FAIL_TO_PASS tests, named as the folder names them, and nothing else."""
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda item: _runs(item[1][0], item[1][1], tmp_path / str(item[0])),
                                enumerate(packs)))
    for (exercise, _), ((handed_status, handed), (fixed_status, fixed)) in zip(packs, results, strict=True):
        names = corpus_names(exercise.problem)
        failing = {names.test_id(t) for t in exercise.fail_to_pass if not is_hidden_test(t)}
        assert fixed_status == 0 and set(fixed.values()) <= {"passed", "skipped"}, (exercise.instance_id, fixed)
        assert {t for t, outcome in handed.items() if outcome in ("failed", "error")} == failing, exercise.instance_id
        assert handed_status == (1 if failing else 0) and set(handed) == set(fixed)
