"""The tests a contract table names for a point catch a hand-written bug that breaks it.

Each bug of realistic_bugs.py is applied to a copy of the corpus, and the tests that the
problem's contract table lists for the point the bug breaks run on it: at least one must fail
(an assertion, or an exception in the test), none may fail to collect. The tests assert no
message, so each catch is behavioural.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from contract_tables import problems, read_table
from realistic_bugs import BUGS, Bug

REPO = Path(__file__).resolve().parents[2]
PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\ntestpaths = reference\n" \
             "markers =\n    hidden: held back from candidates; used to grade a fix\n"


def apply(bug: Bug, text: str) -> str:
    for old, new in ((bug.old, bug.new), *bug.more):
        assert text.count(old) == 1, f"{bug.name}: {old!r} is not in the code exactly once"
        text = text.replace(old, new)
    return text


def buggy_corpus(bug: Bug, root: Path) -> Path:
    shutil.copytree(REPO / "reference" / bug.problem, root / "reference" / bug.problem,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("__init__.py", "conftest.py"):
        shutil.copy(REPO / "reference" / name, root / "reference" / name)
    (root / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    code = root / "reference" / bug.problem / bug.file
    code.write_text(apply(bug, code.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def problems_without_bugs(root: Path = REPO) -> list[str]:
    """The problems of `root` that no bug of realistic_bugs.py is written for."""
    return sorted(set(problems(root)) - {bug.problem for bug in BUGS})


def test_every_problem_has_realistic_bugs() -> None:
    """A problem added to reference/ needs hand-written bugs in realistic_bugs.py, or whether
    its tables' tests catch anything goes unchecked."""
    missing = problems_without_bugs()
    assert not missing, f"no bug of realistic_bugs.py is written for {missing}"


def test_every_bug_applies_and_names_a_contract_point() -> None:
    """Each edit matches the current code once, and breaks a point its problem's table lists."""
    known = problems()
    for bug in BUGS:
        apply(bug, (REPO / "reference" / bug.problem / bug.file).read_text(encoding="utf-8"))
        assert bug.problem in known
        points = {point.name for point in read_table(bug.problem).points}
        assert bug.breaks in points, f"{bug.name}: no point {bug.breaks!r}"
    assert len({bug.name for bug in BUGS}) == len(BUGS)


def point_tests(bug: Bug) -> tuple[str, ...]:
    return next(p.tests for p in read_table(bug.problem).points if p.name == bug.breaks)


@pytest.mark.slow
@pytest.mark.parametrize("bug", BUGS, ids=[bug.name for bug in BUGS])
def test_the_points_tests_catch_the_bug(bug: Bug, tmp_path: Path) -> None:
    """Some test listed for the broken point fails on the buggy code (pytest exit code 1)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # The corpus conftest's switch: no shrinking, a failing example is already the answer.
    env["BUGSMITH_MUTANT_RUN"] = "1"
    selected = " or ".join(point_tests(bug))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-k", selected],
                            cwd=buggy_corpus(bug, tmp_path), env=env, capture_output=True, text=True,
                            timeout=600)
    tail = result.stdout.strip().splitlines()[-1:] or [result.stderr[-500:]]
    assert result.returncode == 1, f"{bug.name} escaped the tests of {bug.breaks}: {tail}"
