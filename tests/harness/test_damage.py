"""A mutant cannot damage the project, and every process it starts dies with it (issue 14).

Mutants run in a private copy of the project (harness.executors.project_copy): a mutant that deletes
files of its working folder deletes the copy's; the baseline names a suite that writes into
its own tree; a change to the user's tree during a run is reported. A process a mutant starts
in a session of its own is killed after its job, and when its worker is killed mid-job.
"""

from __future__ import annotations

import os
import signal
import textwrap
import threading
import time
import uuid
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import pytest
from toyproject import SwapLessThan, by_source, tree_digest

from bugsmith import harness
from bugsmith.harness.config import resolve
from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.mutators.base import Mutator
from bugsmith.mutators.mutant import Family

pytestmark = pytest.mark.slow  # real runs: worker processes, mutants


class IsNotToIs(Mutator):
    """`is not` becomes `is`: a toy operator for harness tests."""

    name = "toy/is-not-to-is"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.ComparisonTarget(operator=m.IsNot())
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(operator=cst.Is())


CLEANER = '''\
import os


def clean(workdir=None):
    """Remove the *.tmp files of `workdir`; nothing without one."""
    if workdir is not None:
        for name in os.listdir(workdir):
            if name.endswith(".tmp"):
                os.remove(os.path.join(workdir, name))
    return workdir
'''

CLEANER_TESTS = '''\
from pathlib import Path

from tidy.clean import clean


def test_nothing_without_a_folder():
    assert clean() is None


def test_removes_temporary_files(tmp_path):
    (tmp_path / "a.tmp").write_text("x")
    clean(tmp_path)
    assert not (tmp_path / "a.tmp").exists()


def test_reads_data_by_relative_path_and_by_file():
    assert open("data/input.txt").read() == "42"
    assert (Path(__file__).parent / "expected.txt").read_text() == "42"
'''


def _project(root: Path, code: str, tests: str, package: str = "tidy", module: str = "clean") -> Path:
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / f"{module}.py").write_text(code)
    (root / "tests").mkdir()
    (root / "tests" / f"test_{module}.py").write_text(tests)
    (root / "pyproject.toml").write_text(textwrap.dedent(f'''\
        [tool.bugsmith]
        paths = ["{package}"]
        tests = ["tests"]
        jobs = 1
        '''))
    return root


@pytest.fixture
def cleaner(tmp_path: Path) -> Path:
    root = _project(tmp_path / "proj", CLEANER, CLEANER_TESTS)
    (root / "data").mkdir()
    (root / "data" / "input.txt").write_text("42")
    (root / "tests" / "expected.txt").write_text("42")
    (root / "data.tmp").write_text("the user's data")
    return root


def test_a_mutant_that_deletes_files_of_its_folder_leaves_the_project_alone(cleaner: Path) -> None:
    """`is not None` flipped makes `clean()` empty the working folder: the copy's, never the
    project's; the verdict is the one plain pytest gives (killed), and the run warns of nothing."""
    before = tree_digest(cleaner)
    result = harness.run(resolve(cleaner), mutators=(IsNotToIs(),))
    assert (cleaner / "data.tmp").read_text() == "the user's data"
    assert tree_digest(cleaner) == before
    assert [o.status.value for o in result.outcomes] == ["killed"]
    assert result.warnings == ()
    assert result.root == str(cleaner)
    assert [m.file for m in result.mutants] == ["tidy/clean.py"]


def test_the_baseline_names_a_suite_that_writes_into_its_tree(cleaner: Path) -> None:
    """A test that leaves a file in its working folder is reported after the baseline (it
    writes into the copy, so the user's tree stays as it was)."""
    tests = cleaner / "tests" / "test_clean.py"
    tests.write_text(tests.read_text() + "\n\ndef test_writes_a_log():\n    open('run.log', 'w').write('x')\n")
    before = tree_digest(cleaner)
    result = harness.run(resolve(cleaner), mutators=(IsNotToIs(),))
    assert any("test suite itself changes" in w and "created run.log" in w for w in result.warnings)
    assert tree_digest(cleaner) == before
    again = harness.run(resolve(cleaner), mutators=(IsNotToIs(),))  # the stored baseline still says so
    assert any("created run.log" in w for w in again.warnings)


def test_a_change_to_the_project_during_the_run_is_reported(cleaner: Path, monkeypatch) -> None:
    """Without private views (BUGSMITH_PRIVATE_VIEW=0), a test that writes into the project by
    its absolute path escapes the copy: the check of the tree after the run says what changed
    instead of staying silent."""
    monkeypatch.setenv("BUGSMITH_PRIVATE_VIEW", "0")
    tests = cleaner / "tests" / "test_clean.py"
    escaped = cleaner / "escaped.txt"
    tests.write_text(tests.read_text() + f"\n\ndef test_escapes():\n    open({str(escaped)!r}, 'w').write('x')\n")
    result = harness.run(resolve(cleaner), mutators=(IsNotToIs(),))
    assert any("tree changed during the run" in w and "created escaped.txt" in w for w in result.warnings)


def test_a_write_into_the_project_by_absolute_path_stays_in_the_jobs_view(cleaner: Path) -> None:
    """With private views (the default where the platform has them), the same write never
    reaches the project, and the run says the suite tried."""
    tests = cleaner / "tests" / "test_clean.py"
    escaped = cleaner / "escaped.txt"
    tests.write_text(tests.read_text() + f"\n\ndef test_escapes():\n    open({str(escaped)!r}, 'w').write('x')\n")
    before = tree_digest(cleaner)
    result = harness.run(resolve(cleaner), mutators=(IsNotToIs(),))
    assert tree_digest(cleaner) == before
    assert any("writes into the project itself" in w and f"created {escaped}" in w for w in result.warnings)


def test_a_source_folder_on_the_path_is_imported_from_the_copy(tmp_path: Path, monkeypatch) -> None:
    """A src layout put on the path by PYTHONPATH (as an editable install's .pth does): the
    workers import the copy's package, so mutants are activated and killed, and the project's
    files are never run."""
    root = tmp_path / "proj"
    _project(root / "src", CLEANER, CLEANER_TESTS)
    (root / "src" / "tests").rename(root / "tests")
    (root / "src" / "pyproject.toml").rename(root / "pyproject.toml")
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["src/tidy"]\ntests = ["tests"]\njobs = 1\n')
    (root / "data").mkdir()
    (root / "data" / "input.txt").write_text("42")
    (root / "tests" / "expected.txt").write_text("42")
    (root / "data.tmp").write_text("the user's data")
    monkeypatch.setenv("PYTHONPATH", str(root / "src"))
    before = tree_digest(root)
    result = harness.run(resolve(root), mutators=(IsNotToIs(),))
    assert [o.status.value for o in result.outcomes] == ["killed"]
    assert tree_digest(root) == before


EDITABLE_FINDER = """\
import importlib.abc
import importlib.util
import sys


class Editable(importlib.abc.MetaPathFinder):
    # What setuptools' __editable___*_finder does: a package mapped to its folder.
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tidy":
            return None
        return importlib.util.spec_from_file_location(
            "tidy", {init!r}, submodule_search_locations=[{folder!r}])


sys.meta_path.append(Editable())
"""


def test_a_package_an_editable_finder_maps_into_the_project_is_imported_from_the_copy(
        tmp_path: Path, monkeypatch) -> None:
    """An editable install's finder maps the package to the project's `src/tidy`: the workers
    load the copy's files instead, so coverage sees them and the mutant is killed."""
    root = tmp_path / "proj"
    _project(root / "src", CLEANER, CLEANER_TESTS)
    (root / "src" / "tests").rename(root / "tests")
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["src/tidy"]\ntests = ["tests"]\njobs = 1\n')
    (root / "src" / "pyproject.toml").unlink()
    (root / "data").mkdir()
    (root / "data" / "input.txt").write_text("42")
    (root / "tests" / "expected.txt").write_text("42")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(EDITABLE_FINDER.format(
        init=str(root / "src" / "tidy" / "__init__.py"), folder=str(root / "src" / "tidy")))
    monkeypatch.setenv("PYTHONPATH", str(site))
    before = tree_digest(root)
    result = harness.run(resolve(root), mutators=(IsNotToIs(),))
    assert [o.status.value for o in result.outcomes] == ["killed"]
    assert tree_digest(root) == before


# --- processes ---------------------------------------------------------------------------

LAUNCHER = '''\
import subprocess
import sys
import time

MARK = "{mark}"


def start():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", MARK],
                     start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def launch(n):
    if 0 < n:
        start()
    return n


def hang(n):
    if 0 < n:
        start()
        time.sleep(60)
    return n
'''

LAUNCHER_TESTS = '''\
from launch.work import hang, launch


def test_launch():
    assert launch(0) == 0


def test_hang():
    assert hang(0) == 0
'''


def _running(mark: str) -> list[int]:
    """Processes whose command line holds `mark` (zombies have none)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                    if mark.encode() in cmdline.read():
                        found.append(int(name))
            except OSError:
                continue
    return found


def _gone(mark: str, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while _running(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _running(mark)


@pytest.fixture
def launcher(tmp_path: Path):
    mark = f"bugsmith-test-{uuid.uuid4().hex}"
    root = _project(tmp_path / "proj", LAUNCHER.format(mark=mark), LAUNCHER_TESTS, package="launch", module="work")
    yield root, mark
    for pid in _running(mark):  # never leave one behind, whatever the test found
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_process_a_mutant_starts_in_a_session_of_its_own_dies_with_it(launcher, isolation: str) -> None:
    """`0 < n` becomes `0 <= n`: one mutant starts a process and returns (survived), one starts
    it and hangs (timeout, run twice); none of the processes outlives its job."""
    root, mark = launcher
    result = harness.run(resolve(root, isolation=isolation, timeout_factor=1.0), mutators=(SwapLessThan(),))
    assert sorted(by_source(result).values()) == ["survived", "timeout"]
    assert _gone(mark), f"left running: {_running(mark)}"


def test_a_worker_killed_mid_mutant_leaves_no_orphan(launcher) -> None:
    """SIGKILL of a worker while its job runs: the job's forked child dies with it, and the
    process the job started in its own session is killed by the pool."""
    root, mark = launcher
    path = str(root / "launch" / "work.py")
    setup = WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",), sources=(path,), memory_limit_mb=1024)
    source = (root / "launch" / "work.py").read_text().replace("    if 0 < n:\n        start()\n        time.sleep",
                                                              "    if 0 <= n:\n        start()\n        time.sleep")
    job = Job(mutant_id="hang", module="launch.work", path=path, function="hang", source=source,
              tests=("tests/test_work.py::test_hang",), timeout=3.0, limits=(3.0,))
    children: list[int] = []

    with ForkPool(setup, 1, root / ".bugsmith" / "logs") as pool:
        def kill_the_worker() -> None:
            deadline = time.monotonic() + 60
            while not _running(mark) and time.monotonic() < deadline:
                time.sleep(0.05)
            worker = pool.workers[0].process.pid
            children.extend(_children(worker))
            os.kill(worker, signal.SIGKILL)

        killer = threading.Thread(target=kill_the_worker)
        killer.start()
        verdicts: list[Verdict] = []
        pool.run([job], lambda _, verdict: verdicts.append(verdict))
        killer.join()
    assert children, "the worker had a forked child running the job"
    assert verdicts and verdicts[0].timed_out  # the retry on a fresh worker ran out of time
    assert _gone(mark), f"left running: {_running(mark)}"
    assert not [pid for pid in children if _alive(pid)], "the job's forked child outlived its worker"


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            found += [int(child) for child in listing.read().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
