"""The wheel of the running bugsmith that an autograder bundle carries: reproducible, complete, installable."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bugsmith.harness.exercises.pack.bugsmith_wheel import package_files, running_wheel


@pytest.fixture(scope="module")
def wheel() -> tuple[str, bytes]:
    return running_wheel()


def test_the_same_bugsmith_gives_the_same_bytes(wheel: tuple[str, bytes]) -> None:
    """Packed twice, byte for byte the same wheel."""
    assert running_wheel() == wheel


def test_its_record_lists_every_file_with_its_hash(wheel: tuple[str, bytes]) -> None:
    """RECORD names every entry with the sha256 and size pip checks, and itself without them."""
    name, data = wheel
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = f"{name.split('-py3')[0]}.dist-info"
    rows = list(csv.reader(io.StringIO(archive.read(f"{info}/RECORD").decode())))
    assert sorted(r[0] for r in rows) == sorted(archive.namelist())
    for path, digest, size in rows:
        if path == f"{info}/RECORD":
            assert (digest, size) == ("", "")
            continue
        content = archive.read(path)
        expected = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (f"sha256={expected}", len(content))
    assert "bugsmith = bugsmith.harness.cli:main" in archive.read(f"{info}/entry_points.txt").decode()
    assert "Provides-Extra: corpus" in archive.read(f"{info}/METADATA").decode()


def test_it_holds_the_code_and_the_data_the_code_reads(wheel: tuple[str, bytes]) -> None:
    """Every module, the templates, schemas and problem statements; no caches."""
    names = set(zipfile.ZipFile(io.BytesIO(wheel[1])).namelist())
    for needed in ("bugsmith/errors.py", "bugsmith/harness/cli.py", "bugsmith/mutators/family.py",
                   "bugsmith/reference/auc/problem.md", "bugsmith/harness/exercises/templates/statement.md.j2",
                   "bugsmith/harness/report/templates/report.css", "bugsmith/harness/exercises/pack/run_autograder.py"):
        assert needed in names
    assert set(package_files()) <= names
    assert not any("__pycache__" in n or n.endswith(".pyc") or "/." in n for n in names)


@pytest.mark.slow
def test_installed_in_a_fresh_venv_it_runs_and_packs_itself_again(wheel: tuple[str, bytes], tmp_path: Path) -> None:
    """pip installs it offline (its dependencies from the system's site-packages); the venv's
    bugsmith runs from the venv, and packs the very same wheel again."""
    name, data = wheel
    (tmp_path / name).write_bytes(data)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=600)
    python = venv / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                          str(tmp_path / name)], capture_output=True, text=True, timeout=600, check=False)
    assert pip.returncode == 0, pip.stderr[-2000:]
    done = subprocess.run([str(venv / "bin" / "bugsmith"), "--version"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0 and "bugsmith" in done.stdout, done.stderr
    script = ("import hashlib, bugsmith\n"
              "from bugsmith.harness.exercises.pack.bugsmith_wheel import running_wheel\n"
              "print(bugsmith.__file__)\nprint(hashlib.sha256(running_wheel()[1]).hexdigest())\n")
    again = subprocess.run([str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                           check=False)
    assert again.returncode == 0, again.stderr[-2000:]
    where, digest = again.stdout.split()
    assert Path(where).is_relative_to(venv)
    assert digest == hashlib.sha256(data).hexdigest()
