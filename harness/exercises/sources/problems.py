"""What an exercise is built from: a problem's code, statement, tests and the files they need.

Two sources give the same record. The built-in corpus has one problem per
`reference/<name>/problem.md` (`reference_problem`); a user's project declares its problems
in `[tool.bugsmith.exercises]` (`harness.exercises.sources.projects`). Everything downstream (the
builder, the statement, the pack, the grader) reads a `Problem`, never a folder layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bugsmith.errors import ConfigError
from bugsmith.harness import config
from bugsmith.harness.exercises.records import ExerciseError, is_hidden_test

REFERENCE = "reference"
PROJECT = "project"
LAYOUT_FORMAT = "bugsmith-layout/1"

# The grader's `reference/__init__.py`: the corpus's own one says "correct reference". A handout
# has no such level (`handout_names`).
PACKAGE_INIT = '"""The code under test."""\n'
CONFTEST = "reference/conftest.py"
# The candidate's conftest (the handout's root conftest.py): the suites' hypothesis settings
# without the corpus's comments, which talk about the mutation machinery.
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
# No testpaths: the handout names its package for the problem, and pytest finds its tests from the root.
CANDIDATE_PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\n"
GRADER_PYTEST_INI = (
    "[pytest]\naddopts = -p no:cacheprovider\ntestpaths = reference\n"
    "markers =\n    hidden: held back from candidates; used to grade a fix\n"
)
REFERENCE_REQUIREMENTS = "Python 3.11 and numpy, pandas, pytest and hypothesis"


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One problem: which files bugs go into, what the candidate gets, what the grader adds.

    Every path is relative to `root` (POSIX). `code` is what a candidate may change: the
    files bugs go into (`mutate`, less `exclude`) and the rest of their package, so that the
    tests import it as the project does. `support` files are handed out as they are
    (conftest.py files, test helpers); `grader_support` files only the grader gets. The
    `*_glue` maps are generated files (package inits, pytest configuration) that replace or
    add to the copied ones. The paths are the project's; a built-in problem's handouts name
    them without `reference/` (`handout_names`).
    """

    name: str
    root: Path
    source: str  # REFERENCE or PROJECT
    mutate: tuple[str, ...]
    exclude: tuple[str, ...]
    test_paths: tuple[str, ...]  # what the builder's runs collect
    code: tuple[str, ...]
    statement: str
    visible: tuple[str, ...]
    hidden: tuple[str, ...]
    support: tuple[str, ...] = ()
    grader_support: tuple[str, ...] = ()
    candidate_glue: dict[str, str] = field(default_factory=dict)
    grader_glue: dict[str, str] = field(default_factory=dict)
    grade_targets: tuple[str, ...] = ()  # what the grader hands to pytest
    location: str = ""  # how the statement names the code, e.g. "`reference/auc/`"
    requirements: str = REFERENCE_REQUIREMENTS  # what a candidate needs installed
    instance_prefix: str = "bugsmith"  # the part of an instance id before "__"
    repo: str = "bugsmith/reference"

    def is_hidden(self, test_id: str) -> bool:
        """Whether a test (a node id or a path) is held back from candidates."""
        return test_id.split("::", 1)[0] in self.hidden

    def read(self, relative: str) -> str:
        try:
            return (self.root / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ExerciseError(f"{self.root / relative}: cannot read as text: {error}") from None

    def layout(self) -> dict[str, Any]:
        """What grading a pack of this problem needs to know, without the project at hand."""
        return {"format": LAYOUT_FORMAT, "problem": self.name, "code": list(self.code),
                "visible": list(self.visible), "hidden": list(self.hidden),
                "targets": list(self.grade_targets)}


def exercise_root(project: Path | None, cwd: Path) -> Path:
    """Where problems come from: `project`, else the project around `cwd` if it declares
    exercises, else the built-in corpus."""
    found = config.find_project((project or cwd).resolve())
    if found is not None and "exercises" in found[1]:
        return found[0]
    if project is not None:
        raise ConfigError(f"{project.resolve()}: no [tool.bugsmith.exercises] table in its pyproject.toml")
    return config.builtin_root()


def default_output(root: Path, name: str) -> Path:
    """The corpus writes under its own generated/; a user's project only in .bugsmith/."""
    if root == config.builtin_root():
        return root / "generated" / name
    return config.make_state_folder(root / config.STORE_DIR) / name


def is_reference_kit(relative: str) -> bool:
    """In the corpus: tests and their input strategies, never code a candidate is asked to fix."""
    parts = relative.split("/")
    return "tests" in parts[2:] or parts[-1] in ("strategies.py", "conftest.py")


def reference_problem(root: Path, name: str) -> Problem:
    """`reference/<name>/`: code modules, problem.md, strategies.py and tests/."""
    folder = root / REFERENCE / name
    if not (folder / "problem.md").is_file():
        raise ExerciseError(f"{folder / 'problem.md'}: no such problem")
    files = [path.relative_to(root).as_posix() for path in sorted(folder.rglob("*"))
             if path.is_file() and path.suffix in (".py", ".md") and "__pycache__" not in path.parts]
    kit = [f for f in files if is_reference_kit(f)]
    tests = [f for f in kit if "/tests/" in f]
    relative = f"{REFERENCE}/{name}"
    return Problem(
        name=name, root=root, source=REFERENCE, mutate=(relative,),
        # Explicit: without a `[tool.bugsmith]` table (an installed corpus) nothing else
        # would keep the held-back tests' input strategies from being mutated.
        exclude=("**/strategies.py",), test_paths=(relative,),
        code=tuple(f for f in files if not is_reference_kit(f)),
        statement=f"{relative}/problem.md",
        visible=tuple(f for f in tests if not is_hidden_test(f)),
        hidden=tuple(f for f in tests if is_hidden_test(f)),
        grader_support=(*(f for f in kit if f not in tests), CONFTEST),
        candidate_glue={f"{REFERENCE}/__init__.py": PACKAGE_INIT, CONFTEST: CANDIDATE_CONFTEST,
                        "pytest.ini": CANDIDATE_PYTEST_INI},
        grader_glue={f"{REFERENCE}/__init__.py": PACKAGE_INIT, "pytest.ini": GRADER_PYTEST_INI},
        grade_targets=(REFERENCE,), location=f"`{relative}/`",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class GradingLayout:
    """What the grader reads from a pack: where the code is, which tests to run, which are held back."""

    code: tuple[str, ...] | None  # None: every non-test .py file under `folder` (corpus packs)
    folder: str
    targets: tuple[str, ...]
    hidden: tuple[str, ...] | None  # None: the corpus's `test_*_hidden.py` naming

    def is_hidden(self, test_id: str) -> bool:
        if self.hidden is None:
            return is_hidden_test(test_id)
        return test_id.split("::", 1)[0] in self.hidden


def corpus_layout(problem: str) -> GradingLayout:
    """The layout of a corpus problem's pack: `reference/<problem>/`, held-back tests by name."""
    return GradingLayout(code=None, folder=f"{REFERENCE}/{problem}", targets=(REFERENCE,), hidden=None)


def grading_layout(exercise_folder: Path, problem: str) -> GradingLayout:
    """The layout a pack's exercise folder records; corpus packs record none and use the corpus's."""
    record = exercise_folder / "layout.json"
    if not record.is_file():
        return corpus_layout(problem)
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        if data.get("format") != LAYOUT_FORMAT:
            raise ValueError(f"format {data.get('format')!r}")
        layout = GradingLayout(code=tuple(data["code"]), folder="", targets=tuple(data["targets"]),
                               hidden=tuple(data["hidden"]))
    except (ValueError, KeyError, TypeError) as error:
        raise ExerciseError(f"{record}: not a {LAYOUT_FORMAT} record: {error}") from None
    for path in (*(layout.code or ()), *layout.targets):
        if not isinstance(path, str) or path.startswith("/") or ".." in path.split("/"):
            raise ExerciseError(f"{record}: {path!r} is not a path inside the exercise")
    return layout
