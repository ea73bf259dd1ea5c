"""The options of a run, from the command line and the project's `[tool.bugsmith]` table."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bugsmith.errors import ConfigError
from bugsmith.harness.sandbox import Sandbox

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
    "timeout-factor", "jobs", "isolation", "memory-limit-mb", "equivalents", "reports",
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
    equivalents: str = "equivalent-mutants.toml"  # the reviewed list, relative to root
    reports: str = f"{STORE_DIR}/reports"  # where `run` writes its reports by default
    # Where every process that runs the tests is confined (None: unconfined, as trusted code is);
    # `bugsmith score` runs a candidate's tests, so its workers get one (harness.sandbox).
    sandbox: Sandbox | None = None

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


def make_state_folder(folder: Path) -> Path:
    """Create bugsmith's state folder (`.bugsmith/`) with a `.gitignore` that keeps all of it
    out of version control, as pytest does for `.pytest_cache/`."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by bugsmith: its store, reports and tool caches.\n*\n", encoding="utf-8")
    return folder


def builtin_root() -> Path:
    """The project folder of the built-in corpus (the checkout, or a copy in the user cache)."""
    from bugsmith.harness.corpus import corpus_root

    return corpus_root()


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


def _path(table: dict[str, Any], key: str, default: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"[tool.bugsmith] {key} must be a path (a string)")
    return value


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
            equivalents=_path(table, "equivalents", "equivalent-mutants.toml"),
            reports=_path(table, "reports", f"{STORE_DIR}/reports"),
        )
    except (TypeError, ValueError) as error:
        raise ConfigError(f"[tool.bugsmith]: {error}") from None


def resolve(cwd: Path, paths: tuple[str, ...] = (), *, builtin: bool = False,
            **overrides: Any) -> RunOptions:
    """Options for a run started in `cwd`: its project's table; with `paths` and no table, an
    ad-hoc project at `cwd`; with `builtin`, the built-in corpus. Anything else is an error
    that says how to configure the project, never a silent run of something else.

    Paths given on the command line (relative to `cwd`) replace the table's `paths`.
    """
    cwd = cwd.resolve()
    root, table = _project(cwd, paths, builtin)
    options = from_table(root, table)
    if paths:
        options = replace(options, paths=tuple(_relative(root, cwd / p) for p in paths))
    tests = overrides.pop("tests", ())
    if tests:
        options = replace(options, tests=tuple(_relative(root, cwd / t) for t in tests))
    changes = {key: value for key, value in overrides.items() if value not in (None, ())}
    return validate(replace(options, **changes))


def _project(cwd: Path, paths: tuple[str, ...], builtin: bool) -> tuple[Path, dict[str, Any]]:
    if builtin:
        root = builtin_root()
        return root, read_table(root / "pyproject.toml") or {}
    found = find_project(cwd)
    if found is not None:
        return found
    if paths:
        return cwd, {}
    raise ConfigError(unconfigured_message(cwd))


def project_root(cwd: Path, builtin: bool = False) -> Path:
    """The project whose store `report`, `show` and `triage` read: the one `run` used in
    `cwd` (its configured project, else an ad-hoc run's store right here)."""
    if builtin:
        return builtin_root()
    cwd = cwd.resolve()
    found = find_project(cwd)
    if found is not None:
        return found[0]
    if (cwd / STORE_DIR / "bugsmith.sqlite").is_file():
        return cwd
    raise ConfigError(f"no bugsmith run here: {cwd} has no {STORE_DIR}/ store and no [tool.bugsmith]"
                      " table (run `bugsmith run` first, or pass --builtin for the built-in corpus)")


def unconfigured_message(cwd: Path) -> str:
    """What `bugsmith run` would need in `cwd`, and the commands that give it."""
    from bugsmith.harness.project_setup import guess_table

    pyproject = unconfigured_project(cwd)
    where = f"{pyproject} has no [tool.bugsmith] table" if pyproject else (
        f"no pyproject.toml with a [tool.bugsmith] table at or above {cwd}")
    guess = guess_table(pyproject.parent if pyproject else cwd)
    would = (f"`bugsmith init` writes one (paths = {guess['paths']}, tests = {guess['tests']})"
             if guess else "`bugsmith init` writes one once the folder holds a package or module")
    return (f"{where}: {would}; `bugsmith run PATH ...` tests the given paths;"
            " `bugsmith run --builtin` runs the built-in corpus")


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
