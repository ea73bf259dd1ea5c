"""The bundle's run_autograder, piece by piece: where an upload's code goes, the command, the failed run."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from bugsmith.harness.exercises.pack.run_autograder import failed_run, grade_command, place_submission

SCHEMA = json.loads((Path(__file__).parent / "gradescope-results.schema.json").read_text(encoding="utf-8"))
BUG = "auc/auc.py"  # where the handout has it


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)
    return root


def _handout(tmp_path: Path) -> Path:
    return _tree(tmp_path / "handout", {BUG: "buggy\n", "auc/__init__.py": "init\n",
                                        "auc/problem.md": "statement\n"})


def test_the_exercise_folder_as_handed_out_is_graded_as_it_is(tmp_path: Path) -> None:
    """Every file in place: the copy is the upload, nothing taken from the handout."""
    upload = _tree(tmp_path / "upload", {BUG: "fixed\n", "auc/__init__.py": "mine\n",
                                         "auc/problem.md": "statement\n"})
    root = place_submission(upload, tmp_path / "work", [BUG], _handout(tmp_path))
    assert root == tmp_path / "work"
    assert (root / BUG).read_text() == "fixed\n" and (root / "auc/__init__.py").read_text() == "mine\n"


def test_a_folder_zipped_whole_is_unwrapped(tmp_path: Path) -> None:
    """An upload that is one folder (with an archiver's __MACOSX beside it) is graded from inside it."""
    upload = _tree(tmp_path / "upload", {f"exercise-01/{BUG}": "fixed\n", "__MACOSX/._x": "",
                                         "exercise-01/auc/__init__.py": "init\n"})
    root = place_submission(upload, tmp_path / "work", [BUG], _handout(tmp_path))
    assert root == tmp_path / "work" / "exercise-01" and (root / BUG).read_text() == "fixed\n"


def test_a_bug_file_uploaded_alone_goes_to_its_place_and_the_rest_is_as_handed_out(tmp_path: Path) -> None:
    """`auc.py` on its own lands at auc/auc.py; the files it needs come from the handout,
    never the buggy file itself."""
    upload = _tree(tmp_path / "upload", {"auc.py": "fixed\n"})
    root = place_submission(upload, tmp_path / "work", [BUG], _handout(tmp_path))
    assert (root / BUG).read_text() == "fixed\n"
    assert (root / "auc/__init__.py").read_text() == "init\n"


def test_a_missing_bug_file_is_not_filled_from_the_handout(tmp_path: Path) -> None:
    """No fix uploaded: the grader must say so, not grade the handed-out bug as if submitted."""
    upload = _tree(tmp_path / "upload", {"notes.txt": "I could not find it\n"})
    root = place_submission(upload, tmp_path / "work", [BUG], _handout(tmp_path))
    assert not (root / BUG).exists() and (root / "auc/__init__.py").is_file()


def test_nothing_is_written_through_a_linked_folder(tmp_path: Path) -> None:
    """A submission whose `auc` is a link elsewhere: the handout is not copied through it (this runs as root)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    upload = _tree(tmp_path / "upload", {"auc.py": "fixed\n"})
    (upload / "auc").symlink_to(outside, target_is_directory=True)
    root = place_submission(upload, tmp_path / "work", [BUG], _handout(tmp_path))
    assert (root / "auc").is_symlink() and list(outside.iterdir()) == []


def test_the_command_carries_the_bundle_settings(tmp_path: Path) -> None:
    """Points, limits and the sandbox opt-out reach `bugsmith grade`, which writes results.json itself."""
    config = {"exercise": "exercise-02", "points": 4, "timeout": 300, "test_timeout": 20, "sandbox": False}
    command = grade_command(config, Path("/v/bin/bugsmith"), Path("/s/instructor"), Path("/w"), Path("/r.json"))
    assert command[:6] == ["/v/bin/bugsmith", "grade", "--format", "gradescope", "--output", "/r.json"]
    assert command[command.index("--points") + 1] == "4.0" and "--no-sandbox" in command
    assert command[-3:] == ["/s/instructor", "exercise-02", "/w"]
    assert "--no-sandbox" not in grade_command({**config, "sandbox": True}, Path("b"), Path("i"), Path("w"), Path("r"))


def test_a_run_bugsmith_could_not_finish_is_a_valid_zero() -> None:
    """The fallback results.json validates, scores 0 and says why."""
    document = failed_run("exit status 4")
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    assert document["score"] == 0.0 and "exit status 4" in document["output"]
