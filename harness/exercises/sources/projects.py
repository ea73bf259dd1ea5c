"""Problems a user's project declares in its pyproject.toml, as `Problem` records.

```toml
[tool.bugsmith]
paths = ["src/mylib"]
tests = ["tests"]

[tool.bugsmith.exercises.stats]           # one table per problem
statement = "docs/stats.md"               # shown to the candidate
paths = ["src/mylib/stats.py"]            # where bugs go (default: [tool.bugsmith] paths)
visible = ["tests/test_stats.py"]         # tests the candidate gets (required)
hidden = ["tests/test_stats_more.py"]     # held back (default: every other test file under tests)
support = ["tests/data"]                  # more files the tests need (default: none)
```

The candidate gets the whole package around the files bugs go into, the visible tests, the
conftest.py and `__init__.py` files on the way from each test up to the root, the helper
modules beside the tests, `support`, and the project's pytest configuration.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from bugsmith.errors import ConfigError
from bugsmith.harness import config
from bugsmith.harness.discovery import source_files
from bugsmith.harness.exercises.sources.problems import PROJECT, Problem
from bugsmith.harness.exercises.sources.pytest_config import exercise_config, find_config, with_addopts, with_pythonpath

KEYS = ("statement", "paths", "visible", "hidden", "support")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
# pytest's default `norecursedirs`; a project's own setting replaces it, as in pytest.
NORECURSEDIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
_NEVER = ("__pycache__", ".*", "*.egg-info", "site-packages")
_COMPILED = (".pyc", ".pyo")


def project_problems(root: Path) -> dict[str, Problem] | None:
    """The problems of `root/pyproject.toml`'s `[tool.bugsmith.exercises]`; None without one."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    table = config.read_table(pyproject)
    if table is None or "exercises" not in table:
        return None
    declared = table["exercises"]
    tables = isinstance(declared, dict) and all(isinstance(v, dict) for v in declared.values())
    if not tables or not declared:
        raise ConfigError(f"{pyproject}: [tool.bugsmith.exercises] must hold one table per problem,"
                          " e.g. [tool.bugsmith.exercises.core]")
    return {name: _Reader(root, pyproject, table, name, declared[name]).problem()
            for name in sorted(declared)}


class _Reader:
    """Reads one problem's table; every mistake is a one-line ConfigError naming the table."""

    def __init__(self, root: Path, pyproject: Path, table: dict[str, Any], name: str,
                 spec: dict[str, Any]) -> None:
        self.root = root
        self.where = f"{pyproject}: [tool.bugsmith.exercises.{name}]"
        self.table = table
        self.name = name
        self.spec = spec
        self.pytest = find_config(root)

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.where}: {message}")

    def problem(self) -> Problem:
        if not _NAME.match(self.name):
            raise self.fail("a problem name is lower-case letters, digits, '_' and '-'")
        unknown = sorted(set(self.spec) - set(KEYS))
        if unknown:
            raise self.fail(f"unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
        if "statement" not in self.spec:
            raise self.fail("`statement` (the file shown to the candidate) is required")
        statement = self._paths("statement", files_only=True)[0]
        mutate = self._paths("paths") or config.from_table(self.root, self.table).paths
        tests = config.from_table(self.root, self.table).tests
        visible = self._tests(self._paths("visible"))
        if not visible:
            raise self.fail("no visible tests: `visible` must name at least one test file")
        hidden = self._hidden(visible, tests)
        code, import_roots = self._code(mutate, {*visible, *hidden})
        support = self._support(visible + hidden, set(code))
        pytest_args = config.from_table(self.root, self.table).pytest_args
        glue_name, glue_text = exercise_config(
            with_addopts(with_pythonpath(self.pytest, import_roots), pytest_args))
        # The generated file stands in for the project's own, which may say more than pytest needs.
        support = tuple(s for s in support if s != glue_name)
        project = _project_table(self.root)
        label = str(project.get("name") or self.root.name)
        return Problem(
            name=self.name, root=self.root, source=PROJECT, mutate=mutate, exclude=(),
            test_paths=visible + hidden, code=code, statement=statement, visible=visible, hidden=hidden,
            support=support, candidate_glue={glue_name: glue_text}, grader_glue={glue_name: glue_text},
            grade_targets=visible + hidden, location=", ".join(f"`{self._shown(p)}`" for p in mutate),
            requirements=_requirements(project), repo=label,
            instance_prefix=re.sub(r"[^a-z0-9_.]+", "-", label.lower()).strip("-") or "project",
        )

    def _paths(self, key: str, *, files_only: bool = False) -> tuple[str, ...]:
        value = self.spec.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"`{key}` must be a path or a list of paths")
        found = []
        for entry in value:
            path = (self.root / entry).resolve()
            if Path(entry).is_absolute() or not path.is_relative_to(self.root):
                raise self.fail(f"`{key}` entry {entry!r} is outside the project")
            if not path.exists():
                raise self.fail(f"`{key}` entry {entry!r}: no such file or directory")
            if files_only and not path.is_file():
                raise self.fail(f"`{key}` entry {entry!r} is not a file")
            found.append(path.relative_to(self.root).as_posix())
        return tuple(found)

    def _shown(self, relative: str) -> str:
        return relative + "/" if (self.root / relative).is_dir() else relative

    def _is_test_file(self, relative: str) -> bool:
        name = relative.rsplit("/", 1)[-1]
        return any(fnmatch(name, pattern) for pattern in self.pytest.python_files)

    def _files_under(self, relative: str) -> list[str]:
        """The files of a folder, less what pytest would not recurse into (virtualenvs, builds, caches)."""
        path = self.root / relative
        if path.is_file():
            return [relative]
        skipped = (*(self.pytest.paths("norecursedirs") or NORECURSEDIRS), *_NEVER)
        return [p.relative_to(self.root).as_posix() for p in sorted(path.rglob("*"))
                if p.is_file() and not p.name.startswith(".") and not p.name.endswith(_COMPILED)
                and not any(fnmatch(part, pattern) for part in p.relative_to(path).parts[:-1]
                            for pattern in skipped)]

    def _tests(self, entries: tuple[str, ...]) -> tuple[str, ...]:
        """Test files named by `entries`: files as given, folders by the project's test file names."""
        found: list[str] = []
        for entry in entries:
            if (self.root / entry).is_file():
                if not entry.endswith(".py"):
                    raise self.fail(f"{entry!r} is not a Python test file")
                found.append(entry)
            else:
                found.extend(f for f in self._files_under(entry) if self._is_test_file(f))
        return tuple(dict.fromkeys(found))

    def _hidden(self, visible: tuple[str, ...], tests: tuple[str, ...]) -> tuple[str, ...]:
        if "hidden" in self.spec:
            hidden = self._tests(self._paths("hidden"))
            both = sorted(set(hidden) & set(visible))
            if both:
                raise self.fail(f"{both[0]!r} is both visible and hidden")
            return hidden
        for entry in tests:
            if not (self.root / entry).exists():
                raise self.fail(f"[tool.bugsmith] tests entry {entry!r}: no such file or directory")
        return tuple(t for t in self._tests(tests) if t not in visible)

    def _code(self, mutate: tuple[str, ...], tests: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Every file of the packages bugs go into, and the folders those packages import from."""
        options = config.from_table(self.root, self.table)
        files = source_files(replace(options, paths=mutate))
        if not files:
            raise self.fail("`paths` hold no Python code to put bugs in"
                            " (tests and excluded files do not count)")
        tops = sorted({_package_top(f, self.root) for f in files})
        code: list[str] = []
        for top in tops:
            for relative in self._files_under(top.relative_to(self.root).as_posix()):
                if relative not in tests and not self._is_test_kit(relative):
                    code.append(relative)
        roots = sorted({top.parent.relative_to(self.root).as_posix() for top in tops})
        return tuple(dict.fromkeys(code)), tuple(r for r in roots if r != ".")

    def _is_test_kit(self, relative: str) -> bool:
        parts = relative.split("/")
        in_test_folder = bool({"tests", "test"} & set(parts[:-1]))
        return self._is_test_file(relative) or parts[-1] == "conftest.py" or in_test_folder

    def _support(self, tests: tuple[str, ...], code: set[str]) -> tuple[str, ...]:
        """conftest.py and __init__.py from each test up to the root, helpers beside the tests, `support`."""
        found: list[str] = []
        for test in tests:
            folder = (self.root / test).parent
            for sibling in sorted(folder.glob("*.py")):
                relative = sibling.relative_to(self.root).as_posix()
                if not self._is_test_file(relative):
                    found.append(relative)
            while True:
                for name in ("conftest.py", "__init__.py"):
                    if (folder / name).is_file():
                        found.append((folder / name).relative_to(self.root).as_posix())
                if folder == self.root:
                    break
                folder = folder.parent
        for entry in self._paths("support"):
            found.extend(self._files_under(entry))
        return tuple(sorted(set(found) - code - set(tests)))


def _package_top(file: Path, root: Path) -> Path:
    """The top-level package folder that holds `file`, or `file` itself for a lone module."""
    folder = file.parent
    if not (folder / "__init__.py").is_file():
        return file
    while folder.parent != root and (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder


def _project_table(root: Path) -> dict[str, Any]:
    try:
        return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _requirements(project: dict[str, Any]) -> str:
    """What the candidate installs, from `[project]`: e.g. "Python >=3.11, pytest and numpy"."""
    python = project.get("requires-python")
    needs = [f"Python {python}" if isinstance(python, str) else "Python", "pytest"]
    needs += [d for d in project.get("dependencies", ()) if isinstance(d, str)]
    return ", ".join(needs[:-1]) + " and " + needs[-1]
