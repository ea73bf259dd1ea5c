"""The options of a run, from the command line and the project's `[tool.bugsmith]` table."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bugsmith.errors import ConfigError

STORE_DIR = ".bugsmith"
ISOLATIONS = ("fork", "subprocess")
# Test code and test kits are never mutated: a bug in a test is not a bug in the code.
DEFAULT_EXCLUDE = (
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/tests/**",
    "**/test/**",
    "**/setup.py",
)
_KEYS = {
    "paths", "tests", "pytest-args", "families", "operators", "exclude",
    "timeout-factor", "jobs", "isolation", "memory-limit-mb",
    "exercises",  # problems for `bugsmith exercises`: read by harness.exercises.projects
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """Everything that decides what a run does. Paths are relative to `root`."""

    root: Path
    paths: tuple[str, ...]
    tests: tuple[str, ...]
    pytest_args: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    timeout_factor: float = 3.0
    timeout_base: float = 1.0  # seconds added to every limit: start-up and scheduling noise
    isolation: str = "fork"
    memory_limit_mb: int = 4096  # address space a mutant may add beyond its worker's
    since: str | None = None
    mutant_ids: tuple[str, ...] = ()

    @property
    def store_path(self) -> Path:
        return self.root / STORE_DIR / "bugsmith.sqlite"

    def verdict_options(self) -> dict[str, Any]:
        """The options that can change a verdict: part of every cache key."""
        return {
            "pytest_args": list(self.pytest_args),
            "timeout_factor": self.timeout_factor,
            "timeout_base": self.timeout_base,
            "isolation": self.isolation,
        }

    def describe(self) -> dict[str, Any]:
        return {
            "paths": list(self.paths),
            "tests": list(self.tests),
            "pytest_args": list(self.pytest_args),
            "families": list(self.families),
            "exclude": list(self.exclude),
            "jobs": self.jobs,
            "timeout_factor": self.timeout_factor,
            "isolation": self.isolation,
            "since": self.since,
        }


def builtin_root() -> Path:
    """The folder that holds the installed `reference` package."""
    import reference

    return Path(reference.__file__).resolve().parent.parent


def find_project(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest folder at or above `start` whose pyproject.toml has `[tool.bugsmith]`."""
    for folder in (start, *start.parents):
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            table = read_table(pyproject)
            if table is not None:
                return folder, table
    return None


def unconfigured_project(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` if it has no `[tool.bugsmith]` table: a
    project whose user probably meant to test it, not the built-in corpus."""
    for folder in (start, *start.parents):
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            return pyproject if read_table(pyproject) is None else None
    return None


def read_table(pyproject: Path) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read: {error}") from None
    table = data.get("tool", {}).get("bugsmith")
    if table is None:
        return None
    unknown = sorted(set(table) - _KEYS - {key.replace("-", "_") for key in _KEYS})
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.bugsmith] key {unknown[0]!r}")
    return {key.replace("_", "-"): value for key, value in table.items()}


def _strings(table: dict[str, Any], key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    value = table.get(key, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.bugsmith] {key} must be a list of strings")
    return tuple(value)


def from_table(root: Path, table: dict[str, Any]) -> RunOptions:
    paths = _strings(table, "paths") or (".",)
    tests = _strings(table, "tests") or (("tests",) if (root / "tests").is_dir() else (".",))
    try:
        return RunOptions(
            root=root,
            paths=paths,
            tests=tests,
            pytest_args=_strings(table, "pytest-args"),
            families=_strings(table, "families"),
            operators=_strings(table, "operators"),
            exclude=_strings(table, "exclude"),
            jobs=int(table.get("jobs", os.cpu_count() or 1)),
            timeout_factor=float(table.get("timeout-factor", 3.0)),
            isolation=str(table.get("isolation", "fork")),
            memory_limit_mb=int(table.get("memory-limit-mb", 4096)),
        )
    except (TypeError, ValueError) as error:
        raise ConfigError(f"[tool.bugsmith]: {error}") from None


def resolve(cwd: Path, paths: tuple[str, ...] = (), **overrides: Any) -> RunOptions:
    """Options for a run started in `cwd`: its project's table, else the built-in corpus.

    Paths given on the command line (relative to `cwd`) replace the table's `paths`.
    """
    cwd = cwd.resolve()
    found = find_project(cwd)
    if found is not None:
        root, table = found
        options = from_table(root, table)
    elif paths:
        root = cwd
        options = from_table(root, {})
    else:
        root = builtin_root()
        options = from_table(root, {"paths": ["reference"], "tests": ["reference"],
                                    "exclude": ["**/strategies.py"]})
    if paths:
        options = replace(options, paths=tuple(_relative(root, cwd / p) for p in paths))
    tests = overrides.pop("tests", ())
    if tests:
        options = replace(options, tests=tuple(_relative(root, cwd / t) for t in tests))
    changes = {key: value for key, value in overrides.items() if value not in (None, ())}
    return validate(replace(options, **changes))


def _relative(root: Path, path: Path) -> str:
    path = path.resolve()
    if not path.exists():
        raise ConfigError(f"no such file or directory: {path}")
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        raise ConfigError(f"{path} is outside the project root {root}") from None


def validate(options: RunOptions) -> RunOptions:
    for path in (*options.paths, *options.tests):
        if not (options.root / path).exists():
            raise ConfigError(f"no such file or directory: {options.root / path}")
    if options.jobs < 1:
        raise ConfigError("--jobs must be at least 1")
    if options.timeout_factor <= 0:
        raise ConfigError("--timeout-factor must be positive")
    if options.isolation not in ISOLATIONS:
        raise ConfigError(f"--isolation must be one of {', '.join(ISOLATIONS)}")
    return options
