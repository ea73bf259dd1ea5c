"""The code both tools are benchmarked on: a module plus its tests, staged in a fresh folder.

Each target is laid out the way mutmut 3 expects (a package at the top, tests in `tests/`,
configuration in `pyproject.toml`), and the same `pyproject.toml` carries a `[tool.bugsmith]`
table that names the same module and the same tests, so both tools see identical input.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SDIST_CACHE = REPO / "benchmarks" / ".cache"


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """A module to mutate and the tests that check it, relative to the staged folder."""

    name: str
    description: str
    package: str  # mutmut copies this folder into mutants/
    modules: tuple[str, ...]  # the files both tools mutate
    tests: str  # folder of tests
    stage: Callable[[Path], None]  # writes the package and the tests into a folder
    pytest_args: tuple[str, ...] = ()

    def build(self, folder: Path) -> Path:
        """Stage the target in `folder` with a pyproject.toml that configures both tools."""
        folder.mkdir(parents=True, exist_ok=False)
        self.stage(folder)
        (folder / "pyproject.toml").write_text(self._pyproject(), encoding="utf-8")
        return folder

    def _pyproject(self) -> str:
        # JSON arrays of strings are valid TOML arrays.
        modules, args = json.dumps(list(self.modules)), json.dumps(list(self.pytest_args))
        return (
            "[tool.mutmut]\n"
            f"source_paths = {json.dumps([self.package])}\n"
            f"only_mutate = {modules}\n"
            f"pytest_add_cli_args_test_selection = {json.dumps([self.tests])}\n"
            f"pytest_add_cli_args = {args}\n"
            "\n[tool.bugsmith]\n"
            f"paths = {modules}\n"
            f"tests = {json.dumps([self.tests])}\n"
            f"pytest-args = {args}\n"
        )


def _stage_auc(folder: Path) -> None:
    """reference/auc as a top-level package `aucref`: the name `reference` is taken by the
    editable install of bugsmith, and a name clash would let the tests import the original."""
    source = REPO / "reference" / "auc"
    package, tests = folder / "aucref", folder / "tests"
    package.mkdir()
    tests.mkdir()
    for name in ("__init__.py", "auc.py", "strategies.py"):
        _copy_renamed(source / name, package / name)
    for test in sorted((source / "tests").glob("test_*.py")):
        _copy_renamed(test, tests / test.name)
    # The hypothesis profile the reference suites run under (small, derandomised).
    shutil.copy(REPO / "reference" / "conftest.py", tests / "conftest.py")


def _copy_renamed(source: Path, destination: Path) -> None:
    text = source.read_text(encoding="utf-8")
    destination.write_text(re.sub(r"\breference\.auc\b", "aucref", text), encoding="utf-8")


def fetch_sdist(name: str, version: str) -> Path:
    """The unpacked sdist of `name==version`, downloaded once into benchmarks/.cache."""
    unpacked = SDIST_CACHE / f"{name.replace('-', '_')}-{version}"
    if unpacked.is_dir():
        return unpacked
    SDIST_CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
         "--dest", str(SDIST_CACHE), f"{name}=={version}"],
        check=True, stdout=subprocess.DEVNULL,
    )
    archive = next(SDIST_CACHE.glob(f"{name.replace('-', '_')}-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(SDIST_CACHE, filter="data")
    return unpacked


TOOLZ_VERSION = "1.2.0"


def _stage_toolz(folder: Path) -> None:
    """toolz's own package, with the suites of itertoolz and dicttoolz moved out to tests/."""
    sdist = fetch_sdist("toolz", TOOLZ_VERSION)
    shutil.copytree(sdist / "toolz", folder / "toolz",
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    (folder / "tests").mkdir()
    for name in ("test_itertoolz.py", "test_dicttoolz.py"):
        shutil.copy(sdist / "toolz" / "tests" / name, folder / "tests" / name)


TARGETS: dict[str, Target] = {
    "auc": Target(
        name="auc",
        description="reference/auc: ROC curve and AUC (87 lines; 2 test files, hypothesis + sklearn)",
        package="aucref",
        modules=("aucref/auc.py",),
        tests="tests",
        stage=_stage_auc,
    ),
    "toolz": Target(
        name="toolz",
        description=f"toolz {TOOLZ_VERSION} from PyPI: itertoolz.py + dicttoolz.py with their own suites",
        package="toolz",
        modules=("toolz/itertoolz.py", "toolz/dicttoolz.py"),
        tests="tests",
        stage=_stage_toolz,
    ),
}
