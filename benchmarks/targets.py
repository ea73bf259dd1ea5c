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


def fetch_sdist(name: str, version: str, cache: Path = SDIST_CACHE) -> Path:
    """The unpacked sdist of `name==version`, downloaded once into `cache`.

    Archives are named with either spelling of the project (`more-itertools-10.5.0.tar.gz`,
    `toolz-1.2.0.tar.gz`, `python_dateutil-...`), so the folder is taken from the archive itself.
    """
    cache.mkdir(parents=True, exist_ok=True)
    archive = _archive(cache, name, version)
    if archive is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:",
             "--no-deps", "--dest", str(cache), f"{name}=={version}"],
            check=True, stdout=subprocess.DEVNULL,
        )
        archive = _archive(cache, name, version)
        if archive is None:
            raise RuntimeError(f"pip downloaded no sdist of {name}=={version} into {cache}")
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        if not (cache / top).is_dir():
            tar.extractall(cache, filter="data")
    return cache / top


def _archive(cache: Path, name: str, version: str) -> Path | None:
    wanted = f"{re.sub(r'[-_.]+', '-', name).lower()}-{version}.tar.gz"
    return next((path for path in sorted(cache.glob("*.tar.gz"))
                 if re.sub(r"[-_.]+", "-", path.name[: -len(f"-{version}.tar.gz")]).lower()
                 + f"-{version}.tar.gz" == wanted), None)


TOOLZ_VERSION = "1.2.0"


def _stage_toolz(folder: Path) -> None:
    """toolz's own package, with the suites of itertoolz and dicttoolz moved out to tests/."""
    sdist = fetch_sdist("toolz", TOOLZ_VERSION)
    shutil.copytree(sdist / "toolz", folder / "toolz",
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    (folder / "tests").mkdir()
    for name in ("test_itertoolz.py", "test_dicttoolz.py"):
        shutil.copy(sdist / "toolz" / "tests" / name, folder / "tests" / name)


INFLECTION_VERSION = "0.5.1"


def _stage_inflection(folder: Path) -> None:
    """inflection's one module, whose rule tables are built at import by calling a function of
    the module, with its one test file (455 parametrized tests) moved to tests/."""
    sdist = fetch_sdist("inflection", INFLECTION_VERSION)
    shutil.copytree(sdist / "inflection", folder / "inflection", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests").mkdir()
    shutil.copy(sdist / "test_inflection.py", folder / "tests" / "test_inflection.py")


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
    "inflection": Target(
        name="inflection",
        description=f"inflection {INFLECTION_VERSION} from PyPI: much code run at import (rule tables "
                    "built by a function of the module; 455 parametrized tests in one file)",
        package="inflection",
        modules=("inflection/__init__.py",),
        tests="tests",
        stage=_stage_inflection,
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Library:
    """A real library for the verdict audit: its sdist as published, with the project's own
    layout, its own test configuration and the files bugsmith mutates (paths relative to the
    sdist's root). One or two modules each, so that a run stays within a few minutes."""

    name: str  # the name on PyPI
    version: str
    paths: tuple[str, ...]
    tests: tuple[str, ...]
    pytest_args: tuple[str, ...] = ()
    why: str = ""  # what these modules and tests are

    def stage(self, folder: Path, cache: Path) -> Path:
        """The sdist copied into `folder` with a `[tool.bugsmith]` table in its pyproject.toml."""
        shutil.copytree(fetch_sdist(self.name, self.version, cache), folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".bugsmith"))
        write_table(folder, self.paths, self.tests, self.pytest_args)
        return folder


def write_table(folder: Path, paths: tuple[str, ...], tests: tuple[str, ...],
                pytest_args: tuple[str, ...]) -> None:
    """Append a `[tool.bugsmith]` table to `folder`/pyproject.toml (created if missing).

    A pyproject.toml that holds no `[tool.pytest.ini_options]` is not a pytest configuration
    file, so creating one leaves the project's own test settings where they were."""
    pyproject = folder / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    if "[tool.bugsmith]" in text:
        raise ValueError(f"{pyproject} already has a [tool.bugsmith] table")
    # JSON arrays of strings are valid TOML arrays.
    table = (f"\n[tool.bugsmith]\npaths = {json.dumps(list(paths))}\n"
             f"tests = {json.dumps(list(tests))}\npytest-args = {json.dumps(list(pytest_args))}\n")
    pyproject.write_text(text + table, encoding="utf-8")


# `-o pythonpath=src`: a src-layout project imports its package from src/ without being
# installed, for bugsmith's workers and plain pytest alike (the option is pytest's own).
_SRC = ("-o", "pythonpath=src")
# isodate's and dateutil's `filterwarnings = error` turn coverage's own "No data was collected"
# warning into an exception in bugsmith's forked baseline child, which then ends without a
# verdict (issue #14, point 3, being fixed in harness/child/). Ignoring that one category keeps
# every warning of the library's own code an error, for bugsmith and plain pytest alike.
_COVERAGE_WARNING = ("-W", "ignore::coverage.exceptions.CoverageWarning")

LIBRARIES: dict[str, Library] = {
    library.name: library
    for library in (
        Library(name="more-itertools", version="10.5.0",
                paths=("more_itertools/recipes.py",), tests=("tests/test_recipes.py",),
                why="the itertools recipes (1,075 lines) and their suite"),
        Library(name="inflection", version="0.5.1",
                paths=("inflection/__init__.py",), tests=("test_inflection.py",),
                why="the whole library (426 lines): regex tables and string transforms"),
        Library(name="cachetools", version="5.5.0",
                paths=("src/cachetools/__init__.py", "src/cachetools/keys.py"), tests=("tests",),
                pytest_args=_SRC,
                why="the cache classes and decorators (src layout) and the whole suite"),
        Library(name="isodate", version="0.7.2",
                paths=("src/isodate/isoduration.py", "src/isodate/duration.py"),
                # Not tests/test_date.py: it parametrizes over a set holding None, whose hash
                # (so the set's order, so the test ids) differs in every process on Python 3.11.
                tests=("tests/test_duration.py", "tests/test_datetime.py", "tests/test_time.py",
                       "tests/test_strf.py", "tests/test_pickle.py"),
                pytest_args=(*_SRC, *_COVERAGE_WARNING),
                why="ISO 8601 durations (src layout; filterwarnings = error in its config)"),
        Library(name="python-dateutil", version="2.9.0.post0",
                paths=("src/dateutil/relativedelta.py",), tests=("tests/test_relativedelta.py",),
                pytest_args=(*_SRC, *_COVERAGE_WARNING),
                why="relativedelta (src layout, also installed site-wide; filterwarnings = error)"),
    )
}
