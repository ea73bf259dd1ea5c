"""How a handout names a problem's files and imports, and how grading reads them back.

In the project a built-in problem is the package `reference/<name>/`, and its suites import it
as `reference.<name>`. A handout reads as a codebase of its own: it drops the `reference` level,
so the candidate gets `<name>/<module>.py` and `from <name> import ...`. `HandoutNames` is the one
mapping between the two. Packs write every handed-out file through `handout_files` (paths; the
imports of Python files rewritten with libcst; in Markdown, the one module path as text), and
grading reads the submission, the instructor's handout/ copy and the candidate's record of test
runs back through `project_files`, `project_path` and `project_test_id` before anything runs.
Exercise records, the store, the grader's kit and grading keep the project's paths.

Which problems are renamed: the built-in ones only. While a pack is built the `Problem` says so
(`source == REFERENCE`: the catalogue made it from `reference/<name>/problem.md`), see
`handout_names`. In a pack, an exercise folder without `layout.json` is a built-in problem's (a
project's pack records its layout), unless its handout/ still holds `reference/`: a pack exported
before handouts were renamed keeps the names it was handed out with (`pack_names`). A problem of
a user's project keeps its own paths (`KEEP`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.problems import REFERENCE, Problem


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoutNames:
    """The project's names of a problem's files and imports against the handout's."""

    level: str = ""  # the project's package the handout drops ("reference"); "": every name kept
    packages: tuple[str, ...] = ()  # the packages under it, by their handout names ("scheduler",)

    @property
    def renames(self) -> bool:
        return bool(self.level)

    def path(self, project: str) -> str:
        """`reference/scheduler/scheduler.py` -> `scheduler/scheduler.py`."""
        prefix = f"{self.level}/"
        return project[len(prefix):] if self.renames and project.startswith(prefix) else project

    def project_path(self, handout: str) -> str:
        """`scheduler/scheduler.py` -> `reference/scheduler/scheduler.py`; other files keep their name."""
        if self.renames and handout.split("/", 1)[0] in self.packages:
            return f"{self.level}/{handout}"
        return handout

    def test_id(self, project: str) -> str:
        """A pytest node id with its file as the handout names it."""
        file, sep, rest = project.partition("::")
        return self.path(file) + sep + rest

    def project_test_id(self, handout: str) -> str:
        file, sep, rest = handout.partition("::")
        return self.project_path(file) + sep + rest

    def text(self, path: str, text: str) -> str:
        """A file's text as handed out: a Python file's imports of `reference.<x>` become `<x>`;
        Markdown names the module and its folder without `reference`; other files are kept."""
        if not self.renames or self.level not in text:
            return text
        if path.endswith(".py"):
            return _rewritten(text, _DropLevel(self.level))
        if path.endswith(".md"):
            return self.markdown(text)
        return text

    def project_text(self, path: str, text: str) -> str:
        """A handed-out file's text as the project has it (`text` undone); a file that does not
        parse is kept as it is, for the tests to report."""
        # Most code never imports its own package by name: only a line that might is worth a parse.
        if not self.renames or not any(re.search(rf"\b(?:from|import)\b[^\n]*\b{package}\b", text)
                                       for package in self.packages):
            return text
        if path.endswith(".py"):
            return _rewritten(text, _AddLevel(self.level, self.packages))
        if path.endswith(".md"):
            for package in self.packages:
                text = re.sub(rf"(?<![\w.])from {package}(?=[.\s])", f"from {self.level}.{package}", text)
        return text

    def markdown(self, text: str) -> str:
        """Prose (a statement, a test's message) with the problem's module (`reference.auc`) and
        folder (`reference/auc/`) named as the handout names them (`auc`, `auc/`)."""
        if not self.renames:
            return text
        for package in self.packages:
            text = re.sub(rf"(?<![\w.]){self.level}([./]){package}\b", package, text)
        return text

    def handout_files(self, files: Mapping[str, str]) -> dict[str, str]:
        """Files (project path -> text) as a handout holds them; the dropped level's own
        `__init__.py` goes with it."""
        if not self.renames:
            return dict(files)
        found: dict[str, str] = {}
        for path, text in files.items():
            if path == f"{self.level}/__init__.py":
                continue
            name = self.path(path)
            if name in found:
                raise ExerciseError(f"{path}: its handout name {name} is taken by another file")
            found[name] = self.text(path, text)
        return found

    def project_files(self, files: Mapping[str, str]) -> dict[str, str]:
        """Handed-out files (handout path -> text) as the project names them."""
        if not self.renames:
            return dict(files)
        return {self.project_path(path): self.project_text(path, text) for path, text in files.items()}


KEEP = HandoutNames()


def handout_names(problem: Problem) -> HandoutNames:
    """How `problem`'s handouts name it: a built-in problem without `reference`, any other as it is."""
    if problem.source == REFERENCE:
        return corpus_names(problem.name)
    return KEEP


def corpus_names(problem: str) -> HandoutNames:
    return HandoutNames(level=REFERENCE, packages=(problem,))


def pack_names(exercise_folder: Path, problem: str) -> HandoutNames:
    """The names an instructor part's exercise folder was handed out with (module docstring)."""
    if (exercise_folder / "layout.json").is_file() or (exercise_folder / "handout" / REFERENCE).is_dir():
        return KEEP
    return corpus_names(problem)


def _rewritten(text: str, transformer: cst.CSTTransformer) -> str:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return text
    return module.visit(transformer).code


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _expression(dotted: str) -> cst.Attribute | cst.Name:
    parts = dotted.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


class _DropLevel(cst.CSTTransformer):
    """`reference.<x>` becomes `<x>` in absolute imports, and in the attribute chains that a
    plain `import reference.<x>` makes the code write."""

    def __init__(self, level: str) -> None:
        super().__init__()
        self.level = level
        self.bound = False  # whether the module binds `reference` itself (`import reference.x`)
        self.imports = 0  # inside an import statement: its names are handled there

    def visit_Module(self, node: cst.Module) -> None:
        self.bound = any(alias.asname is None and _dotted(alias.name).split(".", 1)[0] == self.level
                         for found in m.findall(node, m.Import()) if isinstance(found, cst.Import)
                         for alias in found.names)

    def visit_Import(self, node: cst.Import) -> None:
        self.imports += 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom,
                         updated_node: cst.ImportFrom) -> cst.BaseSmallStatement:
        self.imports -= 1
        if updated_node.relative or updated_node.module is None:
            return updated_node
        module = _dotted(updated_node.module)
        if module.startswith(f"{self.level}."):
            return updated_node.with_changes(module=_expression(module[len(self.level) + 1:]))
        if module == self.level and not isinstance(updated_node.names, cst.ImportStar):
            # `from reference import auc` binds `auc`, as `import auc` does.
            aliases = list(updated_node.names)
            aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return cst.Import(names=aliases, semicolon=updated_node.semicolon)
        return updated_node

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        self.imports -= 1
        aliases = []
        for alias in updated_node.names:
            name = _dotted(alias.name)
            if name.startswith(f"{self.level}."):
                alias = alias.with_changes(name=_expression(name[len(self.level) + 1:]))
            aliases.append(alias)
        return updated_node.with_changes(names=aliases)

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        if (self.bound and not self.imports and isinstance(updated_node.value, cst.Name)
                and updated_node.value.value == self.level):
            return updated_node.attr
        return updated_node


class _AddLevel(cst.CSTTransformer):
    """`_DropLevel` undone for the handout's packages: absolute imports of `<x>` import
    `reference.<x>` and bind what they bound before."""

    def __init__(self, level: str, packages: Iterable[str]) -> None:
        super().__init__()
        self.level = level
        self.packages = frozenset(packages)

    def _ours(self, dotted: str) -> bool:
        return dotted.split(".", 1)[0] in self.packages

    def leave_ImportFrom(self, original_node: cst.ImportFrom,
                         updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if updated_node.relative or updated_node.module is None or not self._ours(_dotted(updated_node.module)):
            return updated_node
        return updated_node.with_changes(module=_expression(f"{self.level}.{_dotted(updated_node.module)}"))

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import,
                     ) -> cst.Import | cst.FlattenSentinel[cst.BaseSmallStatement]:
        ours = [self._ours(_dotted(alias.name)) for alias in updated_node.names]
        if not any(ours):
            return updated_node
        if all(alias.asname is not None for alias, mine in zip(updated_node.names, ours, strict=True) if mine):
            # `import auc.x as a` binds `a` either way: the statement keeps its layout.
            return updated_node.with_changes(names=[
                alias.with_changes(name=_expression(f"{self.level}.{_dotted(alias.name)}")) if mine else alias
                for alias, mine in zip(updated_node.names, ours, strict=True)])
        statements: list[cst.BaseSmallStatement] = []
        for alias in updated_node.names:
            name = _dotted(alias.name)
            if not self._ours(name):
                statements.append(cst.Import(names=[cst.ImportAlias(name=alias.name, asname=alias.asname)]))
                continue
            if alias.asname is not None:  # `import auc.x as a` binds `a` either way
                statements.append(cst.Import(names=[cst.ImportAlias(name=_expression(f"{self.level}.{name}"),
                                                                    asname=alias.asname)]))
                continue
            if "." in name:  # `import auc.x` loads the submodule and binds `auc`
                statements.append(cst.Import(names=[cst.ImportAlias(name=_expression(f"{self.level}.{name}"))]))
            package = name.split(".", 1)[0]
            statements.append(cst.ImportFrom(module=cst.Name(self.level),
                                             names=[cst.ImportAlias(name=cst.Name(package))]))
        return cst.FlattenSentinel(statements)
