"""Real packs from the auc problem (its suite is the fastest), built once per session."""

from __future__ import annotations

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.pack.pack import PackPaths, export


@pytest.fixture(scope="session")
def auc_exercises():
    """Two one-bug exercises: `bugsmith pack export --count 2 --problem auc --seed 0`."""
    return build_exercises(ExerciseOptions(problems=("auc",), count=2, seed=0), root=builtin_root(), jobs=2)


@pytest.fixture(scope="session")
def auc_pack(auc_exercises, tmp_path_factory) -> PackPaths:
    """The pack as two trees: `candidate/` to copy submissions from, `instructor/` to grade with."""
    options = ExerciseOptions(problems=("auc",), count=2, seed=0)
    return export(auc_exercises, tmp_path_factory.mktemp("auc-pack") / "pack", root=builtin_root(), options=options)


@pytest.fixture(scope="session")
def two_bug_pack(tmp_path_factory):
    """One auc exercise with two bugs, in two functions: `--count 1 --bugs 2 --seed 1`."""
    options = ExerciseOptions(problems=("auc",), count=1, bugs=2, seed=1)
    exercises = build_exercises(options, root=builtin_root(), jobs=2)
    pack = export(exercises, tmp_path_factory.mktemp("two-bugs") / "pack", root=builtin_root(), options=options)
    return exercises[0], pack


@pytest.fixture(scope="session")
def auc_zip(auc_exercises, tmp_path_factory) -> PackPaths:
    """The same pack as zips: grading unpacks the instructor part into its own temporary folder."""
    options = ExerciseOptions(problems=("auc",), count=2, seed=0)
    return export(auc_exercises, tmp_path_factory.mktemp("auc-zip") / "pack.zip", root=builtin_root(),
                  options=options)
