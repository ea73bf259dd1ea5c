"""Which files of a problem go where: the candidate's folder, the grader's kit, the handout.

The grader's kit and the code of the records keep the project's own relative paths, so the
tests import the code as they do in the project (`reference.<name>` in the corpus, `mylib` from
`src/` in a src layout). What is handed out (`candidate_tree`, `handout_code`) is named as the
handout names it (`handout_names`: a built-in problem without its `reference/` level).
"""

from __future__ import annotations

from pathlib import Path

from bugsmith.harness.evaluate import combined_source
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.catalogue import problem_named
from bugsmith.harness.exercises.sources.handout_names import handout_names
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.harness.exercises.sources.told_code import told_code, told_line
from bugsmith.harness.exercises.sources.told_statement import told_statement
from bugsmith.mutators.mutant import Mutant


def _read(problem: Problem, paths: tuple[str, ...]) -> dict[str, str]:
    return {path: problem.read(path) for path in paths}


def _problem(root: Path | Problem, name: str) -> Problem:
    # A Problem, or a root to look the problem up in (the older signature: one lookup per call).
    return root if isinstance(root, Problem) else problem_named(root, name)


def code_files(root: Path | Problem, problem: str = "") -> dict[str, str]:
    """The problem's code (in the corpus, with problem.md), as the project has it."""
    found = _problem(root, problem)
    return _read(found, found.code)


def visible_tests(root: Path | Problem, problem: str = "") -> dict[str, str]:
    found = _problem(root, problem)
    return _read(found, found.visible)


def buggy_code(root: Path | Problem, exercise: Exercise) -> dict[str, str]:
    """The problem's code with the exercise's bugs in it."""
    files = code_files(_problem(root, exercise.problem))
    files.update(exercise.variant)
    files.update(exercise.buggy)
    return files


def _told(problem: Problem, exercise: Exercise, files: dict[str, str]) -> dict[str, str]:
    # problem.md is one of the corpus's code files: the folder's copy must tell no more than the README.
    level = exercise.difficulty.level
    if problem.statement in files:
        files[problem.statement] = told_statement(files[problem.statement], level)
    for path in problem.code:
        if path.endswith(".py") and path in files:
            files[path] = told_code(files[path], level)
    return files


def shown_line(exercise: Exercise, mutant: Mutant) -> int:
    """The line of `mutant` in its file as handed out: the bugs above it in the file may have
    added or removed lines, and a medium or hard handout has lost its prose."""
    same_file = [m for m in exercise.mutants if m.file == mutant.file]
    shift = sum(m.mutated.count("\n") - m.original.count("\n") for m in same_file if m.span.line < mutant.span.line)
    buggy = combined_source(exercise.reference[mutant.file], same_file)
    return told_line(buggy, exercise.difficulty.level, mutant.span.line + shift)


def told_buggy_code(root: Path | Problem, exercise: Exercise) -> dict[str, str]:
    """`buggy_code` as the exercise's level tells it (a medium or hard one without the code's prose,
    a hard one without the detailed rules too),
    under the project's paths."""
    problem = _problem(root, exercise.problem)
    return _told(problem, exercise, buggy_code(problem, exercise))


def handout_code(root: Path | Problem, exercise: Exercise) -> dict[str, str]:
    """`told_buggy_code` as handed out (the instructor's handout/ copy, the start of the record of test runs)."""
    problem = _problem(root, exercise.problem)
    return handout_names(problem).handout_files(told_buggy_code(problem, exercise))


def candidate_tree(root: Path | Problem, exercise: Exercise) -> dict[str, str]:
    """One candidate exercise folder as handed out: buggy code, visible tests, what they need; no README."""
    problem = _problem(root, exercise.problem)
    files = buggy_code(problem, exercise)
    files.update(_read(problem, problem.visible + problem.support))
    files.update(problem.candidate_glue)
    return handout_names(problem).handout_files(_told(problem, exercise, files))


def grader_kit(root: Path | Problem, exercise: Exercise | str) -> dict[str, str]:
    """What grading adds to a submission's code: every test and what the tests need.

    `exercise` is an exercise, or the name of its problem."""
    problem = _problem(root, exercise if isinstance(exercise, str) else exercise.problem)
    files = _read(problem, problem.visible + problem.hidden + problem.support + problem.grader_support)
    files.update(problem.grader_glue)
    return files
