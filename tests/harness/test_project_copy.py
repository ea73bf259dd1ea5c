"""The private copy mutants run in: what it holds, how it catches up, how paths cross it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bugsmith.harness.executors import project_copy
from bugsmith.harness.executors.project_copy import ProjectCopy, Relocation, changes, snapshot, sync
from bugsmith.harness.shared.protocol import Job, Patch, TestResult, Verdict, WorkerSetup


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("def test(): pass\n")
    (root / "data.csv").write_text("a,b\n")
    for skipped in (".git", ".bugsmith", "pkg/__pycache__"):
        (root / skipped).mkdir()
        (root / skipped / "x").write_text("")
    (root / "env").mkdir()
    (root / "env" / "pyvenv.cfg").write_text("")
    (root / "link.py").symlink_to("pkg/mod.py")
    return root


def test_the_copy_holds_the_project_but_version_control_venvs_and_caches(tree: Path, tmp_path: Path) -> None:
    """Sources, tests, data and links are copied; .git, .bugsmith, __pycache__ and venvs are not."""
    copy = tmp_path / "copy"
    sync(tree, copy)
    assert sorted(snapshot(copy)) == ["data.csv", "link.py", "pkg", "pkg/mod.py", "tests", "tests/test_mod.py"]
    assert os.readlink(copy / "link.py") == "pkg/mod.py"
    assert snapshot(copy) == snapshot(tree)


def test_a_named_pipe_in_the_project_is_left_out_not_an_internal_error(tree: Path, tmp_path: Path) -> None:
    """No copy can hold a FIFO (shutil refuses it) and reading one blocks: the snapshot and the
    copy leave it out, and the rest is copied."""
    os.mkfifo(tree / "tests" / "pipe")
    copy = tmp_path / "copy"
    sync(tree, copy)
    assert "tests/pipe" not in snapshot(tree)
    assert not (copy / "tests" / "pipe").exists() and (copy / "tests" / "test_mod.py").is_file()


def test_a_link_that_leads_out_of_the_project_leads_to_the_same_file_from_the_copy(tree: Path, tmp_path: Path) -> None:
    """The copy is deeper than the project: `../shared.py` is made absolute, links inside stay relative."""
    (tmp_path / "shared.py").write_text("y = 1\n")
    (tree / "pkg" / "shared.py").symlink_to("../../shared.py")
    copy = tmp_path / "copy" / "deeper"
    sync(tree, copy)
    assert os.readlink(copy / "pkg" / "shared.py") == str(tmp_path / "shared.py")
    assert os.readlink(copy / "link.py") == "pkg/mod.py"


def test_a_sync_undoes_what_tests_did_to_the_copy(tree: Path, tmp_path: Path) -> None:
    """Deleted, rewritten and new files in the copy are put back as the project has them."""
    copy = tmp_path / "copy"
    sync(tree, copy)
    (copy / "data.csv").unlink()
    (copy / "pkg" / "mod.py").write_text("x = 2\n")
    (copy / "left.log").write_text("")
    (copy / "made").mkdir()
    sync(tree, copy)
    assert snapshot(copy) == snapshot(tree)
    assert (copy / "pkg" / "mod.py").read_text() == "x = 1\n"


def test_large_files_are_linked_not_copied(tree: Path, tmp_path: Path, monkeypatch) -> None:
    """A data set is not copied on every run: a link to it is enough to read it."""
    monkeypatch.setattr(project_copy, "LARGE_FILE", 3)
    copy = tmp_path / "copy"
    sync(tree, copy)
    assert os.readlink(copy / "data.csv") == str(tree / "data.csv")
    sync(tree, copy)  # and stay links
    assert os.readlink(copy / "data.csv") == str(tree / "data.csv")


def test_changes_name_what_was_deleted_created_and_changed(tree: Path) -> None:
    """The run's warning about the user's tree says what happened to which path."""
    before = snapshot(tree)
    (tree / "data.csv").unlink()
    (tree / "new.txt").write_text("")
    (tree / "pkg" / "mod.py").write_text("x = 22\n")
    assert changes(before, snapshot(tree)) == ["deleted data.csv", "created new.txt", "changed pkg/mod.py"]


def test_a_second_copy_at_once_is_private_and_removed(tree: Path) -> None:
    """Two executors on one project at once do not share (and re-sync) one copy."""
    with ProjectCopy.open(tree) as first, ProjectCopy.open(tree) as second:
        assert first.folder == tree / ".bugsmith" / "tree"
        assert second.folder != first.folder and second.folder.is_dir()
    assert not second.folder.exists()


def test_paths_cross_into_the_copy_and_back() -> None:
    """Jobs go in with the copy's paths, verdicts come back naming the project's."""
    moves = Relocation(origin="/p", root="/p/.bugsmith/tree")
    assert moves.into_copy("/p/pkg/mod.py") == "/p/.bugsmith/tree/pkg/mod.py"
    assert moves.into_copy("/p/.bugsmith/tree/pkg/mod.py") == "/p/.bugsmith/tree/pkg/mod.py"
    assert moves.into_copy("/pkg/mod.py") == "/pkg/mod.py"
    setup = moves.setup(WorkerSetup(root="/p", pytest_args=(), test_paths=("tests",),
                                    sources=("/p/pkg/mod.py",), memory_limit_mb=1))
    assert (setup.root, setup.origin, setup.project, setup.sources) == (
        "/p/.bugsmith/tree", "/p", "/p", ("/p/.bugsmith/tree/pkg/mod.py",))
    job = Job(mutant_id="m", module="pkg.mod", path="/p/pkg/mod.py", function="f", source="x", tests=(),
              timeout=1.0, extra=(Patch(module="pkg.b", path="/p/pkg/b.py", function=None, source="y"),))
    inside = moves.job(job)
    assert (inside.path, inside.extra[0].path) == ("/p/.bugsmith/tree/pkg/mod.py", "/p/.bugsmith/tree/pkg/b.py")
    assert moves.job_home(inside) == job
    verdict = Verdict(mutant_id="m", results=(TestResult(id="t", outcome="failed", when="call",
                                                        message="no /p/.bugsmith/tree/data.csv"),))
    assert moves.verdict_home(verdict).results[0].message == "no /p/data.csv"


def test_a_virtual_environment_inside_the_project_stays_where_it_is(tmp_path: Path) -> None:
    """`python -m venv .venv` in the project is common: the copy leaves the venv out, so its
    site-packages must not be moved into the copy (the suite's dependencies would vanish),
    while the project's own folders are served from the copy."""
    origin, copy = tmp_path / "project", tmp_path / "project" / ".bugsmith" / "tree"
    site = origin / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "venvonly.py").write_text("VALUE = 1\n")
    (origin / "src").mkdir()
    (copy / "src").mkdir(parents=True)
    code = (f"import sys; sys.path[:0] = [{str(site)!r}, {str(origin / 'src')!r}]\n"
            "from bugsmith.harness.child.copy_imports import serve_from_copy\n"
            f"serve_from_copy({str(origin)!r}, {str(copy)!r})\n"
            "import venvonly\nprint(sys.path[0]); print(sys.path[1])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(site), str(copy / "src")]
