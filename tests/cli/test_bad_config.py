"""A wrong `[tool.bugsmith]` table is one line that names the key, and exit status 2.

Through click's CliRunner (the command raises the error the real entry point turns into one
line) and, for a few, through a real process, whose stderr must hold that line and nothing else.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.errors import BugsmithError, ConfigError
from bugsmith.harness.cli import cli
from bugsmith.harness.shared.interpreter import worker_env


def project(root: Path, table: str) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("def f(x):\n    return x + 1\n")
    (root / "tests" / "test_f.py").write_text("from pkg import f\n\n\ndef test_f():\n    assert f(1) == 2\n")
    (root / "pyproject.toml").write_text(table)
    return root


def config_error(root: Path, *args: str) -> str:
    """The message of the ConfigError `bugsmith ARGS` raises in `root`; it must be one line."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        done = CliRunner().invoke(cli, list(args))
    assert isinstance(done.exception, ConfigError), (done.exception, done.output)
    message = str(done.exception)
    assert done.exception.exit_code == 2 and "\n" not in message
    return message


TABLE = '[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\n'


@pytest.mark.parametrize(("extra", "expected"), [
    ('jobs = "two"', "[tool.bugsmith] jobs must be a whole number, not 'two'"),
    ("jobs = true", "[tool.bugsmith] jobs must be a whole number"),
    ("jobs = 0", "[tool.bugsmith] jobs must be at least 1"),
    ("memory-limit-mb = -5", "[tool.bugsmith] memory-limit-mb must be at least 64, not -5"),
    ('memory-limit-mb = "lots"', "[tool.bugsmith] memory-limit-mb must be a whole number"),
    ("timeout-factor = 0", "[tool.bugsmith] timeout-factor must be positive"),
    ('timeout-factor = "3"', "[tool.bugsmith] timeout-factor must be a number"),
    ('isolation = "thread"', "[tool.bugsmith] isolation must be one of fork, subprocess"),
    ("pytest-args = 5", "[tool.bugsmith] pytest-args must be a list of strings"),
    ('families = ["shapes"]', "[tool.bugsmith] families: unknown family 'shapes'"),
    ("exclude = [1]", "[tool.bugsmith] exclude must be a list of strings"),
    ("equivalents = 3", "[tool.bugsmith] equivalents must be a path"),
    ("exercises = 3", "[tool.bugsmith] exercises must be a table"),
    ("jbos = 2", "unknown key 'jbos' in [tool.bugsmith]; did you mean 'jobs'"),
    ("timeout_factr = 2.0", "unknown key 'timeout-factr' in [tool.bugsmith]; did you mean 'timeout-factor'"),
    ("colour = 1", "unknown key 'colour' in [tool.bugsmith] (known keys: paths, tests,"),
])
def test_every_key_is_checked_and_named(tmp_path: Path, extra: str, expected: str) -> None:
    """Each key's type and range is checked before anything runs, and the error names the key
    (an unknown key gets the nearest known one): `jobs = "two"` used to name no key and
    `memory-limit-mb = -5` was accepted."""
    root = project(tmp_path / "p", TABLE + extra + "\n")
    assert expected in config_error(root, "run")


@pytest.mark.parametrize("paths", ['["../x"]', '["pkg/../../x"]', '["/etc"]'])
@pytest.mark.parametrize("key", ["paths", "tests"])
def test_paths_outside_the_project_are_refused(tmp_path: Path, key: str, paths: str) -> None:
    """`paths` and `tests` must stay inside the project (they used to end in `ValueError ... is
    not in the subpath`)."""
    (tmp_path / "x").mkdir()
    other = "tests" if key == "paths" else "paths"
    root = project(tmp_path / "p", f'[tool.bugsmith]\n{key} = {paths}\n{other} = ["{other if other == "tests" else "pkg"}"]\n')
    assert "is not inside the project" in config_error(root, "run")


def test_a_symlinked_folder_that_leads_outside_is_refused(tmp_path: Path) -> None:
    """A configured path that is a symlink out of the project is refused by where it leads."""
    (tmp_path / "elsewhere").mkdir()
    root = project(tmp_path / "p", '[tool.bugsmith]\npaths = ["linked"]\ntests = ["tests"]\n')
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    assert "leads outside the project root" in config_error(root, "mutants")


@pytest.mark.parametrize("tool", ["[tool]\nbugsmith = 5\n", "[tool]\nbugsmith = []\n", "tool = 3\n"])
def test_a_bugsmith_table_that_is_not_a_table(tmp_path: Path, tool: str) -> None:
    """`[tool] bugsmith = 5` (or `= []`) is a configuration error, not a TypeError."""
    root = project(tmp_path / "p", tool)
    assert "must be a table" in config_error(root, "run")


def test_the_command_line_passes_the_same_checks(tmp_path: Path) -> None:
    """`--jobs 0` and `--timeout-factor -1` go through the table's checks, named as options."""
    root = project(tmp_path / "p", TABLE)
    assert "--jobs must be at least 1" in config_error(root, "run", "--jobs", "0")
    assert "--timeout-factor must be positive" in config_error(root, "run", "--timeout-factor", "-1")


@pytest.mark.parametrize(("table", "expected"), [
    (TABLE + 'jobs = "two"\n', "jobs must be a whole number"),
    ("[tool]\nbugsmith = 5\n", "[tool.bugsmith] must be a table"),
    ('[tool.bugsmith]\npaths = ["../x"]\n', "is not inside the project"),
])
def test_a_real_process_prints_one_line_and_exits_2(tmp_path: Path, table: str, expected: str) -> None:
    """The entry point turns the error into one line on stderr, exit 2, and no traceback."""
    root = project(tmp_path / "p", table)
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run"], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and expected in done.stderr and "Traceback" not in done.stderr
    assert not (root / ".bugsmith").exists()


def test_a_good_table_still_reads(tmp_path: Path) -> None:
    """Every key at a sensible value, with dashes or underscores, is accepted."""
    root = project(tmp_path / "p", TABLE + 'pytest_args = ["-q"]\njobs = 2\ntimeout-factor = 2\n'
                   'memory-limit-mb = 512\nisolation = "subprocess"\nfamilies = ["classic"]\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        done = CliRunner().invoke(cli, ["mutants"])
    assert done.exit_code == 0 and not isinstance(done.exception, BugsmithError), done.output


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_pytest_args_that_pytest_rejects_say_what_pytest_said(tmp_path: Path, isolation: str) -> None:
    """An option pytest does not know is a configuration error quoting pytest (exit 2); it used
    to be "a worker died while collecting the tests: exit status 0" (exit 3)."""
    root = project(tmp_path / "p", TABLE + 'pytest-args = ["--no-such-option"]\n')
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--isolation", isolation],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("bugsmith: error:")]
    assert errors == ["bugsmith: error: pytest refused its arguments: unrecognized arguments: --no-such-option"
                      " (check pytest-args in [tool.bugsmith] and addopts in the project's pytest configuration)"]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_plugin_that_breaks_pytest_is_named_in_the_error(tmp_path: Path, isolation: str) -> None:
    """pytest's internal error goes to stdout, which a worker points at /dev/null: the error
    quotes the exception instead (it was "exit status 0", or "no tests were collected")."""
    root = project(tmp_path / "p", TABLE)
    (root / "tests" / "conftest.py").write_text(
        "def pytest_configure(config):\n    raise RuntimeError('the plugin cannot start')\n")
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--isolation", isolation],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False)
    errors = [line for line in done.stderr.splitlines() if line.startswith("bugsmith: error:")]
    assert done.returncode == 3 and len(errors) == 1, done.stderr
    assert "RuntimeError: the plugin cannot start" in errors[0]


def test_the_variables_of_a_pytest_session_that_runs_bugsmith_do_not_reach_its_workers(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Run from an xdist worker, bugsmith's suite runs saw PYTEST_XDIST_WORKER, and
    pytest-benchmark's warning about it failed suites with `filterwarnings = error`: plain
    pytest in the user's shell never sees them. The user's own variables do pass."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_x.py::test_x (call)")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly")
    env = worker_env(tmp_path)
    assert "PYTEST_XDIST_WORKER" not in env and "PYTEST_CURRENT_TEST" not in env
    assert env["PYTEST_ADDOPTS"] == "-p no:randomly"


@pytest.mark.slow
@pytest.mark.parametrize("text", ["mutant = 5\n", "[mutant]\nid = 'x'\n"])
def test_a_malformed_list_of_equivalents_names_the_file(tmp_path: Path, text: str) -> None:
    """The file `equivalents` points to is checked as the table is: a one-line error naming it
    (`mutant = 5` used to be a TypeError)."""
    root = project(tmp_path / "p", TABLE + "jobs = 1\n")
    (root / "equivalent-mutants.toml").write_text(text)
    message = config_error(root, "run", "--no-report")
    assert message.startswith(f"{root / 'equivalent-mutants.toml'}: ")
