"""The preloader (harness.shared.preload): a run leaves a process with the suite's third-party imports
done; the next run's zygote is forked from it, gives the verdicts a zygote started as an
interpreter gives, draws fresh random numbers, and meets no stale code: a third-party file that
changed, a warning at import, a project folder that is gone or a quiet while end the preloader."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bugsmith.errors import ConfigError
from bugsmith.harness import config
from bugsmith.harness.mutation_run import run
from bugsmith.harness.shared import leftovers, preload, zygote
from bugsmith.harness.shared.interpreter import helper_launch
from bugsmith.harness.shared.protocol import WorkerSetup

pytestmark = [pytest.mark.slow,  # real worker processes, and preloaders that import
              pytest.mark.skipif(not zygote.available(), reason="zygotes are forked only on Linux")]

WAIT = 120.0  # seconds a preloader may take to come up or go at load 8; each wait ends as soon as it can

THIRD_PARTY = ("import os\nimport warnings\n\nimport numpy\n\n"
               "with open(os.environ['MARKS'], 'a') as marks:\n"
               "    marks.write(f'{os.getpid()}\\n')\n"
               "os.environ['SET_BY_IMPORT'] = 'yes'  # as scikit-learn sets KMP_DUPLICATE_LIB_OK\n"
               "warnings.filterwarnings('ignore', message='from-thirdparty')  # as requests does\n"
               "FACTOR = 2\n")
CODE = ("from thirdparty_marked import FACTOR\n\n\n"
        "def double(x):\n    return x * FACTOR\n\n\n"
        "def positive(x):\n    return x > 0\n")
TESTS = ("import os\nimport warnings\n\nimport numpy\n\n"
         "from calc import double, positive\n\n"
         "kept = any(f[1] is not None and f[1].pattern == 'from-thirdparty' for f in warnings.filters)\n"
         "with open(os.environ['DRAWS'], 'a') as draws:  # once per collection: in the zygote\n"
         "    draws.write(f'{os.getpid()} {numpy.random.random()} {os.environ.get(\"SET_BY_IMPORT\")} {kept}\\n')\n\n\n"
         "def test_double():\n    assert double(3) == 6\n\n\n"
         "def test_positive():\n    assert positive(2)\n    assert not positive(-2)\n")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project whose package imports a module from outside it (on PYTHONPATH, as an installed
    library would be), which writes the pid that imported it; the test module writes the pid
    that collected it and a random draw. Every preloader it leaves is killed afterwards."""
    site, root = tmp_path / "site", tmp_path / "project"
    site.mkdir()
    (site / "thirdparty_marked.py").write_text(THIRD_PARTY)
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text(CODE)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["calc"]\ntests = ["tests"]\njobs = 1\n')
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("MARKS", str(tmp_path / "marks"))
    monkeypatch.setenv("DRAWS", str(tmp_path / "draws"))
    yield root
    for pid in _preloaders(tmp_path):
        _kill(pid)


def _preloaders(under: Path) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue
        if b"bugsmith.harness.child.preloader" in cmdline and cwd.startswith(str(under)):
            found.append(int(name))
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def _options(root: Path, preload: bool = True) -> config.RunOptions:
    return config.resolve(root, preload=preload)


def _log(root: Path) -> str:
    path = root / ".bugsmith" / "logs" / "preloader.log"
    return path.read_text() if path.exists() else ""


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.1)


def _ready(root: Path, count: int = 1) -> None:
    _until(lambda: _log(root).count(": ready:") >= count, "the preloader's imports")


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")[:-1] if path.exists() else []


def _verdicts(root: Path, preload: bool) -> dict[str, str]:
    result = run(_options(root, preload))
    return {o.mutant_id: o.status.value for o in result.outcomes}


def _edit(root: Path, old: str, new: str) -> None:
    path = root / "calc" / "__init__.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_next_zygote_is_forked_from_the_preloader_and_gives_the_same_verdicts(project: Path) -> None:
    tmp = project.parent
    _verdicts(project, preload=True)
    _ready(project)
    preloader_pid = int(_log(project).split(": ready:")[0].rsplit("preloader ", 1)[1].split()[0])
    assert str(preloader_pid) in _lines(tmp / "marks")  # it imported the library

    _edit(project, "return x * FACTOR", "return FACTOR * x")  # new code, the same meaning
    _verdicts(project, preload=True)
    zygote_pid = _lines(tmp / "draws")[-1].split()[0]
    assert f"forked zygote {zygote_pid}" in _log(project)
    assert zygote_pid not in _lines(tmp / "marks")  # the library came with the fork, not imported again

    _edit(project, "return x > 0", "return 0 < x")
    again = _verdicts(project, preload=True)
    draws = _lines(tmp / "draws")
    assert draws[-1].split()[0] != zygote_pid and f"forked zygote {draws[-1].split()[0]}" in _log(project)
    assert draws[-1].split()[1] != draws[-2].split()[1]  # numpy reseeded in each zygote (fork does not)
    assert draws[-1].split()[2:] == draws[0].split()[2:] == ["yes", "True"]  # what the import set, kept

    plain = tmp / "plain"  # the same code and tests, no preloader: the verdicts to match
    shutil.copytree(project, plain, ignore=shutil.ignore_patterns(".bugsmith"))
    assert _verdicts(plain, preload=False) == again and "killed" in again.values()


def test_a_changed_library_ends_the_preloader_and_the_zygote_imports_it_again(project: Path) -> None:
    tmp = project.parent
    _verdicts(project, preload=True)
    _ready(project)
    library = tmp / "site" / "thirdparty_marked.py"
    library.write_text(library.read_text().replace("FACTOR = 2", "FACTOR = 2  # upgraded"))
    _edit(project, "return x * FACTOR", "return FACTOR * x")
    _verdicts(project, preload=True)
    zygote_pid = _lines(tmp / "draws")[-1].split()[0]
    assert zygote_pid in _lines(tmp / "marks")  # imported afresh by an interpreter started as ever
    assert "thirdparty_marked.py changed" in _log(project)
    _ready(project, count=2)  # and that run left a new preloader


def test_no_preloader_without_preload(project: Path) -> None:
    _verdicts(project, preload=False)
    assert not _log(project) and not _preloaders(project.parent)


def _start(root: Path, modules: tuple[str, ...], idle: float = preload.IDLE_SECONDS,
           plugins: tuple[str, ...] = ()) -> str:
    setup = WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",), sources=(), memory_limit_mb=1024)
    launch = helper_launch("bugsmith.harness.child.preloader", setup, None,
                           {leftovers.VARIABLE: leftovers.member_mark(preload.PLACEHOLDER, leftovers.ZYGOTE)})
    name = preload.address(str(root), "", launch.env)
    start = preload.Start(address=name, root=str(root), origin="", modules=modules, plugins=plugins, idle=idle)
    (root / ".bugsmith" / "logs").mkdir(parents=True, exist_ok=True)
    assert preload.start_preloader(start, launch.argv, launch.env, launch.cwd,
                                   root / ".bugsmith" / "logs" / "preloader.log")
    return name


def test_a_module_that_warns_at_import_ends_the_preloader(project: Path) -> None:
    (project.parent / "site" / "warns_at_import.py").write_text(
        "import warnings\nwarnings.warn('deprecated', DeprecationWarning)\n")
    name = _start(project, ("thirdparty_marked", "warns_at_import"))
    _until(lambda: "ends:" in _log(project), "the preloader's end")
    assert "importing warns_at_import warned: deprecated" in _log(project)
    _until(lambda: not preload.alive(name), "the socket closed")


def test_a_module_of_the_project_is_never_preloaded(project: Path) -> None:
    name = _start(project, ("calc",))  # resolved inside the project: its import code ran in the preloader
    _until(lambda: "ends:" in _log(project), "the preloader's end")
    assert "calc resolved inside the project" in _log(project)
    _until(lambda: not preload.alive(name), "the socket closed")


def test_a_pytest_plugin_imported_through_another_module_ends_the_preloader(project: Path) -> None:
    site = project.parent / "site"
    (site / "some_plugin.py").write_text("VALUE = 1\n")
    (site / "uses_a_plugin.py").write_text("import some_plugin\n")
    name = _start(project, ("uses_a_plugin",), plugins=("some_plugin",))
    _until(lambda: "ends:" in _log(project), "the preloader's end")
    assert "some_plugin (a pytest plugin's) was imported" in _log(project)
    _until(lambda: not preload.alive(name), "the socket closed")


def test_a_suite_that_sets_the_environment_as_it_starts_ends_the_preloader(project: Path) -> None:
    (project / "tests" / "conftest.py").write_text("import os\nos.environ['SET_BY_CONFTEST'] = '1'\n")
    _verdicts(project, preload=True)  # the library's own variable is set by its import, in the preloader too
    _until(lambda: "ends:" in _log(project), "the preloader's end")
    assert "the suite's start-up sets SET_BY_CONFTEST" in _log(project)


def test_a_zygote_forked_that_cannot_collect_falls_back_and_retires_the_preloader(project: Path) -> None:
    site = project.parent / "site"  # a library that must be imported by the process that uses it
    (site / "thirdparty_marked.py").write_text(THIRD_PARTY + "IMPORTED_IN = os.getpid()\n")
    tests = project / "tests" / "test_calc.py"
    tests.write_text("import os\nimport thirdparty_marked\n"
                     "assert thirdparty_marked.IMPORTED_IN == os.getpid()\n" + tests.read_text())
    _verdicts(project, preload=True)
    _ready(project)
    first = int(_log(project).split(": ready:")[0].rsplit("preloader ", 1)[1].split()[0])
    _edit(project, "return x * FACTOR", "return FACTOR * x")
    warm = _verdicts(project, preload=True)
    assert "forked zygote" in _log(project)  # asked, and its zygote could not collect
    _until(lambda: not _alive(first), "the first preloader's end")
    plain = project.parent / "plain"
    shutil.copytree(project, plain, ignore=shutil.ignore_patterns(".bugsmith"))
    assert _verdicts(plain, preload=False) == warm and "killed" in warm.values()


def test_the_preloader_ends_after_its_quiet_while_or_with_its_project(project: Path, tmp_path: Path) -> None:
    name = _start(project, ("thirdparty_marked",), idle=0.5)
    _until(lambda: "ends: idle" in _log(project), "the idle end")
    _until(lambda: not preload.alive(name), "the socket closed")

    other = tmp_path / "gone"
    (other / "tests").mkdir(parents=True)
    name = _start(other, ("thirdparty_marked",))
    _until(lambda: "ready:" in _log(other), "its imports")
    shutil.rmtree(other)
    _until(lambda: not preload.alive(name), "the end once the project is gone")


def test_the_address_changes_with_the_environment_and_not_with_shell_bookkeeping(tmp_path: Path) -> None:
    base = {"PATH": "/usr/bin", "HOME": "/root"}
    first = preload.address(str(tmp_path), "", base)
    assert preload.address(str(tmp_path), "", {**base, "_": "/usr/bin/bugsmith", "SHLVL": "3"}) == first
    assert preload.address(str(tmp_path), "", {**base, leftovers.VARIABLE: "x" * 39}) == first
    assert preload.address(str(tmp_path), "", {**base, "OMP_NUM_THREADS": "4"}) != first
    assert preload.address(str(tmp_path / "other"), "", base) != first


def test_preload_is_a_flag_in_the_table_and_on_the_command_line(tmp_path: Path, small_project) -> None:
    root = small_project(tmp_path / "p")
    assert config.resolve(root).preload is False  # the library's default
    assert config.resolve(root, preload=True).preload is True  # the CLI's
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "preload = false\n")
    assert config.resolve(root, preload=True).preload is False
    pyproject.write_text(pyproject.read_text().replace("preload = false", 'preload = "yes"'))
    with pytest.raises(ConfigError, match="preload must be true or false"):
        config.resolve(root)
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report"], cwd=root,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "preload must be true or false" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_variable_turns_off_what_the_table_turns_on_and_the_flag_beats_both(tmp_path: Path, small_project,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from bugsmith.harness import cli, mutation_run

    root = small_project(tmp_path / "p")
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text() + "preload = true\n")
    seen: list[bool] = []

    def noted(options: config.RunOptions, **_: object) -> None:  # the options the CLI resolved; no run
        seen.append(options.preload)
        raise SystemExit(0)

    monkeypatch.setattr(mutation_run, "run", noted)
    monkeypatch.chdir(root)
    for variable, flags in (("0", []), ("1", []), ("0", ["--preload"]), ("1", ["--no-preload"])):
        monkeypatch.setenv("BUGSMITH_PRELOAD", variable)
        CliRunner().invoke(cli.cli, ["run", "--no-report", *flags])
    assert seen == [False, True, True, False]


def test_a_run_with_preload_writes_nothing_into_the_tree(project: Path) -> None:
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if ".bugsmith" not in p.parts)
    _verdicts(project, preload=True)
    _ready(project)
    _edit(project, "return x * FACTOR", "return FACTOR * x")
    _verdicts(project, preload=True)
    after = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if ".bugsmith" not in p.parts)
    assert after == before


def test_a_run_right_after_the_last_waits_for_the_preloader_rather_than_import_beside_it(project: Path) -> None:
    _verdicts(project, preload=True)  # leaves a preloader that listens as the run returns, then imports
    _edit(project, "return x * FACTOR", "return FACTOR * x")
    _verdicts(project, preload=True)
    zygote_pid = _lines(project.parent / "draws")[-1].split()[0]
    assert f"forked zygote {zygote_pid}" in _log(project)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_pool_left_before_it_needs_its_zygote_leaves_none_running(project: Path) -> None:
    from bugsmith.harness.executors.fork_pool import ForkPool

    _verdicts(project, preload=True)
    _ready(project)
    setup = WorkerSetup(root=str(project / ".bugsmith" / "tree"), pytest_args=(), test_paths=("tests",),
                        sources=(str(project / ".bugsmith" / "tree" / "calc" / "__init__.py"),),
                        memory_limit_mb=1024, origin=str(project))
    with ForkPool(setup, 1, project / ".bugsmith" / "logs", preload=True):
        pass  # asked the preloader for a zygote, never took it
    _until(lambda: "forked zygote" in _log(project).split(": ready:")[-1], "the zygote it forked")
    pid = int(_log(project).split("forked zygote ")[-1].split()[0])
    _until(lambda: not _alive(pid), "the unused zygote's end")


def test_a_zygote_that_imports_more_than_its_preloader_held_gets_it_replaced(project: Path) -> None:
    (project.parent / "site" / "another_library.py").write_text("import os\nLOADED = True\n")
    _verdicts(project, preload=True)
    _ready(project)
    first = int(_log(project).split(": ready:")[0].rsplit("preloader ", 1)[1].split()[0])
    _edit(project, "from thirdparty_marked import FACTOR\n", "import another_library\nfrom thirdparty_marked import FACTOR\n")
    _verdicts(project, preload=True)  # its zygote, forked from the first, imported another_library itself
    _until(lambda: not _alive(first), "the first preloader's end")
    _ready(project, count=2)
    readies = [line for line in _log(project).splitlines() if ": ready:" in line]
    assert f"preloader {first} " in readies[0] and f"preloader {first} " not in readies[1]


def test_a_virtual_environment_inside_the_project_holds_installed_modules_not_the_projects(tmp_path: Path,
                                                                                            monkeypatch) -> None:
    from bugsmith.harness.child.preloadable import Project

    root = tmp_path / "project"
    monkeypatch.setattr(sys, "prefix", str(root / ".venv"))
    monkeypatch.setattr(sys, "exec_prefix", str(root / ".venv"))
    found = Project(str(root / ".bugsmith" / "tree"), str(root))
    assert found.holds(str(root / "src" / "shop" / "__init__.py"))
    assert found.holds(str(root / ".bugsmith" / "tree" / "src" / "shop" / "__init__.py"))
    assert not found.holds(str(root / ".venv" / "lib" / "python3.11" / "site-packages" / "numpy" / "__init__.py"))
    assert not found.holds(str(tmp_path / "elsewhere" / "numpy" / "__init__.py"))


def test_the_preloader_maps_its_modules_files_as_inspect_would_later() -> None:
    """After its imports, the preloader has inspect map every imported module's file (coverage
    asks for the module of each frame on the stack as each worker starts it): a zygote forked
    from it inherits the map and maps only what it imports itself."""
    script = (
        "import inspect, json, os\n"
        "from bugsmith.harness.child.preloading import _map_module_files\n"
        "file = os.path.realpath(json.__file__)\n"
        "assert file not in inspect.modulesbyfile\n"
        "_map_module_files()\n"
        "assert inspect.modulesbyfile[file] == 'json', inspect.modulesbyfile.get(file)\n"
        "assert inspect.getmodule(json.dumps.__code__) is json\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
