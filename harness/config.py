"""The options of a run, from the command line and the project's `[tool.bugsmith]` table."""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bugsmith.errors import ConfigError
from bugsmith.harness.shared.sandbox import Sandbox

if TYPE_CHECKING:
    from bugsmith.harness.sampling import SampleSpec

STORE_DIR = ".bugsmith"
DEFAULT_STORE_CAP_MB = 200
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
    # `bugsmith score` runs a candidate's tests, so its workers get one (harness.shared.sandbox).
    sandbox: Sandbox | None = None
    # A cold run runs mutants on workers the baseline's last chunks leave idle (harness.speculation);
    # False waits for the whole baseline first. The verdicts are the same either way.
    pipeline: bool = True
    # Fork the zygote from a preloader left by the last run, and leave one for the next
    # (harness.shared.preload): a process that outlives the run. `bugsmith run` asks for it by default.
    preload: bool = False
    # Run a stratified random sample of the mutants and report the score with its interval
    # (harness.sampling); None: every mutant.
    sample: SampleSpec | None = None
    # The store's size cap: after a run, the least recently used entries are evicted down to
    # below it (harness.store_cap says why 200 MB by default).
    store_cap_mb: int = DEFAULT_STORE_CAP_MB

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
    """The `[tool.bugsmith]` table of `pyproject` with its keys spelt with dashes; None if it
    has none. Every key must be known and every value of the right type (see `SETTINGS`)."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read: {error}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{pyproject}: [tool] must be a table, not {_shown(tool)}")
    table = tool.get("bugsmith")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.bugsmith] must be a table, not `bugsmith = {_shown(table)}`")
    table = {key.replace("_", "-"): value for key, value in table.items()}
    known = [setting.key for setting in SETTINGS]
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]!r}" if close else f" (known keys: {', '.join(known)})"
            raise ConfigError(f"{pyproject}: unknown key {key!r} in [tool.bugsmith]{hint}")
    for setting in SETTINGS:
        if setting.key in table:
            setting.check(f"{pyproject}: [tool.bugsmith] {setting.key}", table[setting.key])
    return table


def _shown(value: Any) -> str:
    """A value as a message quotes it: whole when short (one line: repr escapes newlines)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:50]}... (a {type(value).__name__})"


# Checks: each takes where the value came from (for the message) and the value, and returns the
# value as RunOptions holds it, or raises a ConfigError that names the key.
Check = Callable[[str, Any], Any]


def _strings(label: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{label} must be a list of strings, not {_shown(value)}")
    return tuple(value)


def _inside(label: str, value: Any) -> tuple[str, ...]:
    """Paths relative to the project root that stay inside it: bugsmith mutates and tests only
    the project it runs in (a path outside would also escape the private copy a run uses)."""
    paths = _strings(label, value)
    for path in paths:
        if not path or Path(path).is_absolute() or os.path.normpath(path).split(os.sep)[0] == "..":
            raise ConfigError(f"{label}: {path!r} is not inside the project: give a path relative to"
                              " the folder of pyproject.toml, without `..`")
    return paths


def _families(label: str, value: Any) -> tuple[str, ...]:
    from bugsmith.mutators.family import Family

    families = _strings(label, value)
    known = [family.value for family in Family]
    for name in families:
        if name not in known:
            raise ConfigError(f"{label}: unknown family {name!r}; choose from {', '.join(known)}")
    return families


def _whole(minimum: int) -> Check:
    def check(label: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{label} must be a whole number, not {_shown(value)}")
        if value < minimum:
            raise ConfigError(f"{label} must be at least {minimum}, not {value}")
        return value

    return check


def _positive(label: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{label} must be a number, not {_shown(value)}")
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{label} must be positive, not {value}")
    return float(value)


def _choice(choices: tuple[str, ...]) -> Check:
    def check(label: str, value: Any) -> str:
        if value not in choices:
            raise ConfigError(f"{label} must be one of {', '.join(choices)}, not {_shown(value)}")
        return str(value)

    return check


def _flag(label: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{label} must be true or false, not {_shown(value)}")
    return value


def _path(label: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{label} must be a path (a string), not {_shown(value)}")
    return value


def _table(label: str, value: Any) -> Any:
    if not isinstance(value, dict):
        raise ConfigError(f"{label} must be a table, not {_shown(value)}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """One key of `[tool.bugsmith]`: the check its value must pass and the RunOptions field it
    sets (None: another stage reads it); `option` is the command-line flag that can override it."""

    key: str
    check: Check
    field: str | None = None
    option: str | None = None


# The one place that says what each key may hold; the table and the command line both pass it.
SETTINGS: tuple[Setting, ...] = (
    Setting(key="paths", check=_inside, field="paths"),
    Setting(key="tests", check=_inside, field="tests"),
    Setting(key="pytest-args", check=_strings, field="pytest_args"),
    Setting(key="families", check=_families, field="families"),
    Setting(key="operators", check=_strings, field="operators"),
    Setting(key="exclude", check=_strings, field="exclude"),
    Setting(key="timeout-factor", check=_positive, field="timeout_factor", option="--timeout-factor"),
    Setting(key="jobs", check=_whole(1), field="jobs", option="--jobs"),
    Setting(key="isolation", check=_choice(ISOLATIONS), field="isolation", option="--isolation"),
    # Below a few dozen megabytes a worker cannot even import pytest: every mutant would "fail".
    Setting(key="memory-limit-mb", check=_whole(64), field="memory_limit_mb"),
    Setting(key="preload", check=_flag, field="preload", option="--preload/--no-preload"),
    Setting(key="equivalents", check=_path, field="equivalents"),
    Setting(key="reports", check=_path, field="reports"),
    Setting(key="store-cap-mb", check=_whole(1), field="store_cap_mb"),
    Setting(key="exercises", check=_table),  # problems for `bugsmith exercises`: harness.exercises.sources.projects
)


def from_table(root: Path, table: dict[str, Any], preload: bool = False) -> RunOptions:
    """The options `table` sets; `preload`: the default of its `preload` key."""
    values = {
        setting.field: setting.check(f"[tool.bugsmith] {setting.key}", table[setting.key])
        for setting in SETTINGS if setting.field and setting.key in table
    }
    values.setdefault("preload", preload)
    values["paths"] = values.get("paths") or (".",)
    values["tests"] = values.get("tests") or (("tests",) if (root / "tests").is_dir() else (".",))
    return RunOptions(root=root, **values)


def resolve(cwd: Path, paths: tuple[str, ...] = (), *, builtin: bool = False, preload: bool = False,
            **overrides: Any) -> RunOptions:
    """Options for a run started in `cwd`: its project's table; with `paths` and no table, an
    ad-hoc project at `cwd`; with `builtin`, the built-in corpus. Anything else is an error
    that says how to configure the project, never a silent run of something else.

    Paths given on the command line (relative to `cwd`) replace the table's `paths`; `preload`
    is the default of the table's `preload`.
    """
    cwd = cwd.resolve()
    root, table = _project(cwd, paths, builtin)
    options = from_table(root, table, preload)
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
    """Check what the command line may have changed, with the table's checks, and that every
    path exists inside the project (a symlinked folder may point elsewhere)."""
    root = options.root.resolve()
    for path in (*options.paths, *options.tests):
        full = (options.root / path).resolve()
        if not full.exists():
            raise ConfigError(f"no such file or directory: {options.root / path}")
        if not full.is_relative_to(root):
            raise ConfigError(f"{options.root / path} leads outside the project root {root} (to {full})")
    for setting in SETTINGS:
        if setting.option and setting.field:
            setting.check(setting.option, getattr(options, setting.field))
    return options
