"""Installed as users install it: a wheel in a fresh venv that has nothing but its
dependencies, used on a small project from outside the repository."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True,
                          timeout=900, check=False, env=env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the venv's bin folder) after `pip install WHEEL` in a new venv."""
    work = tmp_path_factory.mktemp("wheel")
    built = run(sys.executable, "-m", "build", "--wheel", "--outdir", work / "dist", REPO, cwd=work)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((work / "dist").glob("bugsmith-*.whl"))
    venv = work / "venv"
    assert run(sys.executable, "-m", "venv", venv, cwd=work).returncode == 0
    pip = run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=work)
    assert pip.returncode == 0, pip.stderr[-2000:]
    return wheel, venv / "bin"


def site_packages_digest(bin_folder: Path) -> str:
    folder = next((bin_folder.parent / "lib").glob("python3*/site-packages"))
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_wheel_installs_one_top_level_name(installed: tuple[Path, Path]) -> None:
    """A wheel's top-level import names are exactly `bugsmith` (and its metadata folder)."""
    wheel, _ = installed
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"bugsmith"}


def test_the_installed_tool_tests_a_project_named_like_its_packages(
        installed: tuple[Path, Path], tmp_path: Path, small_project: Callable[..., Path]) -> None:
    """From the wheel alone (no numpy, no pandas), a project whose packages are `harness`,
    `mutators` and `reference` is mutation-tested: killed where its tests see the bug."""
    _, bin_folder = installed
    root = small_project(tmp_path / "p", package="harness")
    for name in ("mutators", "reference"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text("def triple(x):\n    return x * 3\n")
    (root / "tests" / "test_more.py").write_text(
        "from mutators import triple\nfrom reference import triple as again\n\n\n"
        "def test_triple():\n    assert triple(2) == 6 and again(2) == 6\n")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'paths = ["harness"]', 'paths = ["harness", "mutators", "reference"]'))
    done = run(bin_folder / "bugsmith", "run", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    files = {s["file"] for s in summary["not_caught"]}
    assert files <= {"harness/__init__.py"}  # only `x > 0`'s boundary is untested
    assert summary["counts"]["killed"] >= 6 and summary["counts"]["error"] == 0


def test_an_empty_folder_and_the_builtin_corpus_leave_site_packages_alone(
        installed: tuple[Path, Path], tmp_path: Path) -> None:
    """In an empty folder `bugsmith run` writes nothing anywhere; the built-in corpus is
    listed from a copy in the user cache, never from (or into) site-packages."""
    _, bin_folder = installed
    before = site_packages_digest(bin_folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run(bin_folder / "bugsmith", "run", cwd=empty)
    assert done.returncode == 2 and "--builtin" in done.stderr and not list(empty.iterdir())
    env = {"PATH": str(bin_folder), "HOME": str(tmp_path), "BUGSMITH_CACHE": str(tmp_path / "cache")}
    listed = run(bin_folder / "bugsmith", "mutants", "--builtin", cwd=empty, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "reference/auc/auc.py" in listed.stdout
    assert list((tmp_path / "cache" / "corpus").glob("*/reference/auc/tests/test_auc_hidden.py"))
    assert not list(empty.iterdir())
    assert site_packages_digest(bin_folder) == before
