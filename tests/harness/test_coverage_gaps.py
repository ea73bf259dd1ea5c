"""Verdicts where line coverage misleads: sites on lines without a line event, code run in
fork-based multiprocessing children, a suite that turns warnings into errors, and mutants that
break the import (found on semver and python-slugify)."""

from __future__ import annotations

import os
import tempfile
import textwrap
from pathlib import Path

import pytest

from bugsmith import harness
from bugsmith.harness.baseline import run_baseline
from bugsmith.harness.child.coverage_run import ForkedChildren, quiet_coverage
from bugsmith.harness.config import resolve
from bugsmith.harness.job_plan import Statements
from bugsmith.harness.shared.interpreter import worker_env
from bugsmith.harness.shared.protocol import WorkerSetup
from bugsmith.harness.shared.tasks import Coverage
from bugsmith.mutators.mutant import Span

COND = '''\
def tagged(version, token):
    if token:
        if not (
            version == token
            or version.startswith(token + ".")
        ):
            return token + ".1"
    return version
'''

PAR = '''\
import multiprocessing


def square(x):
    return x * x


def squares(xs):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return pool.map(square, xs)
'''

CONSTS = '''\
DIVISOR = 1
HALF = 10 // DIVISOR
'''

TESTS = '''\
from gaps.cond import tagged
from gaps.par import squares


def test_tagged():
    assert tagged("rc", "rc") == "rc"
    assert tagged("beta", "rc") == "rc.1"


def test_squares():
    assert squares([1, 2, 3]) == [1, 4, 9]
'''

# The conftest imports the package, as semver's does: a mutant that breaks the import breaks
# the conftest, before any test is collected.
CONFTEST = "import gaps.consts  # noqa: F401\n"

UNRELATED = "def test_arithmetic():\n    assert 1 + 1 == 2\n"


def test_a_site_stands_for_its_statements_header_lines() -> None:
    """`not` on the first line of a condition written over four lines stands for all four (that
    line has no line event under Python 3.11); a site in an `if` body does not take the body of
    the statement around it, nor a site in the header the body."""
    statements = Statements(COND)
    assert list(statements.lines(Span(line=3, column=11, end_line=3, end_column=15))) == [3, 4, 5, 6]
    assert list(statements.lines(Span(line=7, column=19, end_line=7, end_column=23))) == [7]
    assert list(statements.lines(Span(line=2, column=7, end_line=2, end_column=12))) == [2]


@pytest.fixture(scope="module")
def gaps_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gaps") / "proj"
    (root / "gaps").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "gaps" / "__init__.py").write_text("")
    (root / "gaps" / "cond.py").write_text(COND)
    (root / "gaps" / "par.py").write_text(PAR)
    (root / "gaps" / "consts.py").write_text(CONSTS)
    (root / "tests" / "conftest.py").write_text(CONFTEST)
    (root / "tests" / "test_gaps.py").write_text(TESTS)
    (root / "tests" / "test_unrelated.py").write_text(UNRELATED)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["gaps"]
        tests = ["tests"]
        jobs = 2

        [tool.pytest.ini_options]
        filterwarnings = ["error"]
        '''))
    return root


@pytest.fixture(scope="module")
def gaps_run(gaps_project: Path):
    """One run of the operators the cases need."""
    options = resolve(gaps_project, operators=("classic/drop-unary", "classic/arithmetic-swap",
                                               "classic/number"))
    result = harness.run(options)
    mutants = {m.id: m for m in result.mutants}
    return {(mutants[o.mutant_id].file, mutants[o.mutant_id].span.line, mutants[o.mutant_id].original,
             mutants[o.mutant_id].mutated): o for o in result.outcomes}


@pytest.mark.slow
def test_a_dropped_not_on_a_line_without_a_line_event_is_killed(gaps_run) -> None:
    """semver's case: `if not (` over several lines; plain pytest kills the mutant, so must we."""
    outcome = gaps_run[("gaps/cond.py", 3, "not ", "")]
    assert outcome.status.value == "killed", outcome
    assert outcome.killed_by == ("tests/test_gaps.py::test_tagged",)


@pytest.mark.slow
def test_code_run_in_a_fork_pool_is_covered_and_its_mutant_killed(gaps_run) -> None:
    """`square` only runs in the pool's forked children: the baseline follows it there."""
    outcome = gaps_run[("gaps/par.py", 5, "*", "/")]
    assert outcome.status.value == "killed", outcome
    assert outcome.killed_by == ("tests/test_gaps.py::test_squares",)


@pytest.mark.slow
def test_a_suite_that_turns_warnings_into_errors_has_a_green_baseline(gaps_run) -> None:
    """python-slugify's case: `filterwarnings = ["error"]` and a test file that runs none of the
    mutated code (coverage warns "No data was collected" in that chunk): the run completes."""
    assert gaps_run  # the baseline passed, or harness.run would have raised


@pytest.mark.slow
def test_a_mutant_that_breaks_the_import_is_killed_with_the_import_error(gaps_run) -> None:
    """`DIVISOR = 0` makes the conftest's import raise: plain pytest fails the run, so the mutant
    is killed, and the error says why."""
    assert gaps_run[("gaps/consts.py", 1, "1", "2")].status.value == "survived"  # 10 // 2 imports
    broken = gaps_run[("gaps/consts.py", 1, "1", "0")]
    assert broken.status.value == "killed", broken
    assert broken.exception == "ZeroDivisionError"
    assert "division" in broken.message



@pytest.mark.slow
def test_the_fresh_interpreter_baseline_follows_forked_children_and_never_warns(gaps_project: Path) -> None:
    """The subprocess executors' baseline (`child.coverage_run` in its own interpreter) sees the
    pool's children too, under the same `filterwarnings = ["error"]`."""
    sources = tuple(str(path) for path in sorted((gaps_project / "gaps").glob("*.py")))
    setup = WorkerSetup(root=str(gaps_project), pytest_args=(), test_paths=("tests",), sources=sources,
                        memory_limit_mb=1024)
    baseline = run_baseline(setup, worker_env(str(gaps_project)))
    assert baseline.lines["gaps/par.py"][5] == ("tests/test_gaps.py::test_squares",)


def test_the_folder_for_forked_childrens_lines_is_made_only_by_a_child_that_saves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Most suites fork no child: no folder then (a test process killed at its limit never
    merges, and each left an empty one in /tmp). A child's save makes it; the merge removes it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    children = ForkedChildren(quiet_coverage([]), str(tmp_path))
    assert not children.folder.exists()
    pid = os.fork()
    if pid == 0:  # the child saves on its way out (ForkedChildren._in_child)
        os._exit(0)
    os.waitpid(pid, 0)
    assert children.folder.is_dir()
    children.merge(Coverage(lines={}))
    assert not children.folder.exists()
