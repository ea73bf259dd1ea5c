"""A project's pytest configuration, rewritten for a pack's exercise folder.

A candidate runs `python -m pytest` in the exercise folder, and the grader runs the same in
its own copy, so both must import the code and collect the tests as the project does. The
project's own configuration file cannot be copied whole (a pyproject.toml holds
`[tool.bugsmith.exercises]`, which names the held-back tests), so only its pytest section is
written again, in the same mode (ini strings or native TOML), with `pythonpath` extended by
the folders a src layout imports from (a project whose tests import its installed package
has nothing installed in the exercise folder).
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import iniconfig

from bugsmith.errors import ConfigError

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
# pytest's own order of precedence within one folder (pytest 9).
_CANDIDATES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml",
               "tox.ini", "setup.cfg")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


@dataclass(frozen=True, slots=True, kw_only=True)
class PytestConfig:
    """The pytest section of a project: where it came from, its mode, and its values."""

    source: str  # the file name, "" when the project has none
    mode: str  # "ini" (strings, as pytest reads ini files) or "toml" (native TOML values)
    table: str  # the TOML table written back: "pytest", "tool.pytest" or "tool.pytest.ini_options"
    values: dict[str, Any]

    def paths(self, key: str) -> tuple[str, ...]:
        """A list-valued option (`pythonpath`, `python_files`, `testpaths`) as a tuple."""
        value = self.values.get(key, ())
        return tuple(value.split()) if isinstance(value, str) else tuple(str(v) for v in value)

    @property
    def python_files(self) -> tuple[str, ...]:
        return self.paths("python_files") or DEFAULT_PYTHON_FILES


def find_config(root: Path) -> PytestConfig:
    """The pytest configuration pytest itself would use in `root` (an empty one if none)."""
    for name in _CANDIDATES:
        path = root / name
        if path.is_file():
            found = _read(path)
            if found is not None:
                return found
    return PytestConfig(source="", mode="ini", table="", values={})


def _read(path: Path) -> PytestConfig | None:
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{path}: cannot read: {error}") from None
        if path.name != "pyproject.toml":  # always the configuration, even when empty
            return PytestConfig(source=path.name, mode="toml", table="pytest", values=data.get("pytest", {}))
        tool = data.get("tool", {}).get("pytest", {})
        native = {k: v for k, v in tool.items() if k != "ini_options"}
        if native:
            return PytestConfig(source=path.name, mode="toml", table="tool.pytest", values=native)
        if "ini_options" in tool:
            return PytestConfig(source=path.name, mode="ini", table="tool.pytest.ini_options",
                                values=dict(tool["ini_options"]))
        return None
    try:
        parsed = iniconfig.IniConfig(path)
    except (OSError, iniconfig.ParseError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    section = "tool:pytest" if path.suffix == ".cfg" else "pytest"
    if section in parsed:
        return PytestConfig(source=path.name, mode="ini", table="", values=dict(parsed[section].items()))
    if path.name in ("pytest.ini", ".pytest.ini"):  # always the configuration, even when empty
        return PytestConfig(source=path.name, mode="ini", table="", values={})
    return None


def with_pythonpath(found: PytestConfig, folders: tuple[str, ...]) -> PytestConfig:
    """`found` with `folders` appended to its `pythonpath` where missing."""
    present = found.paths("pythonpath")
    missing = tuple(f for f in folders if f not in present)
    if not missing:
        return found
    value: Any = list((*present, *missing))
    if found.mode == "ini" and not found.table:
        value = " ".join(value)  # an ini file's paths are one whitespace-separated string
    return PytestConfig(source=found.source, mode=found.mode, table=found.table,
                        values={**found.values, "pythonpath": value})


def with_addopts(found: PytestConfig, args: tuple[str, ...]) -> PytestConfig:
    """`found` with `args` (the project's `[tool.bugsmith] pytest-args`, which validated the
    exercises) added to its `addopts`, so candidates and the grader run the suite the same way."""
    if not args:
        return found
    present = found.values.get("addopts")
    if isinstance(present, list) or (present is None and found.mode == "toml" and found.table == "pytest"):
        value: Any = [*(present or []), *args]
    else:
        value = " ".join(filter(None, [str(present or ""), shlex.join(args)]))
    return PytestConfig(source=found.source, mode=found.mode, table=found.table,
                        values={**found.values, "addopts": value})


def exercise_config(found: PytestConfig) -> tuple[str, str]:
    """(file name, text) of the configuration file of an exercise folder.

    A pyproject.toml written here holds only the pytest table, so that a tool that merges
    it (bugsmith score) can append its own table.
    """
    if found.table == "pytest":
        return "pytest.toml", toml_table("pytest", found.values)
    if found.table:
        return "pyproject.toml", toml_table(found.table, found.values)
    return "pytest.ini", _ini(found.values)


def _ini(values: dict[str, Any]) -> str:
    lines = ["[pytest]"]
    for key, value in values.items():
        parts = str(value).split("\n")
        if len(parts) == 1:
            lines.append(f"{key} = {parts[0]}".rstrip())
        else:
            lines.append(f"{key} =")
            lines.extend(f"    {part}" for part in parts if part)
    return "\n".join(lines) + "\n"


def toml_table(table: str, values: dict[str, Any]) -> str:
    """`values` as the TOML table `[table]` (strings, numbers, booleans, lists, inline tables)."""
    lines = [f"[{table}]"]
    lines.extend(f"{_key(key)} = {_value(value)}" for key, value in values.items())
    return "\n".join(lines) + "\n"


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise ConfigError(f"pytest option value {value!r} cannot be written back as TOML")


def _string(text: str) -> str:
    # A JSON string with every non-ASCII character escaped is a valid TOML basic string,
    # but for DEL, which JSON leaves as it is and TOML forbids.
    return json.dumps(text).replace("\x7f", "\\u007f")
