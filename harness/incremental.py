"""What an edit can affect: code units, the tests that ran them, and what a warm run may reuse.

A unit is one function or method (its `def` line to its end, nested functions included), or
the module-level code of a file (everything outside the units: imports, constants, class
bodies, decorators), which runs at import. A baseline test depends on its own file and on the
units its covered lines fall in; it keeps its stored outcome, duration and lines when none of
them changed. A change that no per-test record can place (module-level code, a function the
import runs, a conftest or another file under the test paths that holds no test, the pytest
configuration, the installed packages, bugsmith's cache version) changes `global_digest`, and
then nothing is reused: the next baseline runs the whole suite again. So does a change to any
other file a test may run or read (`support_files`): a module of the project that is not
mutated but importable, a data file under the test paths or beside a mutated module. Without
it, a broken helper module left the stored baseline green and every stored verdict standing.

A unit's lines move when an edit above it adds or removes lines, so stored lines are carried
to the new file unit by unit (`LineMap`); lines of a changed unit are never carried, since
every test that ran them runs again.
"""

from __future__ import annotations

import ast
import bisect
import copy
import functools
import hashlib
import json
import keyword
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.import_time import ImportCalls
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.tasks import LineMap
from bugsmith.mutators.mutant import Mutant, line_starts

MODULE = ""  # the name of a file's module-level unit

# Files outside the test paths that change how pytest collects or runs anything.
CONFIG_FILES = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "conftest.py")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    name: str  # qualified name ("Class.method"), "#2" after it for a second `def` of that name
    first: int  # the `def` line (decorators belong to the module-level code)
    last: int
    digest: str  # what it does: its syntax tree, local variables numbered (`meaning`)
    layout: str  # on which of its lines each node sits: stored lines carry over only if equal


@dataclass(frozen=True, slots=True, kw_only=True)
class FileUnits:
    """The units of one file, in order, and a digest of its module-level code."""

    units: tuple[Unit, ...]
    skeleton: str  # digest of the text outside the units, each unit replaced by its name

    def unit_at(self, line: int) -> Unit | None:
        """The unit that holds `line`, None at module level."""
        index = bisect.bisect_right([u.first for u in self.units], line) - 1
        if index >= 0 and line <= self.units[index].last:
            return self.units[index]
        return None

    def name_at(self, line: int) -> str:
        unit = self.unit_at(line)
        return MODULE if unit is None else unit.name

    def digests(self) -> dict[str, str]:
        return {MODULE: self.skeleton, **{u.name: u.digest for u in self.units}}

    def to_dict(self) -> dict[str, Any]:
        return {"skeleton": self.skeleton,
                "units": [[u.name, u.first, u.last, u.digest, u.layout] for u in self.units]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileUnits:
        return cls(skeleton=data["skeleton"], units=tuple(
            Unit(name=name, first=first, last=last, digest=digest, layout=layout)
            for name, first, last, digest, layout in data["units"]))


@functools.lru_cache(maxsize=1024)  # a warm run splits the stored and the current texts, mostly equal
def file_units(source: str) -> FileUnits:
    """Split `source` into units; a file Python cannot parse is one module-level unit."""
    lines = source.splitlines(keepends=True)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return FileUnits(units=(), skeleton=_digest(source))
    found: list[Unit] = []
    seen: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:
                    name = f"{name}#{seen[name]}"
                last = child.end_lineno or child.lineno
                found.append(Unit(name=name, first=child.lineno, last=last, digest=meaning(child),
                                  layout=_layout(child)))
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.stmt) and not isinstance(child, ast.FunctionDef):
                visit(child, prefix)  # a `def` under `if`/`try` at module or class level

    visit(tree, "")
    found.sort(key=lambda u: u.first)
    outside: list[str] = []
    position = 0
    for unit in found:
        outside.extend(lines[position:unit.first - 1])
        outside.append(f"\x00{unit.name}\n")
        position = unit.last
    outside.extend(lines[position:])
    return FileUnits(units=tuple(found), skeleton=_digest("".join(outside)))


# Names that read a frame's local variables by name: renaming a local would change what they see.
_FRAME_READERS = frozenset({"locals", "vars", "dir", "eval", "exec", "compile", "globals", "breakpoint",
                            "_getframe", "currentframe", "f_locals", "f_back", "stack", "getframeinfo"})


def meaning(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A digest of what a function does, blind to comments, formatting and the names of its
    local variables (renaming one keeps every verdict that depends on the function).

    A name is numbered only where Python hides it: bound by a plain assignment in the
    function's own scope (a name bound only in a nested function or a comprehension may be a
    global where the function reads it), never a parameter, never declared global or
    nonlocal, never spelt anywhere but as a variable (an attribute, an import, an `except ...
    as`, a keyword, a pattern capture), in a function with no class inside it (a class body's
    names are attributes) and that reads no frame by name (`locals()`, `eval`,
    `sys._getframe`). It is numbered in the body only: decorators, defaults and annotations
    run in the enclosing scope. Otherwise names stay. Two functions with one digest differ
    at most by a one-to-one renaming of such locals, which no statement can tell apart.
    """
    spelt: set[str] = set()
    nested_class = False
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.add(child.id)
            continue
        if isinstance(child, ast.ClassDef):
            nested_class = True
        if isinstance(child, ast.Constant):
            continue
        for _, value in ast.iter_fields(child):
            if isinstance(value, str):
                spelt.add(value)
            elif isinstance(value, list):
                spelt.update(v for v in value if isinstance(v, str))
    if nested_class or (names | spelt) & _FRAME_READERS:
        return _digest(ast.dump(node))
    numbered = {name: f"\x00{n}" for n, name in enumerate(b for b in _own_bindings(node) if b not in spelt)}
    tree = copy.deepcopy(node)
    for statement in tree.body:
        for child in ast.walk(statement):
            if isinstance(child, ast.Name) and child.id in numbered:
                child.id = numbered[child.id]
    return _digest(ast.dump(tree))


# Nodes whose body is a scope of its own (what they bind is not a local of the function).
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _own_bindings(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, None]:
    """Names a variable of the function's own scope binds (assigned or deleted), in order of
    appearance; nested scopes are not entered (what a walrus in them binds stays unnumbered)."""
    bound: dict[str, None] = {}
    todo: list[ast.AST] = list(node.body)
    while todo:
        child = todo.pop(0)
        if isinstance(child, ast.Name):
            if isinstance(child.ctx, ast.Store | ast.Del):
                bound.setdefault(child.id, None)
            continue
        if isinstance(child, _SCOPES):
            continue
        todo.extend(ast.iter_child_nodes(child))
    return bound


def mutated_meaning(source: str, mutant: Mutant) -> str | None:
    """`meaning` of the function that holds `mutant` once applied to `source` (the file's
    text), its `def` line to its end: two mutants with one such digest, in one function of one
    file, do the same (what else could tell them apart, decorators included, is module-level
    code, in every verdict's key). None at module level, for a function name the file defines
    twice, or a text that does not parse. Only the function is parsed: a warm run asks this
    for every mutant of a renamed function, in files of thousands of lines."""
    units = file_units(source).units
    found = [u for u in units if u.name == mutant.function]
    if mutant.function is None or len(found) != 1 or any(u.name == f"{mutant.function}#2" for u in units):
        return None
    starts = line_starts(source)
    first = starts[found[0].first - 1]
    last = starts[found[0].last] if found[0].last < len(starts) else len(source)
    try:
        start, end = mutant.span.offsets(source)
    except IndexError:
        return None
    if not first <= start <= end <= last or source[start:end] != mutant.original:
        return None
    text = source[first:start] + mutant.mutated + source[end:last]
    indented = text[:1].isspace()  # a method: its block parses inside an `if`
    try:
        tree = ast.parse("if 1:\n" + text if indented else text)
    except (SyntaxError, ValueError):
        return None
    body = tree.body[0].body if indented and isinstance(tree.body[0], ast.If) else tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return meaning(body[0])


def _layout(node: ast.AST) -> str:
    first = getattr(node, "lineno", 0)
    return _digest(json.dumps([(getattr(n, "lineno", first) - first, (getattr(n, "end_lineno", None) or first) - first)
                               for n in ast.walk(node)]))


def module_scope(found: FileUnits, line: int) -> str:
    """What a module-level mutant's verdict depends on beside its tests' units: the file's
    module-level code, and the function whose signature holds the site (a default value)."""
    unit = found.unit_at(line)
    return json.dumps([found.skeleton, unit.digest if unit is not None else ""])


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def scope_of(found: FileUnits, texts: Mapping[str, str], function: str | None, line: int,
             original: str, mutated: str) -> str:
    """What a mutant's verdict depends on beside its own text and its tests: for a mutant in a
    function, the function's meaning (`meaning`: a local renamed elsewhere in it keeps every
    verdict whose site does not name it) when the mutant brings in no name its site did not
    have (else its text, as a name can mean another variable after a rename); at module level,
    `module_scope`."""
    text = texts.get(function or "")
    if text is None:
        return module_scope(found, line)
    unit = found.unit_at(line)
    names = {n for n in _NAME.findall(mutated) if not keyword.iskeyword(n)}
    if unit is None or not names <= set(_NAME.findall(original)):
        return text
    return json.dumps(["meaning", unit.digest])


def carry_line(old: FileUnits, new: FileUnits, line: int) -> int | None:
    """Where `line` of the old file is in the new one: None inside a unit that changed.

    Only called when both files have the same module-level code, so their units come in the
    same order under the same names.
    """
    index = bisect.bisect_right([u.first for u in old.units], line) - 1
    if index >= 0 and line <= old.units[index].last:
        before, after = old.units[index], new.units[index]
        if (before.digest, before.layout) != (after.digest, after.layout):
            return None
        return line + after.first - before.first
    if index < 0:
        return line  # above the first unit: nothing before it moved
    return line + new.units[index].last - old.units[index].last


def _changed(old: FileUnits, new: FileUnits | None) -> set[str]:
    """Names of the units whose meaning or layout differs (stored lines cannot stand for them)."""
    if new is None:
        return {MODULE, *(u.name for u in old.units)}
    after = {u.name: (u.digest, u.layout) for u in new.units}
    changed = {u.name for u in old.units if after.get(u.name) != (u.digest, u.layout)}
    return changed | ({MODULE} if old.skeleton != new.skeleton else set())


def executed_units(lines: LineMap, units: Mapping[str, FileUnits]) -> dict[str, set[tuple[str, str]]]:
    """Per test, the (file, unit name) pairs it executed, from the baseline's line map."""
    executed: dict[str, set[tuple[str, str]]] = {}
    for file, by_line in lines.items():
        found = units.get(file)
        if found is None:
            continue
        for number, tests in by_line.items():
            pair = (file, found.name_at(number))
            for test in tests:
                executed.setdefault(test, set()).add(pair)
    return executed


def test_digests(baseline: Baseline, units: Mapping[str, FileUnits],
                 test_hashes: Mapping[str, str]) -> dict[str, str]:
    """Per test, a digest of everything it depends on: its file and every unit it executed."""
    executed = executed_units(baseline.lines, units)
    by_file = {file: found.digests() for file, found in units.items()}
    digests = {}
    for test in baseline.tests:
        pairs = sorted(executed.get(test.id, ()))
        digests[test.id] = _digest(json.dumps(
            [test.id, test_hashes.get(test.file, ""), [(f, n, by_file[f].get(n, "")) for f, n in pairs]]))
    return digests


def environment() -> list[str]:
    """The interpreter and the distributions installed for it (their folders name the
    versions): an upgrade changes what every test runs."""
    found = [sys.version]
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry):
            try:
                names = os.listdir(entry)
            except OSError:
                found.append(entry)
                continue
            found.extend(sorted(n for n in names if n.endswith((".dist-info", ".egg-info", ".pth"))))
    return found


def config_hashes(root: Path, places: Iterable[str]) -> dict[str, str]:
    """Hashes of the configuration files at the root and in every folder between it and
    `places` (test paths and source files): pytest reads conftests and ini files there."""
    folders = {root}
    for place in places:
        folder = (root / place).resolve()
        folder = folder if folder.is_dir() else folder.parent
        while folder != root and root in folder.parents:
            folders.add(folder)
            folder = folder.parent
    hashes = {}
    for folder in sorted(folders):
        for name in CONFIG_FILES:
            path = folder / name
            if path.is_file():
                hashes[path.relative_to(root).as_posix()] = _digest(path.read_bytes().decode(errors="replace"))
    return hashes


IMPORT_ROOTS = ("", "src")  # where a project's importable code starts: its root, a src layout


def support_files(tree: Mapping[str, tuple[str, int, int]], skip: Set[str],
                  folders: Iterable[str]) -> list[tuple[str, int, int]]:
    """The files of `tree` (a snapshot: path -> kind, size, time) that a test may run or read,
    but those in `skip` (the mutated sources, the test files, hashed on their own): every file
    under `folders` (the test paths and the mutated sources' folders; the project's root is not
    one of them, or its README would count), and every Python module a test can import from
    the project's IMPORT_ROOTS (a module there, or in a package of packages under it). Not a
    copy of the code that no import reaches (mutmut's `mutants/`, a `build/lib`). As (path,
    size, time), sorted."""
    prefixes = tuple(f"{folder.strip('/')}/" for folder in folders if folder.strip("/") not in ("", "."))
    return sorted((path, size, time) for path, (kind, size, time) in tree.items()
                  if kind == "f" and path not in skip
                  and (path.startswith(prefixes) or _importable(path, tree)))


def _importable(path: str, tree: Mapping[str, tuple[str, int, int]]) -> bool:
    """A Python file that an import reaches with one of IMPORT_ROOTS on `sys.path`: a module
    there, or one in packages (folders with an `__init__.py`) all the way down."""
    if not path.endswith(".py"):
        return False
    for root in IMPORT_ROOTS:
        start = f"{root}/" if root else ""
        if not path.startswith(start):
            continue
        folders = path[len(start):].split("/")[:-1]
        if all(f"{start}{'/'.join(folders[:n])}/__init__.py" in tree for n in range(1, len(folders) + 1)):
            return True
    return False


def global_digest(*, version: str, units: Mapping[str, FileUnits], at_import: Mapping[str, ImportCalls],
                  support: Mapping[str, str], config: Mapping[str, str], call: Sequence[str]) -> str:
    """A digest of every change that invalidates all stored baseline tests and verdicts."""
    imported = {
        file: sorted((name, found.digests().get(name, ""))
                     for name in at_import[file].direct | at_import[file].reached)
        for file, found in units.items() if file in at_import
    }
    return _digest(json.dumps([
        version, sorted((file, found.skeleton) for file, found in units.items()), imported,
        sorted(support.items()), sorted(config.items()), list(call), environment(),
    ], sort_keys=True))


@dataclass(frozen=True, slots=True, kw_only=True)
class Reuse:
    """What a warm baseline keeps of the stored one, and what it runs again."""

    kept: tuple[TestInfo, ...]  # stored tests still valid, in their order
    rerun_files: tuple[str, ...]  # test files changed or new: all their tests run again
    rerun_tests: tuple[str, ...]  # tests of unchanged files that ran a changed unit

    @property
    def needs_run(self) -> bool:
        return bool(self.rerun_files or self.rerun_tests)

    def test_paths(self) -> tuple[str, ...]:
        """pytest arguments that collect exactly what runs again."""
        return (*self.rerun_files, *self.rerun_tests)


def plan_reuse(old: Baseline, old_units: Mapping[str, FileUnits], new_units: Mapping[str, FileUnits],
               old_hashes: Mapping[str, str], new_hashes: Mapping[str, str]) -> Reuse:
    """Split the stored baseline's tests into kept and stale (the global digest is unchanged)."""
    test_files = {test.file for test in old.tests}
    changed_files = {f for f in test_files if old_hashes.get(f) != new_hashes.get(f)}
    new_files = {f for f in new_hashes if f not in old_hashes}
    changed_units = {(file, name) for file, found in old_units.items()
                     for name in _changed(found, new_units.get(file))}
    executed = executed_units(old.lines, old_units)
    kept, rerun = [], []
    for test in old.tests:
        if test.file in changed_files:
            continue
        if executed.get(test.id, set()) & changed_units:
            rerun.append(test.id)
        else:
            kept.append(test)
    rerun_files = sorted(f for f in changed_files | new_files if f in new_hashes)
    return Reuse(kept=tuple(kept), rerun_files=tuple(rerun_files), rerun_tests=tuple(rerun))


def merge(old: Baseline, reuse: Reuse, fresh: Baseline | None, old_units: Mapping[str, FileUnits],
          new_units: Mapping[str, FileUnits]) -> Baseline:
    """The new baseline: kept tests with their lines carried to the edited files, and the fresh
    results of the tests that ran again (tests of a changed file where its first test was)."""
    fresh_tests = list(fresh.tests) if fresh is not None else []
    fresh_by_id = {t.id: t for t in fresh_tests}
    kept_ids = {t.id for t in reuse.kept}
    rerun_files = set(reuse.rerun_files)
    tests: list[TestInfo] = []
    placed: set[str] = set()
    for test in old.tests:
        if test.file in rerun_files:
            if test.file not in placed:
                placed.add(test.file)
                tests.extend(t for t in fresh_tests if t.file == test.file)
        elif test.id in kept_ids:
            tests.append(test)
        elif test.id in fresh_by_id:
            tests.append(fresh_by_id[test.id])
    listed = {t.id for t in tests}
    tests.extend(t for t in fresh_tests if t.id not in listed)
    lines: dict[str, dict[int, set[str]]] = {}
    for file, by_line in old.lines.items():
        before, after = old_units.get(file), new_units.get(file)
        if before is None or after is None:
            continue
        for number, ids in by_line.items():
            still = [i for i in ids if i in kept_ids]
            moved = carry_line(before, after, number) if still else None
            if moved is not None:
                lines.setdefault(file, {}).setdefault(moved, set()).update(still)
    for file, by_line in (fresh.lines if fresh is not None else {}).items():
        for number, ids in by_line.items():
            lines.setdefault(file, {}).setdefault(number, set()).update(ids)
    return Baseline(
        tests=tuple(tests),
        lines={f: {n: tuple(sorted(ids)) for n, ids in sorted(by.items())} for f, by in sorted(lines.items())},
        duration=fresh.duration if fresh is not None else 0.0,
        writes=fresh.writes if fresh is not None else old.writes,
        escapes=fresh.escapes if fresh is not None else old.escapes,
        shared_view=fresh.shared_view if fresh is not None else old.shared_view,
        order_dependent=fresh.order_dependent if fresh is not None else old.order_dependent,
    )
