"""A hostile candidate against `bugsmith grade`: each attack leaves the bug in place and must not pass.

One test per attack of the issue's table, on a real auc pack; each also checks that
nothing left the sandbox (no file copied out, no process left running).
"""

from __future__ import annotations

import shutil
import time
import uuid
from pathlib import Path

import pytest

from bugsmith.harness.exercises.judge.grading import grade
from bugsmith.harness.exercises.judge.submission import UnsafeSubmissionError
from bugsmith.harness.exercises.pack.archive import extract_pack
from tests.grading.submissions import LEAVE_A_PROCESS, processes_with, requires_bwrap, submission

pytestmark = requires_bwrap

PATCH_REPORTS = '''

import _pytest.reports as _reports

_made = _reports.TestReport.from_item_and_call


def _always_passed(item, call):
    report = _made(item, call)
    report.outcome, report.longrepr = "passed", None
    return report


_reports.TestReport.from_item_and_call = _always_passed
'''

STRIP_JUNIT = '''

import atexit as _atexit
import re as _re
import sys as _sys


def _strip_failures():
    for argument in _sys.argv:
        if argument.startswith("--junitxml="):
            path = argument.split("=", 1)[1]
            with open(path) as file:
                text = file.read()
            with open(path, "w") as file:
                file.write(_re.sub(r"<(failure|error)\\b.*?</\\1>", "", text, flags=_re.S))


_atexit.register(_strip_failures)
'''

FAKE_SUMMARY = '''

import os as _os
import sys as _sys

if "pytest" in _sys.modules:
    print("=" * 30 + " 106 passed in 1.00s " + "=" * 30, flush=True)
    _os._exit(0)
'''

FORGING_CONFTEST = '''
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
'''

STEAL = '''

import os as _os
import shutil as _shutil
from pathlib import Path as _Path

_WANTED = {{"answer-key.md", "solution.patch", "exercises.jsonl", "solution.md", "exercise.json"}}


def _steal():
    here = _Path(__file__).resolve()
    roots = {{*here.parents[1:5], _Path("/tmp"), _Path("/")}}
    found = set()
    for root in roots:
        for folder, folders, files in _os.walk(root):
            if len(_Path(folder).parts) - len(root.parts) >= 4 or folder.startswith(("/proc", "/sys", "/dev")):
                folders[:] = []
            for name in files:
                if name in _WANTED or (name.startswith("test_") and name.endswith("_hidden.py")):
                    found.add(_os.path.join(folder, name))
    for target in ({stolen!r}, {tmp_stolen!r}, _os.path.expanduser("~/bugsmith-stolen-{marker}")):
        try:
            _os.makedirs(target, exist_ok=True)
            for i, path in enumerate(sorted(found)):
                _shutil.copy(path, _os.path.join(target, f"{{i}}-{{_os.path.basename(path)}}"))
        except OSError:
            pass


_steal()
'''



def test_patching_pytest_reports_to_say_passed_is_caught_by_the_canaries(auc_exercises, auc_pack, tmp_path):
    """Every report says "passed", the canaries too: the reporting is called tampered with; exit 1."""
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", append=PATCH_REPORTS)
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert all(t.outcome == "passed" for t in result.tests)  # the forgery worked inside the sandbox
    assert not result.passed and result.fix == "none"
    assert result.tampering and "canary" in result.tampering[0] and result.canaries >= 1


def test_rewriting_the_junit_file_at_exit_changes_nothing(auc_exercises, auc_pack, tmp_path):
    """No result file exists for it to rewrite: results come through a pipe, as data."""
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", append=STRIP_JUNIT)
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert not result.passed and not result.tampering
    assert {t.id for t in result.tests if t.outcome != "passed"} == set(exercise.fail_to_pass)


def test_exiting_early_with_a_fake_summary_reports_nothing_and_fails(auc_exercises, auc_pack, tmp_path):
    """A process that prints "106 passed" and exits 0 before any test leaves every test unreported."""
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", append=FAKE_SUMMARY)
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert not result.passed and all(t.outcome == "not run" for t in result.tests)
    assert any("never reported" in reason for reason in result.tampering)


@pytest.mark.parametrize("link", ["auc", "auc/auc.py", "auc/__init__.py"])
def test_a_link_to_the_installed_reference_code_is_refused(auc_exercises, auc_pack, tmp_path, link):
    """A link anywhere on the path of a code file (not only its last part) is refused, never followed."""
    from bugsmith import reference

    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s")
    installed = Path(reference.__path__[0])  # the handout's `auc/` is the installed `reference/auc/`
    target = folder / link
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink()
    target.symlink_to(installed / link)
    with pytest.raises(UnsafeSubmissionError, match="symbolic link"):
        grade(auc_pack.instructor, exercise.id, folder)


def test_a_smuggled_conftest_or_sitecustomize_never_runs(auc_exercises, auc_pack, tmp_path):
    """The tests' conftest files and the pytest settings come from the pack; the submission's are ignored."""
    exercise = auc_exercises[0]
    files = {"conftest.py": FORGING_CONFTEST, "auc/conftest.py": FORGING_CONFTEST,
             "auc/tests/conftest.py": FORGING_CONFTEST, "reference/conftest.py": FORGING_CONFTEST,
             "sitecustomize.py": FORGING_CONFTEST, "auc/sitecustomize.py": FORGING_CONFTEST,
             "pytest.ini": "[pytest]\naddopts = -p no:bugsmith_grading.reporter\n"}
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", files=files)
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert not result.passed and not result.tampering
    assert {t.id for t in result.tests if t.outcome != "passed"} == set(exercise.fail_to_pass)


def test_code_that_looks_for_the_key_and_the_held_back_tests_copies_nothing_out(auc_exercises, auc_zip, tmp_path):
    """In the sandbox the instructor pack, the checkout and the host's folders are not there to copy,
    and what it copies inside (the held-back tests it runs with) vanishes with it. Without the
    sandbox the same code copies the answer key out: the attack is real."""
    exercise = auc_exercises[0]
    marker = uuid.uuid4().hex
    tmp_stolen = Path(f"/tmp/bugsmith-stolen-{marker}")
    attack = STEAL.format(stolen=str(tmp_path / "stolen"), tmp_stolen=str(tmp_stolen), marker=marker)
    extract_pack(auc_zip.candidate, tmp_path / "unpacked")
    folder = submission(tmp_path / "unpacked" / "candidate", exercise, tmp_path / "s", append=attack)
    result = grade(auc_zip.instructor, exercise.id, folder)
    assert not result.passed
    assert not (tmp_path / "stolen").exists() and not tmp_stolen.exists()
    assert not (Path.home() / f"bugsmith-stolen-{marker}").exists()

    control = grade(auc_zip.instructor, exercise.id, folder, sandbox=False)
    try:
        copied = {p.name.split("-", 1)[1] for p in (tmp_path / "stolen").iterdir()}
        assert not control.passed and {"answer-key.md", "solution.patch", "exercises.jsonl"} <= copied
    finally:
        shutil.rmtree(tmp_stolen, ignore_errors=True)
        shutil.rmtree(Path.home() / f"bugsmith-stolen-{marker}", ignore_errors=True)


def test_a_process_started_in_a_new_session_dies_with_the_sandbox(auc_exercises, auc_pack, tmp_path):
    """`sleep` started with start_new_session=True does not outlive the grading."""
    exercise = auc_exercises[0]
    seconds = f"{900 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 1000:03d}"
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", append=LEAVE_A_PROCESS.format(seconds=seconds))
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert not result.passed
    time.sleep(0.5)
    assert processes_with(f"sleep\0{seconds}") == []


def test_a_forger_that_knows_the_real_tests_passes_the_canaries_but_not_the_outputs(auc_exercises, auc_pack,
                                                                                   tmp_path):
    """Reports forged only for bugsmith's published test names leave the canaries failing, as they
    must; the reference's outputs, compared in the grader's process, still catch the bug."""
    import ast

    from bugsmith import reference

    tests = Path(reference.__path__[0]) / "auc" / "tests"
    names = sorted({node.name for path in tests.glob("test_*.py") for node in ast.walk(ast.parse(path.read_text()))
                    if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")})
    forger = PATCH_REPORTS.replace(
        'report.outcome, report.longrepr = "passed", None',
        f'if item.originalname in {names!r}:\n        report.outcome, report.longrepr = "passed", None')
    exercise = auc_exercises[0]
    folder = submission(auc_pack.candidate, exercise, tmp_path / "s", append=forger)
    result = grade(auc_pack.instructor, exercise.id, folder)
    assert all(t.outcome == "passed" for t in result.tests) and not result.tampering
    assert result.differential is not None and result.differential.mismatches > 0
    assert not result.passed and result.fix == "none"
