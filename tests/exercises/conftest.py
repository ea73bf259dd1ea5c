"""One small pack, built once per session from the auc problem (the fastest suite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.pack.pack import PackPaths, export


@pytest.fixture(scope="session")
def options() -> ExerciseOptions:
    return ExerciseOptions(problems=("auc",), count=2, seed=7)


@pytest.fixture(scope="session")
def root() -> Path:
    return builtin_root()


@pytest.fixture(scope="session")
def exercises(options, root):
    return build_exercises(options, root=root, jobs=2)


@pytest.fixture(scope="session")
def pack(exercises, options, root, tmp_path_factory) -> PackPaths:
    return export(exercises, tmp_path_factory.mktemp("pack") / "pack.zip", root=root, options=options)
