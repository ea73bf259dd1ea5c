"""Handed-out code gives nothing away: over packs of several problems at every level, no comment
or docstring near a medium or hard exercise's bug says what the bug contradicts, none anywhere
speaks of references, candidates, mutants, bugs or grading, the removals leave no trace, the
instructor's handout/ is the candidate's code byte for byte, and a fix that restores the code
is still recognised as the reference's."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.evaluate import combined_source
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.judge.grading import _fix_kind
from bugsmith.harness.exercises.measure.clues import code_shape, relocated
from bugsmith.harness.exercises.measure.intent import stated_intents
from bugsmith.harness.exercises.pack.pack import export
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.catalogue import reference_names
from bugsmith.harness.exercises.sources.handout_names import corpus_names

pytestmark = pytest.mark.slow

PROBLEMS = tuple(reference_names(builtin_root())[::3])  # three problems, whatever the corpus holds
LEVELS = ("easy", "medium", "hard")
WORDS = re.compile(r"\b(candidates?|mutants?|mutation|references?|grading|grader|graded|bugs?|buggy)\b", re.I)


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> list[tuple[str, Exercise, Path]]:
    """One pack per level over PROBLEMS (an exercise of each, where the problem has that level)."""
    found = []
    for level in LEVELS:
        options = ExerciseOptions(problems=PROBLEMS, count=len(PROBLEMS), seed=0, difficulty=level)
        exercises = build_exercises(options, root=builtin_root(), jobs=2)
        pack = export(exercises, tmp_path_factory.mktemp(level) / "pack", root=builtin_root(), options=options)
        found += [(level, exercise, pack.candidate.parent) for exercise in exercises]
    return found


def _prose(source: str) -> list[tuple[int, str]]:
    """Every comment and docstring of `source`, with its line."""
    found = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
             if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                found.append((node.body[0].lineno, text))
    return found


def _named(exercise: Exercise, path: str) -> str:
    """Where the candidate's folder has the project's file `path` (`reference/auc/auc.py` -> `auc/auc.py`)."""
    return corpus_names(exercise.problem).path(path)


def _code(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*.py")) if "tests" not in p.relative_to(folder).parts}


def test_the_sweep_has_every_level(packs):
    """The packs hold an exercise of each level, each of the level asked for."""
    assert {level for level, _, _ in packs} == set(LEVELS)
    assert all(exercise.difficulty.level == level for level, exercise, _ in packs)


def test_the_instructor_handout_is_the_candidates_code(packs):
    """handout/ holds exactly the code files the candidate got, byte for byte."""
    for _, exercise, root in packs:
        handout = _code(root / "instructor" / exercise.id / "handout")
        candidate = _code(root / "candidate" / exercise.id)
        assert handout == {path: candidate[path] for path in handout}


def test_no_handout_comment_speaks_of_references_candidates_mutants_bugs_or_grading(packs):
    for _, exercise, root in packs:
        for path, source in _code(root / "candidate" / exercise.id).items():
            said = [(line, WORDS.search(text).group(0)) for line, text in _prose(source) if WORDS.search(text)]
            assert said == [], (exercise.id, path)


def test_medium_and_hard_handouts_state_no_intent_near_their_bugs(packs):
    """intent.py's own reading of the handed-out file finds no sentence that the bug contradicts,
    and the evidence of the level says so."""
    checked = 0
    for level, exercise, root in packs:
        if level == "easy":
            continue
        assert not any(found.intent for found in exercise.findability)
        for mutant in exercise.mutants:
            handout = (root / "candidate" / exercise.id / _named(exercise, mutant.file)).read_text(encoding="utf-8")
            buggy = combined_source(exercise.reference[mutant.file], [m for m in exercise.mutants if m.file == mutant.file])
            line = relocated(mutant.span.line, buggy, handout)
            end = relocated(mutant.span.end_line, buggy, handout)
            assert stated_intents(handout, mutant, line=line, end_line=end) == ()
            checked += 1
    assert checked


def test_removals_leave_no_trace(packs):
    """Every handed-out file parses, has no empty comment or docstring, and no blank line at the
    top of a block or doubled inside one that its reference did not have."""
    for _, exercise, root in packs:
        for path, reference in exercise.reference.items():
            handout = (root / "candidate" / exercise.id / _named(exercise, path)).read_text(encoding="utf-8")
            ast.parse(handout)
            assert all(text.strip("#").strip() for _, text in _prose(handout)), path
            for pattern in (r":\n[ \t]*\n", r"\n[ \t]+\n[ \t]*\n[ \t]+\S"):
                assert len(re.findall(pattern, handout)) <= len(re.findall(pattern, reference)), (path, pattern)


def _fixed(exercise: Exercise, path: str, handout: str) -> str:
    """The handout with its bugs taken back at their places (the clue removals stay)."""
    buggy = combined_source(exercise.reference[path], [m for m in exercise.mutants if m.file == path])
    lines = handout.splitlines(keepends=True)
    for mutant in sorted((m for m in exercise.mutants if m.file == path), key=lambda m: -m.span.line):
        start = sum(len(text) for text in lines[:relocated(mutant.span.line, buggy, handout) - 1])
        at = handout.index(mutant.mutated, start + mutant.span.column) if mutant.mutated else start + mutant.span.column
        handout = handout[:at] + mutant.original + handout[at + len(mutant.mutated):]
        lines = handout.splitlines(keepends=True)
    return handout


def test_a_fix_of_the_handout_is_still_the_reference(packs):
    """Taking the bug back in the handed-out file gives the reference's code: the grader calls
    it the reference's fix (its comparison ignores comments; docstrings need `code_shape`)."""
    for _, exercise, root in packs:
        code = {}
        for path in exercise.reference:
            handout = (root / "candidate" / exercise.id / _named(exercise, path)).read_text(encoding="utf-8")
            code[path] = _fixed(exercise, path, handout)
            assert code_shape(code[path]) == code_shape(exercise.reference[path]), (exercise.id, path)
        docstrings_kept = all(ast.dump(ast.parse(code[p])) == ast.dump(ast.parse(exercise.reference[p]))
                              for p in exercise.reference)
        if docstrings_kept:
            assert _fix_kind(code, exercise, passed=True) == "reference"


def test_hard_statements_tell_only_how_many_tests_fail(packs):
    for level, exercise, root in packs:
        readme = (root / "candidate" / exercise.id / "README.md").read_text(encoding="utf-8")
        symptom = readme[readme.index("## The symptom"):readme.index("## The problem")]
        names = [s.test.split("::", 1)[1] for s in exercise.symptoms]
        if level == "hard":
            count = len(exercise.symptoms)
            told = ("One of the visible tests fails. Run it" if count == 1 else f"{count} of the visible tests fail. Run them")
            assert f"{told} with `python -m pytest`." in symptom
            assert not any(name in symptom for name in names)
        else:
            assert all(name in symptom for name in names)
