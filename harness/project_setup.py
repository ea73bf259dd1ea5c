"""`bugsmith init`: a `[tool.bugsmith]` table guessed from a project's layout, and writing it.

The guess follows the layouts the packaging guides describe: a `src/` layout (`src/<pkg>/`),
packages at the root (folders with `__init__.py`), or lone modules; tests in `tests/` or
`test/`, or where pytest's own `testpaths` say.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from bugsmith.errors import ConfigError

# Folders that hold no code of the project's own, even when they contain Python files.
_NOT_CODE = {"tests", "test", "docs", "doc", "examples", "benchmarks", "build", "dist", "scripts",
             "site-packages", "node_modules"}
_NOT_MODULES = {"setup.py", "conftest.py", "noxfile.py", "tasks.py", "manage.py"}


def guess_table(root: Path) -> dict[str, list[str]] | None:
    """`{"paths": [...], "tests": [...]}` for the project at `root`, or None if it holds no
    package or module to mutate."""
    paths = _code(root)
    if not paths:
        return None
    return {"paths": paths, "tests": _tests(root)}


def _code(root: Path) -> list[str]:
    src = root / "src"
    if src.is_dir():
        packages = sorted(f"src/{p.parent.name}" for p in src.glob("*/__init__.py"))
        modules = sorted(f"src/{p.name}" for p in src.glob("*.py"))
        if packages or modules:
            return packages + modules
    packages = sorted(p.parent.name for p in root.glob("*/__init__.py") if _is_code(p.parent.name))
    modules = sorted(p.name for p in root.glob("*.py") if _is_module(p.name))
    return packages + modules


def _is_code(name: str) -> bool:
    return name not in _NOT_CODE and not name.startswith((".", "_")) and not name.startswith("venv")


def _is_module(name: str) -> bool:
    return name not in _NOT_MODULES and not name.startswith(("test_", "_")) and not name.endswith("_test.py")


def _tests(root: Path) -> list[str]:
    declared = _pytest_testpaths(root / "pyproject.toml")
    if declared:
        return declared
    for name in ("tests", "test"):
        if (root / name).is_dir():
            return [name]
    return ["."]


def _pytest_testpaths(pyproject: Path) -> list[str]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    testpaths = data.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("testpaths", [])
    if isinstance(testpaths, str):
        testpaths = testpaths.split()
    return [p for p in testpaths if isinstance(p, str) and (pyproject.parent / p).exists()]


def table_text(table: dict[str, list[str]]) -> str:
    """The table as TOML, with a comment per key."""
    def strings(values: list[str]) -> str:
        return "[" + ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"

    return (
        "[tool.bugsmith]\n"
        f"paths = {strings(table['paths'])}  # what to mutate (test files never are)\n"
        f"tests = {strings(table['tests'])}  # what to run\n"
    )


def write_table(root: Path, table: dict[str, list[str]]) -> Path:
    """Append the table to `root`'s pyproject.toml (made if missing), leaving every other byte
    as it was; refuse if the file already has one."""
    pyproject = root / "pyproject.toml"
    existing = ""
    if pyproject.is_file():
        existing = pyproject.read_text(encoding="utf-8")
        try:
            data = tomllib.loads(existing)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{pyproject}: cannot read: {error}") from None
        if "bugsmith" in data.get("tool", {}):
            raise ConfigError(f"{pyproject} already has a [tool.bugsmith] table")
    separator = "" if not existing else ("\n" if existing.endswith("\n") else "\n\n")
    try:
        with pyproject.open("a", encoding="utf-8") as file:
            file.write(separator + table_text(table))
    except OSError as error:
        raise ConfigError(f"cannot write {pyproject}: {error.strerror or error}") from None
    return pyproject
