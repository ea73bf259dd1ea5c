"""The exercise commands through click: export saved exercises as trees, refuse bad input."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.pack.pack import load_exercises, save_exercises
from bugsmith.harness.exercises.records import ExerciseError

pytestmark = pytest.mark.slow  # every test needs the session's exercises, built by real runs


def test_saved_exercises_export_as_two_trees(exercises, root, tmp_path):
    """`pack export --from` re-exports what `bugsmith exercises` saved, without running anything."""
    save_exercises(exercises, tmp_path / "saved", root=root)
    assert load_exercises(tmp_path / "saved") == exercises
    args = ["pack", "export", "--from", str(tmp_path / "saved"), "--out", str(tmp_path / "pack")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "pack").iterdir()) == ["candidate", "instructor"]
    assert (tmp_path / "pack" / "candidate" / exercises[0].id / "README.md").is_file()


def test_export_never_overwrites_a_tree(exercises, root, tmp_path):
    """A second export into the same folder fails instead of mixing two packs."""
    save_exercises(exercises, tmp_path / "saved", root=root)
    args = ["pack", "export", "--from", str(tmp_path / "saved"), "--out", str(tmp_path / "pack")]
    assert CliRunner().invoke(cli, args).exit_code == 0
    second = CliRunner().invoke(cli, args)
    assert isinstance(second.exception, ExerciseError) and "not empty" in str(second.exception)


def test_grading_an_unknown_exercise_is_an_error(pack, tmp_path):
    """A wrong exercise id is the user's mistake: a BugsmithError, not a traceback."""
    result = CliRunner().invoke(cli, ["grade", str(pack.instructor), "exercise-99", str(tmp_path)])
    assert isinstance(result.exception, ExerciseError) and "exercise-99" in str(result.exception)
