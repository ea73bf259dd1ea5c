"""Which problems a root holds: those its pyproject.toml declares, else its corpus's folders."""

from __future__ import annotations

from pathlib import Path

from bugsmith.errors import ConfigError
from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.problems import REFERENCE, Problem, reference_problem
from bugsmith.harness.exercises.sources.projects import project_problems


def load_problems(root: Path) -> dict[str, Problem]:
    """The problems of `root`: its `[tool.bugsmith.exercises]` if it has one, else its corpus
    (every `reference/<problem>/problem.md`)."""
    root = root.resolve()
    declared = project_problems(root)
    if declared is not None:
        return declared
    names = reference_names(root)
    if not names:
        raise ConfigError(f"{root}: no [tool.bugsmith.exercises] table in pyproject.toml"
                          " and no reference/<problem>/problem.md")
    return {name: reference_problem(root, name) for name in names}


def reference_names(root: Path) -> list[str]:
    """The corpus's problems under `root`, sorted: every folder `reference/<name>/` that holds a
    problem.md. The one list of them: the exercises and every test that runs over all problems
    read it, so a new problem's folder is all they need (setup.py ships every folder anyway)."""
    return sorted(path.parent.name for path in (root / REFERENCE).glob("*/problem.md"))


def problem_named(root: Path, name: str) -> Problem:
    problems = load_problems(root)
    if name not in problems:
        raise ExerciseError(f"unknown problem {name!r}; choose from {', '.join(problems)}")
    return problems[name]
