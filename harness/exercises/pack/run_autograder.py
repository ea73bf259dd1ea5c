#!/usr/bin/env python3
"""Gradescope's `run_autograder` for a bugsmith bundle: grade the submission, always leave results.json.

`bugsmith pack autograder` copies this file into the bundle as `run_autograder`. Gradescope runs
it once per submission, from /autograder, with the bundle unpacked in /autograder/source. It runs
under the image's own `python3` (Python 3.8 or later), so it imports nothing of bugsmith and only
the standard library; the grading is `bugsmith grade --format gradescope` from the venv that
setup.sh made.

1. Copy /autograder/submission into a work folder (links stay links: grading refuses them).
2. Put the code where the exercise expects it: an upload of the exercise folder zipped whole is
   unwrapped, a bug file uploaded on its own (`auc.py`) goes to its place in the tree as handed
   out (`auc/auc.py`), and a handed-out file the upload lacks is taken as handed out.
3. `bugsmith grade` with the settings of bugsmith-autograder.json. It writes results.json itself,
   also for a run that cannot be graded (no sandbox here: a score of 0 and the reason).
4. If it left no results.json (it crashed, or ran past its time), write a failed run: a score
   of 0 and where the instructor finds the details. Never a pass.

AUTOGRADER_ROOT (default /autograder) and BUGSMITH_BIN (default $AUTOGRADER_ROOT/bugsmith-venv/bin)
move its folders, so that it also runs outside Gradescope (the tests run it so). What it prints
goes to Gradescope's standard output log, which only the instructor sees.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

CONFIG = "bugsmith-autograder.json"
GUARD_SECONDS = 300  # beyond the grading's own time limit, before this script gives up on bugsmith
_IGNORED = ("__MACOSX",)  # what an archiver adds around an upload


def main() -> int:
    root = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    source, results = root / "source", root / "results" / "results.json"
    binaries = Path(os.environ.get("BUGSMITH_BIN", str(root / "bugsmith-venv" / "bin")))
    results.parent.mkdir(parents=True, exist_ok=True)
    if results.exists():
        results.unlink()  # never leave an earlier run's verdict in place
    status = "not started"
    try:
        config = json.loads((source / CONFIG).read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory(prefix="bugsmith-submission-") as scratch:
            instructor = source / "instructor"
            submission = place_submission(root / "submission", Path(scratch) / "submission",
                                          list(config["bug_files"]), instructor / config["exercise"] / "handout")
            command = grade_command(config, binaries / "bugsmith", instructor, submission, results)
            print("bugsmith autograder:", " ".join(command), flush=True)
            done = subprocess.run(command, check=False, timeout=float(config["timeout"]) + GUARD_SECONDS)
            status = f"exit status {done.returncode}"
    except subprocess.TimeoutExpired:
        status = "bugsmith ran past its time limit"
    except (OSError, ValueError, KeyError, TypeError) as error:
        status = f"{type(error).__name__}: {error}"
    if not results.is_file():
        print(f"bugsmith autograder: no results from bugsmith ({status}); writing a failed run", flush=True)
        results.write_text(json.dumps(failed_run(status), indent=2), encoding="utf-8")
    return 0


def grade_command(config: dict[str, Any], bugsmith: Path, instructor: Path, submission: Path,
                  results: Path) -> list[str]:
    """`bugsmith grade` as the bundle's settings ask, writing Gradescope's results.json."""
    command = [str(bugsmith), "grade", "--format", "gradescope", "--output", str(results),
               "--points", repr(float(config["points"])), "--timeout", repr(float(config["timeout"])),
               "--test-timeout", repr(float(config["test_timeout"]))]
    if not config["sandbox"]:
        command.append("--no-sandbox")
    return [*command, str(instructor), str(config["exercise"]), str(submission)]


def place_submission(submission: Path, work: Path, bug_files: list[str], handout: Path) -> Path:
    """A copy of `submission` with the code where the exercise expects it (the folder to grade)."""
    shutil.copytree(submission, work, symlinks=True)
    root = _unwrapped(work, bug_files)
    for name in bug_files:
        loose = root / PurePosixPath(name).name
        if not os.path.lexists(root / name) and _plain_file(loose) and _writable_inside(root, name):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(loose, root / name)
    for path in sorted(handout.rglob("*")):
        name = path.relative_to(handout).as_posix()
        if (path.is_file() and name not in bug_files and not os.path.lexists(root / name)
                and _writable_inside(root, name)):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, root / name)
    return root


def _unwrapped(folder: Path, bug_files: list[str]) -> Path:
    """`folder`, or the one folder inside it that an upload of the whole exercise folder made."""
    if any(os.path.lexists(folder / name) for name in bug_files):
        return folder
    entries = [p for p in folder.iterdir() if not p.name.startswith(".") and p.name not in _IGNORED]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return _unwrapped(entries[0], bug_files)
    return folder


def _plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _writable_inside(root: Path, name: str) -> bool:
    """Whether writing `root/name` stays inside `root`: no folder on the way is a link (this runs as root)."""
    here = root
    for part in PurePosixPath(name).parts[:-1]:
        here = here / part
        if here.is_symlink() or (os.path.lexists(here) and not here.is_dir()):
            return False
    return ".." not in PurePosixPath(name).parts


def failed_run(reason: str) -> dict[str, Any]:
    """Gradescope's results.json for a run bugsmith could not finish: a score of 0, never a pass."""
    return {
        "score": 0.0,
        "output": (f"NOT GRADED: the autograder could not finish ({reason}). The score is 0 until the"
                   " submission can be graded; the instructor's log has the details."),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"bugsmith": {"graded": False, "error": reason}},
        "tests": [],
    }


if __name__ == "__main__":
    sys.exit(main())
