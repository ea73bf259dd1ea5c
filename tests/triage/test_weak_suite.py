"""Triage of the AUC reference scored with a deliberately weak suite: its visible tests only."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bugsmith import harness
from bugsmith.harness.config import builtin_root, resolve
from bugsmith.harness.outcome import Status
from bugsmith.harness.triage import Classification, TriageOptions, triage

PYPROJECT = """\
[tool.bugsmith]
paths = ["reference/auc"]
tests = ["reference/auc/tests/test_auc_visible.py"]
exclude = ["**/strategies.py"]
jobs = 2
"""


def auc_project(root: Path) -> Path:
    """A copy of the AUC problem (code, strategies, visible tests) with its own store."""
    source = builtin_root() / "reference"
    (root / "reference").mkdir(parents=True)
    for name in ("__init__.py", "conftest.py"):
        shutil.copy(source / name, root / "reference" / name)
    shutil.copytree(source / "auc", root / "reference" / "auc",
                    ignore=shutil.ignore_patterns("__pycache__", "test_auc_hidden.py"))
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def pytest_status(root: Path, sources: list[str], folder: Path) -> int:
    """Pytest's exit status on the given test modules, run from `root` in a fresh interpreter."""
    folder.mkdir(parents=True)
    for number, source in enumerate(sources):
        (folder / f"test_suggested_{number}.py").write_text(source)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          cwd=root, capture_output=True, check=False).returncode


@pytest.mark.slow
def test_weak_suite_survivors_are_classified_and_suggested_tests_are_sound(tmp_path):
    """Every survivor gets a class; every suggested test passes on the reference and fails on its mutant."""
    root = auc_project(tmp_path / "auc")
    result = harness.run(resolve(root))
    survivors = {o.mutant_id for o in result.outcomes if o.status is Status.SURVIVED}
    assert survivors, "the visible tests alone should let some mutants through"

    # Ended by its example count, not its clock (the time is a guard), so that a loaded machine
    # tries the same inputs; the witnesses below come within the first 30.
    triaged = triage(resolve(root), settings=TriageOptions(search_seconds=120.0, max_examples=100))

    assert {f.mutant_id for f in triaged.findings} == survivors
    assert triaged.counts()[Classification.NOT_TRIAGED.value] == 0
    suggested = {f.mutant_id: f.suggested_test for f in triaged.findings if f.verified}
    # The deleted length check in `_weights` is found within a handful of searched inputs.
    assert any(f.classification is Classification.UNDERTESTED and f.verified for f in triaged.findings)
    assert all(f.verified for f in triaged.findings if f.suggested_test), "a drafted test failed its check"
    assert pytest_status(root, list(suggested.values()), tmp_path / "original" / "tests") == 0
    mutants = {m.id: m for m in result.mutants}
    for mutant_id, source in suggested.items():
        mutant, copy = mutants[mutant_id], tmp_path / mutant_id
        shutil.copytree(root / "reference", copy / "reference", ignore=shutil.ignore_patterns("tests"))
        (copy / mutant.file).write_text(mutant.apply((root / mutant.file).read_text()))
        assert pytest_status(copy, [source], copy / "tests") == 1, f"{mutant_id}'s test passes on it"
