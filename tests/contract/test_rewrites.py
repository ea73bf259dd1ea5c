"""Each reference suite passes on a correct implementation that nobody here wrote.

`rewrites/<problem>/` holds an independent rewrite of the whole problem, written from its
`problem.md` alone: other names, other module layout, other validation order, other error
messages. A suite that pins our wording, imports a name the contract does not export, or leans
on how our code happens to be split into modules fails here, and so would fail an honest
candidate who rewrote the code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from contract_tables import problems

REPO = Path(__file__).resolve().parents[2]
REWRITES = Path(__file__).resolve().parent / "rewrites"
# Beside each rewrite's code: which reference module each of its modules stands in for when a
# submission is graded (tests/grading/rewrites.py). Data, not part of the rewrite's package.
RENAMED_FILE = "renamed.toml"
# As the grader lays a pack out: the suites find `reference` on the rootdir, nothing installed.
PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\ntestpaths = reference\n" \
             "markers =\n    hidden: held back from candidates; used to grade a fix\n"


def build(problem: str, root: Path) -> Path:
    """`root/reference/<problem>/`: the rewrite in place of our code, our suite and its kit."""
    source = REPO / "reference" / problem
    target = root / "reference" / problem
    shutil.copytree(REWRITES / problem, target, ignore=shutil.ignore_patterns("__pycache__", RENAMED_FILE))
    shutil.copy(source / "strategies.py", target / "strategies.py")
    shutil.copytree(source / "tests", target / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "reference" / "__init__.py", root / "reference" / "__init__.py")
    shutil.copy(REPO / "reference" / "conftest.py", root / "reference" / "conftest.py")
    (root / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return root


def run_suite(root: Path) -> subprocess.CompletedProcess[str]:
    # The mutation workers' variable changes the hypothesis phases; a rewrite is graded plainly.
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUGSMITH")}
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)


def rewrite_gaps(root: Path = REPO) -> tuple[list[str], list[str]]:
    """(the problems of `root` without a whole rewrite here, its package and its renamed.toml;
    the rewrites of no problem)."""
    names = problems(root)
    missing = [name for name in names
               if not ((REWRITES / name / "__init__.py").is_file() and (REWRITES / name / RENAMED_FILE).is_file())]
    stale = sorted({path.parent.name for path in REWRITES.glob("*/__init__.py")} - set(names))
    return missing, stale


def test_every_problem_has_a_rewrite() -> None:
    """A problem added to the corpus needs a rewrite here too, or its suite goes unchecked."""
    missing, stale = rewrite_gaps()
    assert not missing, f"no tests/contract/rewrites/<problem>/ with __init__.py and {RENAMED_FILE} for {missing}"
    assert not stale, f"rewrites of no problem under reference/: {stale}"


@pytest.mark.parametrize("problem", problems())
def test_a_renamed_rewrite_has_the_reference_file_names(problem: str) -> None:
    """Renamed as its renamed.toml says, the rewrite's modules are the files a candidate is handed,
    so a graded rewrite replaces every one of them, the one with the bug included."""
    renamed = tomllib.loads((REWRITES / problem / RENAMED_FILE).read_text(encoding="utf-8"))
    handed = sorted(path.stem for path in (REPO / "reference" / problem).glob("*.py") if path.name != "strategies.py")
    assert sorted(renamed.get(path.stem, path.stem) for path in (REWRITES / problem).glob("*.py")) == handed


@pytest.mark.slow
@pytest.mark.parametrize("problem", problems())
def test_the_suite_passes_on_an_independent_rewrite(problem: str, tmp_path: Path) -> None:
    """Every visible and hidden test passes on a correct rewrite: the suite checks the contract,
    not our implementation."""
    result = run_suite(build(problem, tmp_path))
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr
    assert result.returncode == 0, f"{problem}: {summary}\n{result.stdout[-6000:]}{result.stderr[-2000:]}"
    assert re.search(r"\d+ passed", summary), summary
