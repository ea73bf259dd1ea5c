"""The files in each candidate folder that record the candidate's test runs.

A candidate runs `python -m pytest` (or `pytest`) anywhere in the folder: on everything, a
file, a node id, with `-k`, from a subfolder. The one thing every such run loads is the
`conftest.py` at the folder's root (the pytest configuration file is there, so it is the
rootdir and the conftest cut-off; initial conftests are collected up to it whatever the
arguments). So that file loads `.attempt/recorder.py` (`attempt_recorder`, copied as it is)
and registers it. A `-p` plugin in `addopts` would not do: pytest imports it before it
applies `pythonpath`, so `pytest` from a subfolder could not import it and would stop with
an error.

`.attempt/start.json` is the code as handed out (the recorder diffs against it) and the rule
that finds the code files the grader reads (`submission.code_scan`), both with the handout's
names (`handout_names`: grading maps what the log says back to the project's); `.attempt/runs.jsonl`
starts empty, so that a folder whose tests never ran has an empty log, and one without the
file had it deleted. Every file is fixed text for the exercise: packs stay byte-reproducible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.judge.submission import code_scan, is_code_path
from bugsmith.harness.exercises.pack import attempt_recorder
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.handout_names import handout_names
from bugsmith.harness.exercises.sources.layout import handout_code
from bugsmith.harness.exercises.sources.problems import REFERENCE, GradingLayout, Problem, corpus_layout

FOLDER = ".attempt"
LOG = f"{FOLDER}/{attempt_recorder.LOG}"
START = f"{FOLDER}/{attempt_recorder.START}"
RECORDER = f"{FOLDER}/recorder.py"
CONFTEST = "conftest.py"

_LOADER = '''

def _record_runs(config):
    """Load .attempt/recorder.py, which adds a line to .attempt/runs.jsonl per test run.

    Whatever goes wrong here, the tests run as they would without it.
    """
    try:
        import importlib.util
        from pathlib import Path

        folder = Path(__file__).resolve().parent
        spec = importlib.util.spec_from_file_location("_attempt_recorder", folder / ".attempt" / "recorder.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.install(config, folder)
    except Exception:
        pass
'''
_OWN_CONFTEST = ('"""Each test run in this folder is recorded in .attempt/ (README.md says what is kept)."""\n\n'
                 "\ndef pytest_configure(config):\n    _record_runs(config)\n" + _LOADER)
# Added to a project's own root conftest.py: its pytest_configure, if any, still runs first.
_ADDED_TO_CONFTEST = '''

# Each test run in this folder is recorded in .attempt/ (README.md says what is kept).
_configure_before_recording = globals().get("pytest_configure")


def pytest_configure(config):
    if _configure_before_recording is not None:
        _configure_before_recording(config)
    _record_runs(config)
''' + _LOADER


def attempt_files(problem: Problem, exercise: Exercise, tree: dict[str, str]) -> dict[str, str]:
    """The recorder's files for one exercise folder whose other files are `tree` (handout path -> text)."""
    layout, names = handout_layout(problem), handout_names(problem)
    code = {path: text for path, text in sorted(handout_code(problem, exercise).items())
            if is_code_path(path, layout, names)}
    return {CONFTEST: conftest_text(tree.get(CONFTEST)), RECORDER: recorder_text(),
            START: start_text(code, code_scan(layout, names)), LOG: ""}


def conftest_text(own: str | None) -> str:
    """The folder's root conftest.py: ours, or the project's own (`own`) with the loader added."""
    return _OWN_CONFTEST if own is None else own.rstrip("\n") + "\n" + _ADDED_TO_CONFTEST


def recorder_text() -> str:
    return Path(attempt_recorder.__file__).read_text(encoding="utf-8")


def start_text(code: dict[str, str], scan: dict[str, Any] | None) -> str:
    """`.attempt/start.json`: the code files as handed out, and the rule that finds new ones."""
    return json.dumps({"format": attempt_recorder.FORMAT, "code": code, "scan": scan}, indent=1, sort_keys=True) + "\n"


def handout_layout(problem: Problem) -> GradingLayout:
    """The layout the grader will read this problem's pack with (the instructor part's layout.json),
    in the project's names."""
    if problem.source == REFERENCE:
        return corpus_layout(problem.name)
    return GradingLayout(code=problem.code, folder="", targets=problem.grade_targets, hidden=problem.hidden)
