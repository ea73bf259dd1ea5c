"""The code both tools are benchmarked on: a module plus its tests, staged in a fresh folder.

Each target is laid out the way mutmut 3 expects (a package at the top, tests in `tests/`,
configuration in `pyproject.toml`), and the same `pyproject.toml` carries a `[tool.bugsmith]`
table that names the same module and the same tests, so both tools see identical input.
"""

from __future__ import annotations

import hashlib
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
    edit: Edit  # the one-line edit of the warm re-run
    pytest_args: tuple[str, ...] = ()
    also_copy: tuple[str, ...] = ()  # files beside the package that mutmut must copy too

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
            f"also_copy = {json.dumps(list(self.also_copy))}\n"
            "\n[tool.bugsmith]\n"
            f"paths = {modules}\n"
            f"tests = {json.dumps([self.tests])}\n"
            f"pytest-args = {args}\n"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """A one-line edit in one function for the warm re-run: the first `old` in `function` of
    `file` (relative to the staged folder) becomes `new`, which the tests still pass."""

    file: str
    function: str
    old: str
    new: str


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
    _check_pin(archive, f"{name}=={version}")
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        if not (cache / top).is_dir():
            tar.extractall(cache, filter="data")
    return cache / top


# sha256 of the sdists the benchmarks pin: a re-published or tampered archive must not change
# what is measured. Libraries without an entry are not checked.
SDIST_SHA256 = {
    "toolz==1.2.0": "9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
    "inflection==0.5.1": "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
    "packaging==24.2": "c228a6dc5e932d346bc5739379109d49e8853dd8223571c7c5b55260edc0b97f",
    "pretend==1.0.9": "c90eb810cde8ebb06dafcb8796f9a95228ce796531bc806e794c2f4649aa1b10",
    "pyrsistent==0.20.0": "4c48f78f62ab596c679086084d0dd13254ae4f3d6c72a83ffdf5ebdef8f265a4",
}


def _check_pin(archive: Path, pin: str) -> None:
    wanted = SDIST_SHA256.get(pin)
    found = hashlib.sha256(archive.read_bytes()).hexdigest()
    if wanted is not None and found != wanted:
        raise RuntimeError(f"{archive} has sha256 {found}, not the pinned {wanted} of {pin}")


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


PACKAGING_VERSION, PRETEND_VERSION = "24.2", "1.0.9"


def _stage_packaging(folder: Path) -> None:
    """packaging's package out of src/, with the sdist's tests package; its test_version.py
    (imported by test_specifiers.py for its table of versions) imports `pretend`, a one-file
    test dependency staged beside the package from its own pinned sdist."""
    sdist = fetch_sdist("packaging", PACKAGING_VERSION)
    shutil.copytree(sdist / "src" / "packaging", folder / "packaging",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests").mkdir()
    for name in ("__init__.py", "test_version.py", "test_specifiers.py"):
        shutil.copy(sdist / "tests" / name, folder / "tests" / name)
    shutil.copy(fetch_sdist("pretend", PRETEND_VERSION) / "pretend.py", folder / "pretend.py")


PYRSISTENT_VERSION = "0.20.0"

# The sdist's stateful hypothesis tests take 40 s each under hypothesis' defaults; this profile
# (small, derandomised, no shrinking: a failing example is a kill) is the one the staged copy
# runs under, for both tools.
_PYRSISTENT_PROFILE = """from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "benchmark", max_examples=5, stateful_step_count=20, derandomize=True, deadline=None,
    database=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=list(HealthCheck),
)
settings.load_profile("benchmark")
"""


def _stage_pyrsistent(folder: Path) -> None:
    """pyrsistent's pure-Python package (the optional C vector is not built, so the Python one
    runs) with its stateful hypothesis test of vectors and evolvers."""
    sdist = fetch_sdist("pyrsistent", PYRSISTENT_VERSION)
    shutil.copytree(sdist / "pyrsistent", folder / "pyrsistent",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests").mkdir()
    shutil.copy(sdist / "tests" / "hypothesis_vector_test.py",
                folder / "tests" / "hypothesis_vector_test.py")
    (folder / "tests" / "conftest.py").write_text(_PYRSISTENT_PROFILE, encoding="utf-8")


TARGETS: dict[str, Target] = {
    "auc": Target(
        name="auc",
        description="reference/auc: ROC curve and AUC (87 lines; 2 test files, hypothesis + sklearn)",
        package="aucref",
        modules=("aucref/auc.py",),
        tests="tests",
        stage=_stage_auc,
        edit=Edit(file="aucref/auc.py", function="roc_auc_score", old="/ 2)", new="* 0.5)"),
    ),
    "toolz": Target(
        name="toolz",
        description=f"toolz {TOOLZ_VERSION} from PyPI: itertoolz.py + dicttoolz.py with their own suites",
        package="toolz",
        modules=("toolz/itertoolz.py", "toolz/dicttoolz.py"),
        tests="tests",
        stage=_stage_toolz,
        edit=Edit(file="toolz/itertoolz.py", function="frequencies", old="defaultdict(int)",
                  new="defaultdict(lambda: 0)"),
    ),
    "inflection": Target(
        name="inflection",
        description=f"inflection {INFLECTION_VERSION} from PyPI: much code run at import (rule tables "
                    "built by a function of the module; 455 parametrized tests in one file)",
        package="inflection",
        modules=("inflection/__init__.py",),
        tests="tests",
        stage=_stage_inflection,
        edit=Edit(file="inflection/__init__.py", function="ordinal", old="(11, 12, 13)",
                  new="(13, 12, 11)"),
    ),
    "packaging": Target(
        name="packaging",
        description=f"packaging {PACKAGING_VERSION} from PyPI: many small fast tests (specifiers.py, "
                    "1,020 lines, and its 806 parametrized tests in test_specifiers.py)",
        package="packaging",
        modules=("packaging/specifiers.py",),
        tests="tests/test_specifiers.py",
        stage=_stage_packaging,
        also_copy=("pretend.py",),
        edit=Edit(file="packaging/specifiers.py", function="_version_split",
                  old='result.append(epoch or "0")', new='result.append(epoch if epoch else "0")'),
    ),
    "pyrsistent": Target(
        name="pyrsistent",
        description=f"pyrsistent {PYRSISTENT_VERSION} from PyPI: few slow tests (_transformations.py, "
                    "143 lines, under 3 tests of which 2 stateful hypothesis machines of 0.3-1.5 s)",
        package="pyrsistent",
        modules=("pyrsistent/_transformations.py",),
        tests="tests",
        stage=_stage_pyrsistent,
        edit=Edit(file="pyrsistent/_transformations.py", function="transform",
                  old="_chunks(transformations, 2)", new="_chunks(transformations, n=2)"),
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Library:
    """A real library for the verdict audit: its sdist as published, with the project's own
    layout, its own test configuration and the files bugsmith mutates (paths relative to the
    sdist's root). One or two modules each in LIBRARIES, so that a run stays within a few
    minutes; BIG_CODEBASES hold whole libraries."""

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
        # Its tests need ruamel.yaml and tomli-w (pip install ruamel.yaml tomli-w).
        Library(name="python-box", version="8.0.0",
                paths=("box/box_list.py", "box/converters.py"), tests=("test",),
                why="an autouse fixture removes and re-creates test/tmp around every test, which the "
                    "tests write into (issue 43: workers that share a tree gave false kills)"),
        Library(name="python-dateutil", version="2.9.0.post0",
                paths=("src/dateutil/relativedelta.py",), tests=("tests/test_relativedelta.py",),
                pytest_args=(*_SRC, *_COVERAGE_WARNING),
                why="relativedelta (src layout, also installed site-wide; filterwarnings = error)"),
    )
}


# Whole libraries past 10,000 mutants (issue 41), for the sampling and big-codebase benchmarks
# only: the audit and the noise benchmark run every library of LIBRARIES in full.
BIG_CODEBASES: dict[str, Library] = {
    # 10,371 mutants; a suite of 419 tests in 3-5 s. `--noconftest`: its conftest's
    # `pytest_ignore_collect(path, ...)` is refused by pytest 8, and on Python 3 it ignores
    # nothing (it skips `_py2` test files; there are none). test_iter_find_files strips its
    # folder's path with `str.lstrip` (a set of characters, not a prefix): it fails under plain
    # pytest too whenever the staged folder's random name holds the letters of a file's name.
    "boltons": Library(name="boltons", version="24.1.0", paths=("boltons",), tests=("tests",),
                       pytest_args=("--noconftest", "--deselect", "tests/test_fileutils.py::test_iter_find_files"),
                       why="the whole library (30 modules, 16,960 lines) and its whole suite"),
}
