"""The command line behaves as tools of its kind do: exit statuses, logs, stdout, init."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from bugsmith.harness import cli

ProjectMaker = Callable[..., Path]


def bugsmith(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bugsmith", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)

def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".bugsmith" not in p.parts and "__pycache__" not in p.parts}


@pytest.mark.slow
def test_run_json_summary_log_lines_and_gitignore(tmp_path: Path, small_project: ProjectMaker) -> None:
    """`run --json` prints only JSON on stdout, with the --fail-under verdict (exit 1 below it);
    stderr (not a terminal) gets append-only progress lines; the state folder ignores itself
    in git; the tree is unchanged."""
    root = small_project(tmp_path / "p")
    before = tree(root)
    done = bugsmith("run", "--json", "--fail-under", "100", cwd=root)
    summary = json.loads(done.stdout)
    assert summary["mutants"] == sum(summary["counts"].values()) > 0
    assert summary["not_caught"] and summary["score"] < 100  # x > 0 vs x >= 0 is never tested
    assert summary["passed"] is False and done.returncode == 1
    assert all(Path(p).is_file() and ".bugsmith" in Path(p).parts for p in summary["reports"])
    assert "\r" not in done.stderr and f"mutants {summary['mutants']}/{summary['mutants']} (100%)" in done.stderr
    assert (root / ".bugsmith" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert tree(root) == before


@pytest.mark.slow
def test_report_to_standard_output_writes_no_file(tmp_path: Path, small_project: ProjectMaker) -> None:
    """`report --markdown -` puts the report on stdout (and nothing else there); no file named
    `-` appears; two reports cannot both take stdout."""
    root = small_project(tmp_path / "p")
    assert bugsmith("run", "--no-report", cwd=root).returncode == 0
    done = bugsmith("report", "--markdown", "-", "--json", str(tmp_path / "r.json"), cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## bugsmith mutation score") and "report:" not in done.stdout
    assert json.loads((tmp_path / "r.json").read_text())["schemaVersion"]
    assert not (root / "-").exists()
    both = bugsmith("report", "--markdown", "-", "--sarif", "-", cwd=root)
    assert both.returncode == 2 and "only one report" in both.stderr


def test_an_empty_folder_runs_nothing_and_says_how(tmp_path: Path) -> None:
    """Outside a configured project `run` writes nothing and names init, PATH and --builtin
    (exit 2); `report` there says no run happened."""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = bugsmith("run", cwd=empty)
    assert done.returncode == 2 and "--builtin" in done.stderr and "bugsmith init" in done.stderr
    assert bugsmith("report", cwd=empty).returncode == 2
    assert list(empty.iterdir()) == []


@pytest.mark.slow
def test_an_ad_hoc_run_is_what_report_reads_there(tmp_path: Path, small_project: ProjectMaker) -> None:
    """`run PATH` in a folder without a table keeps its store there, and `report` in that
    folder reports that run, not the built-in corpus."""
    root = small_project(tmp_path / "p", table=False)
    assert bugsmith("run", "calc", "--tests", "tests", "--no-report", cwd=root).returncode == 0
    done = bugsmith("report", "--json", "-", cwd=root)
    files = json.loads(done.stdout)["files"]
    assert list(files) == ["calc/__init__.py"]


@pytest.mark.slow
def test_init_guesses_a_src_layout_and_refuses_a_second_table(tmp_path: Path, small_project: ProjectMaker) -> None:
    """`init` appends a table for a src layout (keeping the file's bytes), the project then
    runs, and a second `init` is a one-line error."""
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    small_project(root / "src", table=False)
    (root / "src" / "tests").rename(root / "tests")
    (root / "src" / "pyproject.toml").rename(root / "pyproject.toml")
    original = (root / "pyproject.toml").read_text()
    assert bugsmith("init", "--dry-run", cwd=root).stdout.startswith("[tool.bugsmith]")
    assert (root / "pyproject.toml").read_text() == original
    done = bugsmith("init", cwd=root)
    assert done.returncode == 0, done.stderr
    text = (root / "pyproject.toml").read_text()
    assert text.startswith(original) and 'paths = ["src/calc"]' in text and 'tests = ["tests"]' in text
    again = bugsmith("init", cwd=root)
    assert again.returncode == 2 and "already has a [tool.bugsmith] table" in again.stderr
    (root / "conftest.py").write_text("import sys\nsys.path.insert(0, 'src')\n")
    assert bugsmith("run", "--no-report", "--jobs", "1", cwd=root).returncode == 0


@pytest.mark.slow
def test_a_project_with_our_package_names_is_tested_correctly(tmp_path: Path, small_project: ProjectMaker) -> None:
    """A project whose own packages are `harness`, `mutators` and `reference` shadows nothing
    of bugsmith's: workers start, its mutants are killed or survive as plain pytest says."""
    root = small_project(tmp_path / "p", package="harness")
    for name in ("mutators", "reference"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text("def triple(x):\n    return x * 3\n")
    (root / "tests" / "test_more.py").write_text(
        "from harness import positive\nfrom mutators import triple\nimport reference\n\n\n"
        "def test_triple():\n    assert triple(2) == 6\n\n\n"
        "def test_the_boundary():\n    assert positive(1)\n    assert not positive(0)\n")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('paths = ["harness"]',
                                                       'paths = ["harness", "mutators", "reference"]'))
    done = bugsmith("run", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    survivors = {(s["file"], s["status"]) for s in summary["not_caught"]}
    # reference.triple is never called by a test: its mutants have no coverage; the rest die.
    assert survivors == {("reference/__init__.py", "no coverage")}, summary["not_caught"]
    assert summary["counts"]["killed"] > 0 and summary["counts"]["error"] == 0


def test_an_internal_error_is_one_line_exit_4_and_a_saved_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A bug in bugsmith never shows a traceback: one line names the error and the file that
    holds the traceback, and the exit status is 4."""
    def broken(**_: object) -> None:
        raise RuntimeError("something inside broke")

    monkeypatch.setattr(cli.cli, "main", broken)
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 4
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "RuntimeError: something inside broke" in err
    saved = Path(err.split("traceback in ")[1].split(";")[0])
    assert "Traceback" in saved.read_text()
    saved.unlink()


def test_python_dash_m_bugsmith_is_the_command(tmp_path: Path) -> None:
    """`python -m bugsmith` is the same command as the `bugsmith` script."""
    done = bugsmith("--help", cwd=tmp_path)
    assert done.returncode == 0 and "exercises" in done.stdout and "init" in done.stdout
    assert textwrap.dedent(done.stdout).startswith("Usage:")
