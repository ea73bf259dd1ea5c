"""`bugsmith score` runs a candidate's tests, which may be written to cheat: each attack fails.

The tests are code the candidate wrote, so they run in the same bubblewrap sandbox as a
graded submission (read-only project copy, no instructor files, no checkout, no network, every
process dies with it), and a suite whose failures cannot be believed gets no score.
"""

from __future__ import annotations

import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest

from bugsmith.errors import BaselineError
from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.judge import disguised_controls
from bugsmith.harness.exercises.judge.scoring import score_tests
from bugsmith.harness.shared.sandbox import SandboxUnavailable
from tests.grading.submissions import LEAVE_A_PROCESS, processes_with, requires_bwrap

pytestmark = [pytest.mark.slow, requires_bwrap]

HONEST = '''
from reference.auc import roc_auc_score


def test_perfect_ranking():
    assert roc_auc_score([0, 1], [0.1, 0.9]) == 1.0
'''

MUTANT_RUN = '''
import sys as _sys


def _in_a_mutant_run():
    """A frame of the worker's child holds the job: a mutant has code (`source`) and no task."""
    frame = _sys._getframe()
    while frame is not None:
        job = frame.f_locals.get("job")
        if job is not None and hasattr(job, "source") and hasattr(job, "task"):
            return bool(job.source) and job.task is None
        frame = frame.f_back
    return False
'''

# Every report of a test's call says "failed" (the recorder's own reports are TestReports too).
FORGE_FAILURES = MUTANT_RUN + '''
from _pytest.reports import TestReport as _TestReport

_init = _TestReport.__init__


def _forged(self, nodeid, location, keywords, outcome, longrepr, when, *args, **kwargs):
    if when == "call" and {selective}:
        outcome, longrepr = "failed", "forged"
    _init(self, nodeid, location, keywords, outcome, longrepr, when, *args, **kwargs)


_TestReport.__init__ = _forged
'''

# A timeout counts as detected: a suite that cannot fail unseen may try hanging instead.
HANG_IN_MUTANTS = MUTANT_RUN + '''
import time as _time


def test_patience():
    assert roc_auc_score([0, 1, 1], [0.5, 0.2, 0.9]) == 0.5  # covers the code: it runs for its mutants
    if _in_a_mutant_run():
        _time.sleep(600)
'''

STEAL = '''
import os as _os
import shutil as _shutil
from pathlib import Path as _Path

_WANTED = {{"answer-key.md", "solution.patch", "exercises.jsonl", "test_auc_hidden.py", "problem.md"}}


def _steal():
    found = set()
    for root in {roots!r}:
        for folder, folders, files in _os.walk(root):
            if len(_Path(folder).parts) - len(_Path(root).parts) >= 4:
                folders[:] = []
            found.update(_os.path.join(folder, name) for name in files if name in _WANTED)
    for target in {targets!r}:
        try:
            _os.makedirs(target, exist_ok=True)
            for i, path in enumerate(sorted(found)):
                _shutil.copy(path, _os.path.join(target, f"{{i}}-{{_os.path.basename(path)}}"))
        except OSError:
            pass


_steal()
'''



def _score(tests: Path, **options):
    return score_tests("auc", tests, root=builtin_root(), families=("metric",), jobs=2, triage=False, **options)


def _suite(folder: Path, *attack: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_mine.py").write_text(HONEST + "".join(attack), encoding="utf-8")
    return folder / "test_mine.py"


def test_an_honest_suite_is_scored_in_the_sandbox(tmp_path):
    """The sandbox costs an honest suite nothing: it is scored, and says where it ran."""
    result = _score(_suite(tmp_path))
    assert result.sandboxed and result.controls >= disguised_controls.MIN_CONTROLS
    detected, counted = result.per_family["metric"]
    assert 0 < detected < counted


def test_reports_forged_to_fail_everywhere_are_refused_by_the_baseline(tmp_path):
    """A suite made to report every test failed fails on the reference too: no score (exit 3)."""
    with pytest.raises(BaselineError, match="fail on the unmutated code"):
        _score(_suite(tmp_path, FORGE_FAILURES.format(selective="True")))


def test_reports_forged_to_fail_only_on_mutants_are_caught_by_disguised_controls(tmp_path, monkeypatch):
    """A suite that fails exactly in the runs that carry a mutant passes the baseline and the
    control runs, but also fails the unmutated code disguised as mutants: no score. Without
    those controls the same suite would score 100 %: the attack is real."""
    tests = _suite(tmp_path, FORGE_FAILURES.format(selective="_in_a_mutant_run()"))
    with pytest.raises(BaselineError, match="looked like mutants"):
        _score(tests)
    monkeypatch.setattr(disguised_controls, "plant", lambda jobs, rng: [])
    assert _score(tests).score == 100.0


def test_tests_that_hang_only_on_mutants_are_caught_by_disguised_controls(tmp_path):
    """Hanging where a mutant runs would make every mutant a timeout, which counts as detected;
    the disguised controls hang too, past their longer second run: no score."""
    with pytest.raises(BaselineError, match="looked like mutants"):
        _score(_suite(tmp_path, HANG_IN_MUTANTS))


def test_tests_that_look_for_the_key_and_the_hidden_tests_copy_nothing_out(tmp_path):
    """Beside the candidate's tests lie an instructor's files; the checkout and the installed
    reference problems hold the hidden tests. In the sandbox none of them is there to copy,
    and nothing reaches a host folder. Unsandboxed, the same tests copy them: the attack is real."""
    from bugsmith import reference

    instructor = tmp_path / "instructor"
    instructor.mkdir()
    for name in ("answer-key.md", "solution.patch", "exercises.jsonl"):
        (instructor / name).write_text("secret\n", encoding="utf-8")
    marker = uuid.uuid4().hex
    stolen, tmp_stolen = tmp_path / "stolen", Path(f"/tmp/bugsmith-stolen-{marker}")
    roots = [str(tmp_path), *(str(Path(p).parent) for p in reference.__path__), "/tmp", "/work", str(Path.home())]
    attack = STEAL.format(roots=roots, targets=[str(stolen), str(tmp_stolen), str(Path.home() / f"stolen-{marker}")])
    tests = _suite(tmp_path / "candidate", attack)
    try:
        result = _score(tests)
        assert result.score is not None  # the suite ran, and was scored
        assert not stolen.exists() and not tmp_stolen.exists() and not (Path.home() / f"stolen-{marker}").exists()

        _score(tests, sandbox=False)
        copied = {p.name.split("-", 1)[1] for p in stolen.iterdir()}
        assert {"answer-key.md", "solution.patch", "exercises.jsonl", "test_auc_hidden.py"} <= copied
    finally:
        shutil.rmtree(tmp_stolen, ignore_errors=True)
        shutil.rmtree(Path.home() / f"stolen-{marker}", ignore_errors=True)


def test_a_process_started_in_a_new_session_dies_with_the_sandbox(tmp_path):
    """`sleep` started by the tests with start_new_session=True does not outlive the scoring."""
    seconds = f"{900 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 1000:03d}"
    result = _score(_suite(tmp_path, LEAVE_A_PROCESS.format(seconds=seconds)))
    assert result.score is not None
    time.sleep(0.5)
    assert processes_with(f"sleep\0{seconds}") == []


def test_without_bubblewrap_scoring_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    """No `bwrap` on PATH: one line that says how to install it, exit 2, and never an unsandboxed run."""
    from bugsmith.harness.cli import main

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "bwrap" else real(name, *a, **k))
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        _score(_suite(tmp_path))
    monkeypatch.setattr(sys, "argv", ["bugsmith", "score", "--problem", "auc", "--tests", str(_suite(tmp_path))])
    with pytest.raises(SystemExit) as exited:
        main()
    err = capsys.readouterr().err
    assert exited.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "apt-get install bubblewrap" in err


def test_no_sandbox_says_so_in_its_output(tmp_path):
    """`--no-sandbox` is for tests one trusts: the summary and stderr both say they ran unconfined."""
    from click.testing import CliRunner

    from bugsmith.harness.cli import cli

    done = CliRunner().invoke(cli, ["score", "--no-sandbox", "--no-triage", "--problem", "auc", "--family", "metric",
                                    "--jobs", "2", "--tests", str(_suite(tmp_path))])
    assert done.exit_code == 0, done.output
    assert "NOT SANDBOXED (--no-sandbox)" in done.stdout and "WITHOUT a sandbox" in done.stderr
