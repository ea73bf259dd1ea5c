"""Every command through the real entry point: output, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROJECT_CODE = '''\
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mean(xs):
    return sum(xs) / len(xs)
'''

PROJECT_TESTS = '''\
from shop.prices import clamp, mean


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0


def test_mean():
    assert mean([1, 2, 3]) == 2
'''


PROGRESS = re.compile(r"^bugsmith: (collecting the tests|mutants \d+/\d+)")


def messages(stderr: str) -> list[str]:
    """What stderr says besides the progress lines a run logs when it is not on a terminal."""
    return [line for line in stderr.strip().splitlines() if not PROGRESS.match(line)]


def bugsmith(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bugsmith.harness.cli", *args], cwd=cwd, capture_output=True, text=True,
        timeout=600, check=False,
    )


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A user's project outside the repository, configured only by its pyproject.toml."""
    root = tmp_path / "shop-project"
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "prices.py").write_text(PROJECT_CODE)
    (root / "tests" / "test_prices.py").write_text(PROJECT_TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [project]
        name = "shop"
        version = "0"

        [tool.bugsmith]
        paths = ["shop"]
        tests = ["tests"]
        jobs = 1
        '''))
    return root


@pytest.mark.slow
def test_run_on_a_project_configured_by_pyproject(shop: Path) -> None:
    """`cd project && bugsmith run` mutates the configured paths, runs the configured tests,
    prints the score and survivors, writes reports, and --fail-under 100 fails on survivors."""
    done = bugsmith("run", cwd=shop)
    assert done.returncode == 0, done.stderr
    assert "shop/prices.py" in done.stdout and "mutation score" in done.stdout
    assert (shop / ".bugsmith" / "reports" / "mutation-report.json").is_file()
    assert not (shop / "reports").exists()  # nothing is written outside .bugsmith/
    assert "survived" in done.stdout  # clamp's x > hi branch is never tested
    strict = bugsmith("run", "--fail-under", "100", "--no-report", cwd=shop)
    assert strict.returncode == 1
    assert "under 100" in strict.stderr


@pytest.mark.slow
def test_show_and_report_read_the_last_run(shop: Path) -> None:
    """show prints the explanation, diff and verdict; report writes the requested formats."""
    assert bugsmith("run", "--no-report", cwd=shop).returncode == 0
    listed = bugsmith("mutants", "--json", cwd=shop)
    first = json.loads(listed.stdout.splitlines()[0])
    shown = bugsmith("show", first["id"], cwd=shop)
    assert shown.returncode == 0
    assert first["explanation"] in shown.stdout and "--- a/shop/prices.py" in shown.stdout
    assert "status:" in shown.stdout
    out = shop / "out"
    written = bugsmith("report", "--markdown", str(out / "s.md"), "--sarif", str(out / "s.sarif"), cwd=shop)
    assert written.returncode == 0, written.stderr
    assert (out / "s.md").read_text().strip() and json.loads((out / "s.sarif").read_text())["version"] == "2.1.0"


def test_mutants_json_has_the_record_fields(shop: Path) -> None:
    """`mutants --json` writes one JSON object per mutant with the Mutant record's fields."""
    done = bugsmith("mutants", "--json", cwd=shop)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records and {"id", "operator", "family", "file", "span", "original", "mutated",
                        "explanation", "diff"} <= set(records[0])
    assert len({r["id"] for r in records}) == len(records)


def test_operators_lists_every_family() -> None:
    """`operators` lists each mutator with its family, and every family has operators."""
    done = bugsmith("operators", cwd=Path.cwd())
    families = {line.split()[1] for line in done.stdout.splitlines()}
    assert {"shape", "window", "leakage", "scheduling", "metric", "classic", "beyond"} <= families


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "no/such/path"), "no such file or directory"),
        (("show", "zzzzzzzz"), "no mutant with id"),
        (("run", "--jobs", "0"), "--jobs must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(shop: Path, args: tuple[str, ...], message: str) -> None:
    """Bad input gets a one-line error and exit status 2, never a traceback."""
    done = bugsmith(*args, cwd=shop)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(messages(done.stderr)) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_red_baseline_is_one_line_and_exit_3(shop: Path) -> None:
    """A suite that fails on unmutated code names the failing test in one line, exit 3."""
    tests = shop / "tests" / "test_prices.py"
    tests.write_text(tests.read_text() + "\n\ndef test_wrong():\n    assert 1 + 1 == 3\n")
    done = bugsmith("run", cwd=shop)
    assert done.returncode == 3
    assert "test_wrong" in done.stderr and len(messages(done.stderr)) == 1


@pytest.mark.slow
def test_tests_that_cannot_be_collected_are_one_line_and_exit_3(shop: Path) -> None:
    """A test file that fails to import names the file and the error in one line; the suite
    cannot run on unmutated code, so the exit status is a red baseline's, 3."""
    (shop / "tests" / "test_broken.py").write_text("import no_such_module_here\n")
    done = bugsmith("run", cwd=shop)
    assert done.returncode == 3
    assert "test_broken.py" in done.stderr and "no_such_module_here" in done.stderr
    assert len(messages(done.stderr)) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_conftest_that_breaks_pytest_is_named_in_one_line(shop: Path) -> None:
    """When pytest itself cannot start (a broken conftest), the one-line error carries the
    exception from the worker's log, not just where the log is."""
    (shop / "tests" / "conftest.py").write_text("raise RuntimeError('the conftest is broken')\n")
    done = bugsmith("run", "--no-report", cwd=shop)
    assert done.returncode == 3
    assert "RuntimeError: the conftest is broken" in done.stderr
    assert len(messages(done.stderr)) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_tests_that_import_another_copy_get_a_hint(shop: Path) -> None:
    """When the tests run another copy of the package (an installed one), nothing is covered;
    the summary says so and how to fix it, instead of a bare 0 %."""
    other = shop / "elsewhere"
    shutil.copytree(shop / "shop", other / "shop")
    (shop / "tests" / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(other)!r})\n")
    done = bugsmith("run", "--no-report", cwd=shop)
    assert done.returncode == 0, done.stderr
    assert "no test ran any line of the mutated files" in done.stdout
    assert "pip install -e ." in done.stdout


def test_a_project_without_a_bugsmith_table_is_told_what_to_do(shop: Path) -> None:
    """In a project whose pyproject.toml has no [tool.bugsmith] table, `bugsmith run` runs
    nothing: one line says what `bugsmith init` would write and the other ways (exit 2)."""
    pyproject = shop / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().split("[tool.bugsmith]")[0])
    done = bugsmith("run", cwd=shop)
    assert done.returncode == 2
    assert "has no [tool.bugsmith] table" in done.stderr
    assert "`bugsmith init` writes one (paths = ['shop'], tests = ['tests'])" in done.stderr
    assert "--builtin" in done.stderr and len(messages(done.stderr)) == 1
    assert not (shop / ".bugsmith").exists()


def test_report_without_a_run_is_a_clear_error(shop: Path) -> None:
    """Read-only commands never create the store; without a run they say what to do."""
    done = bugsmith("report", cwd=shop)
    assert done.returncode == 2 and "bugsmith run" in done.stderr
    assert not (shop / ".bugsmith").exists()
