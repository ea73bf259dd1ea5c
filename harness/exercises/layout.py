"""Which files of a problem are its code, its visible tests, and its held-back test kit.

A problem is `reference/<name>/`: code modules, `problem.md`, `strategies.py` (input
generators of the held-back tests) and `tests/` with `test_*_visible.py` and
`test_*_hidden.py`. Packs keep the `reference.<name>` import path, so every test runs as is.
"""

from __future__ import annotations

from pathlib import Path

from harness.exercises.records import Exercise, is_hidden_test

# The candidate's `reference/__init__.py`: the corpus's own one says "correct reference".
PACKAGE_INIT = '"""The code under test."""\n'
CONFTEST = "reference/conftest.py"
# The candidate's conftest: the suites' hypothesis settings without the corpus's comments,
# which talk about the mutation machinery.
CANDIDATE_CONFTEST = '''"""Hypothesis settings: few examples, the same ones on every run."""
from hypothesis import HealthCheck, settings

settings.register_profile(
    "exercise",
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.load_profile("exercise")
'''
CANDIDATE_PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\ntestpaths = reference\n"
GRADER_PYTEST_INI = (
    "[pytest]\naddopts = -p no:cacheprovider\ntestpaths = reference\n"
    "markers =\n    hidden: held back from candidates; used to grade a fix\n"
)


def _files(root: Path, problem: str) -> dict[str, str]:
    folder = root / "reference" / problem
    if not (folder / "problem.md").is_file():
        raise FileNotFoundError(folder / "problem.md")
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".md") and "__pycache__" not in path.parts:
            found[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return found


def is_test_kit(relative: str) -> bool:
    """Tests and their input strategies: never code a candidate is asked to fix."""
    parts = relative.split("/")
    return "tests" in parts[2:] or parts[-1] in ("strategies.py", "conftest.py")


def code_files(root: Path, problem: str) -> dict[str, str]:
    """The problem's code (and problem.md), as the reference has it."""
    return {p: t for p, t in _files(root, problem).items() if not is_test_kit(p)}


def visible_tests(root: Path, problem: str) -> dict[str, str]:
    return {p: t for p, t in _files(root, problem).items()
            if is_test_kit(p) and "/tests/" in p and not is_hidden_test(p)}


def test_kit(root: Path, problem: str) -> dict[str, str]:
    """Every test file and helper the grader needs (visible and held back)."""
    kit = {p: t for p, t in _files(root, problem).items() if is_test_kit(p)}
    kit[CONFTEST] = (root / CONFTEST).read_text(encoding="utf-8")
    return kit


def buggy_code(root: Path, exercise: Exercise) -> dict[str, str]:
    """The problem's code with the exercise's bugs in it."""
    files = code_files(root, exercise.problem)
    files.update(exercise.buggy)
    return files


def candidate_tree(root: Path, exercise: Exercise) -> dict[str, str]:
    """One candidate exercise folder: buggy code, visible tests, the package glue; no README."""
    files = buggy_code(root, exercise)
    files.update(visible_tests(root, exercise.problem))
    files["reference/__init__.py"] = PACKAGE_INIT
    files[CONFTEST] = CANDIDATE_CONFTEST
    files["pytest.ini"] = CANDIDATE_PYTEST_INI
    return files


def grader_kit(root: Path, exercise: Exercise) -> dict[str, str]:
    """What grading adds to a submission's code: every test, the package glue."""
    files = test_kit(root, exercise.problem)
    files["reference/__init__.py"] = PACKAGE_INIT
    files["pytest.ini"] = GRADER_PYTEST_INI
    return files
