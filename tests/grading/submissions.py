"""Submissions for the grading tests: a candidate folder from a real pack, with code changed or added."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.handout_names import corpus_names

requires_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                    reason="bubblewrap is not installed (apt-get install bubblewrap)")

# Module code that starts a process in a session of its own and leaves it: grading and scoring
# must end it with the sandbox.
LEAVE_A_PROCESS = '''
import subprocess as _subprocess

_subprocess.Popen(["sleep", "{seconds}"], start_new_session=True, stdout=_subprocess.DEVNULL,
                  stderr=_subprocess.DEVNULL)
'''


def submission(candidate: Path, exercise: Exercise, folder: Path, *, fixed: bool = False,
               append: str = "", files: dict[str, str] | None = None) -> Path:
    """A copy of the handed-out folder: fixed (the reference code) or not, `append` added to
    the end of the code file with the bug, and `files` written over it. Paths are the
    project's (`reference/auc/auc.py`); they are written where the handout has them (`auc/auc.py`)."""
    names = corpus_names(exercise.problem)
    shutil.copytree(candidate / exercise.id, folder)
    for path, text in (exercise.reference if fixed else exercise.buggy).items():
        (folder / names.path(path)).write_text(text + append, encoding="utf-8")
    for path, text in (files or {}).items():
        (folder / names.path(path)).parent.mkdir(parents=True, exist_ok=True)
        (folder / names.path(path)).write_text(text, encoding="utf-8")
    return folder


def processes_with(marker: str) -> list[int]:
    """The processes whose command line contains `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                    if marker.encode() in file.read():
                        found.append(int(entry.name))
            except OSError:
                continue
    return found
