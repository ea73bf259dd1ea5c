"""`bugsmith pack autograder`: a Gradescope bundle built from a real pack, unpacked and run as
Gradescope runs it, with its /autograder folders moved into a temporary one.

bugsmith is the one already installed here (BUGSMITH_BIN): setup.sh needs apt and the network,
so it is not run; the wheel it installs is tested in tests/install/test_running_wheel.py.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.pack.autograder import AutograderOptions, write_autograder
from bugsmith.harness.exercises.records import ExerciseError
from tests.grading.submissions import requires_bwrap, submission

pytestmark = [pytest.mark.slow, requires_bwrap]

SCHEMA = json.loads((Path(__file__).parent / "gradescope-results.schema.json").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def bundle(auc_pack, tmp_path_factory) -> Path:
    """The bundle of the pack's first exercise, 2.5 points, built through the CLI."""
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    done = CliRunner().invoke(cli, ["pack", "autograder", str(auc_pack.instructor.parent), str(out),
                                    "--exercise", "exercise-01", "--points", "2.5"])
    assert done.exit_code == 0, done.output
    return out


def _unpack(bundle: Path, root: Path) -> Path:
    """/autograder as Gradescope lays it out: the bundle in source/ (modes kept), run_autograder beside it."""
    source = root / "source"
    with zipfile.ZipFile(bundle) as archive:
        for info in archive.infolist():
            target = source / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            target.chmod(stat.S_IMODE(info.external_attr >> 16))
    (root / "run_autograder").write_bytes((source / "run_autograder").read_bytes())
    (root / "run_autograder").chmod(0o755)
    (root / "results").mkdir()
    return root


def _run(root: Path, upload: Path, **env: str) -> dict:
    (root / "submission").symlink_to(upload, target_is_directory=True)
    done = subprocess.run([str(root / "run_autograder")], cwd=root, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "AUTOGRADER_ROOT": str(root), "BUGSMITH_BIN": str(BIN), **env},
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    document = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    return document


def test_the_bundle_holds_what_gradescope_runs_and_nothing_of_the_candidate_part(bundle: Path, auc_pack) -> None:
    """setup.sh and run_autograder at the root and executable, the wheel, the config, the README with
    the sandbox requirement, and the instructor part; the same bytes when built again."""
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        modes = {i.filename: stat.S_IMODE(i.external_attr >> 16) for i in archive.infolist()}
        config = json.loads(archive.read("bugsmith-autograder.json"))
        readme = archive.read("README.md").decode()
        requirements = archive.read("requirements.txt").decode()
    assert {"setup.sh", "run_autograder", "README.md", "requirements.txt", "bugsmith-autograder.json"} <= names
    assert modes["setup.sh"] == modes["run_autograder"] == 0o755 and modes["README.md"] == 0o644
    wheel = next(n for n in names if n.startswith("wheels/bugsmith-") and n.endswith(".whl"))
    assert f"./{wheel}[corpus]" in requirements.splitlines()
    instructor = {f"instructor/{p.relative_to(auc_pack.instructor).as_posix()}"
                  for p in auc_pack.instructor.rglob("*") if p.is_file()}
    assert instructor <= names and not any(n.startswith("candidate/") for n in names)
    assert config["exercise"] == "exercise-01" and config["points"] == 2.5 and config["sandbox"] is True
    assert config["bug_files"] == ["auc/auc.py"]  # where the candidate's folder has it
    for needed in ("unprivileged user namespaces", "--no-sandbox", "never a silent pass", "once you publish"):
        assert needed in readme
    again = bundle.with_name("again.zip")
    write_autograder(auc_pack.instructor, again, AutograderOptions(exercise="exercise-01", points=2.5))
    assert again.read_bytes() == bundle.read_bytes()


def test_a_pack_of_several_exercises_needs_one_named(auc_pack, tmp_path: Path) -> None:
    """One bundle grades one exercise: with two in the pack and none named, a one-line error."""
    with pytest.raises(ExerciseError, match="choose one with --exercise"):
        write_autograder(auc_pack.instructor, tmp_path / "a.zip", AutograderOptions())
    with pytest.raises(ExerciseError, match="no exercise 'exercise-09'"):
        write_autograder(auc_pack.instructor, tmp_path / "a.zip", AutograderOptions(exercise="exercise-09"))


def test_a_correct_fix_scores_the_points(bundle: Path, auc_exercises, auc_pack, tmp_path: Path) -> None:
    """The fixed exercise folder passes: the bundle's 2.5 points, every test listed, held-back ones
    waiting for publication."""
    root = _unpack(bundle, tmp_path / "autograder")
    upload = submission(auc_pack.candidate, auc_exercises[0], tmp_path / "upload", fixed=True)
    document = _run(root, upload)
    assert document["score"] == 2.5, document["output"]
    assert {t["status"] for t in document["tests"]} == {"passed"}
    assert {t["visibility"] for t in document["tests"]} == {"visible", "after_published"}


def test_the_fixed_file_uploaded_alone_scores_the_points(bundle: Path, auc_exercises, tmp_path: Path) -> None:
    """Only `auc.py`, dragged in on its own: put in its place, the rest as handed out, and it passes."""
    root = _unpack(bundle, tmp_path / "autograder")
    upload = tmp_path / "upload"
    upload.mkdir()
    exercise = auc_exercises[0]
    (upload / "auc.py").write_text(exercise.reference["reference/auc/auc.py"], encoding="utf-8")
    assert _run(root, upload)["score"] == 2.5


def test_the_handout_as_it_was_scores_zero(bundle: Path, auc_exercises, auc_pack, tmp_path: Path) -> None:
    """The bug left in place: 0, failing tests visible with messages, held-back ones without."""
    root = _unpack(bundle, tmp_path / "autograder")
    upload = submission(auc_pack.candidate, auc_exercises[0], tmp_path / "upload")
    document = _run(root, upload)
    assert document["score"] == 0.0 and "FAIL" in document["output"]
    failed = [t for t in document["tests"] if t["status"] == "failed"]
    assert failed and all("message is not shown" in t["output"] for t in failed
                          if t["visibility"] == "after_published")


def test_without_namespaces_every_submission_is_a_failed_run(bundle: Path, auc_exercises, auc_pack,
                                                             tmp_path: Path) -> None:
    """Gradescope's container without namespaces: bwrap fails, and results.json is a 0 with the reason."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    root = _unpack(bundle, tmp_path / "autograder")
    upload = submission(auc_pack.candidate, auc_exercises[0], tmp_path / "upload", fixed=True)
    document = _run(root, upload, PATH=f"{fake}:{os.environ['PATH']}")
    assert document["score"] == 0.0 and document["tests"] == []
    assert "bubblewrap cannot start a sandbox here" in document["output"]
    assert "No permissions to creating new namespace" in document["output"]


def test_bugsmith_crashing_still_leaves_a_zero(bundle: Path, auc_exercises, auc_pack, tmp_path: Path) -> None:
    """A bugsmith that dies without writing results.json: run_autograder writes the failed run itself."""
    broken = tmp_path / "broken-bin"
    broken.mkdir()
    (broken / "bugsmith").write_text("#!/bin/sh\necho 'bugsmith: internal error' >&2\nexit 4\n")
    (broken / "bugsmith").chmod(0o755)
    root = _unpack(bundle, tmp_path / "autograder")
    upload = submission(auc_pack.candidate, auc_exercises[0], tmp_path / "upload", fixed=True)
    document = _run(root, upload, BUGSMITH_BIN=str(broken))
    assert document["score"] == 0.0 and "exit status 4" in document["output"]
