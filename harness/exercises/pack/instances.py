"""Exercises as task instances for evaluating debugging agents: one JSON object per line.

Fields follow SWE-bench (`instance_id`, `problem_statement`, `patch`, `FAIL_TO_PASS`,
`PASS_TO_PASS`) plus bugsmith's own; `exercise-instance.schema.json` documents them all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.pack.statement import hints, reverse_patch, statement
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.catalogue import load_problems, problem_named
from bugsmith.harness.exercises.sources.layout import told_buggy_code, visible_tests
from bugsmith.harness.exercises.sources.problems import Problem

SCHEMA_FILE = "exercise-instance.schema.json"


def instance(exercise: Exercise, root: Path | Problem) -> dict[str, Any]:
    """One SWE-bench-style task instance of an exercise."""
    problem = root if isinstance(root, Problem) else problem_named(root, exercise.problem)
    return {
        "instance_id": exercise.instance_id,
        "repo": problem.repo,
        "problem": exercise.problem,
        "problem_statement": statement(exercise, problem),
        "buggy_files": told_buggy_code(problem, exercise),
        "test_files": visible_tests(problem),
        "patch": reverse_patch(exercise),
        "FAIL_TO_PASS": list(exercise.fail_to_pass),
        "PASS_TO_PASS": list(exercise.pass_to_pass),
        "family": list(exercise.families),
        "operator": list(exercise.operators),
        "difficulty": exercise.difficulty.score,
        "difficulty_level": exercise.difficulty.level,
        "silent": exercise.silent,
        "hints": hints(exercise),
        "time_limit_minutes": exercise.time_limit_minutes,
    }


def jsonl(exercises: Sequence[Exercise], root: Path) -> str:
    """The `exercises.jsonl` text: one instance per line, keys sorted, so it is reproducible."""
    problems = load_problems(root)
    return "".join(json.dumps(instance(e, problems[e.problem]), sort_keys=True) + "\n" for e in exercises)


@cache
def _schema_text() -> str:
    return resources.files("bugsmith.harness.exercises").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def schema() -> dict[str, Any]:
    """The JSON schema of one line of `exercises.jsonl`."""
    return json.loads(_schema_text())
