"""Which functions an edit touches: each changed line mapped to its innermost function by `ast`.

A function is named `file::qualified.name` (a method `file::Class.method`; a class's own lines,
outside its methods, `file::Class`); a line outside every function and class is
`file::<module>`. Lines are compared as `difflib.unified_diff` compares them, so the counts add
up to the grader's `diff_lines`.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

MODULE = "<module>"


@dataclass(frozen=True, slots=True, kw_only=True)
class Touch:
    """What an edit did to one function."""

    name: str  # file::qualified.name
    removed: int  # its lines before the edit that were removed or replaced
    added: int  # lines added in it
    length: int  # its lines before the edit (0: the edit made it)


Span = tuple[str, int, int]  # qualified name, first line (its decorators'), last line


def touched(before: dict[str, str], after: dict[str, str]) -> dict[str, Touch]:
    """Every function the edit from `before` to `after` (path -> text) changes, by name."""
    removed: dict[str, int] = {}
    added: dict[str, int] = {}
    lengths: dict[str, int] = {}
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, ""), after.get(path, "")
        if old == new:
            continue
        old_spans = spans(old)
        new_spans = spans(new)
        if new_spans is None:  # mid-edit code that does not parse: its lines still sit about there
            new_spans = old_spans or []
        old_spans = old_spans or []
        for name, first, last in old_spans:
            lengths[f"{path}::{name}"] = last - first + 1
        a, b = old.splitlines(), new.splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
            if tag == "equal":
                continue
            for line in range(i1 + 1, i2 + 1):
                name = f"{path}::{enclosing(old_spans, line)}"
                removed[name] = removed.get(name, 0) + 1
            for line in range(j1 + 1, j2 + 1):
                name = f"{path}::{enclosing(new_spans, line)}"
                added[name] = added.get(name, 0) + 1
    return {name: Touch(name=name, removed=removed.get(name, 0), added=added.get(name, 0),
                        length=lengths.get(name, 0))
            for name in sorted(set(removed) | set(added))}


def changed_lines(before: dict[str, str], after: dict[str, str]) -> int:
    """Lines added plus lines removed, over every file of either side (the grader's `diff_lines`)."""
    return sum(t.removed + t.added for t in touched(before, after).values())


def spans(text: str) -> list[Span] | None:
    """Every function and class of `text` with its lines; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    found: list[Span] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((name, first, child.end_lineno or child.lineno))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def enclosing(found: list[Span], line: int) -> str:
    """The innermost function or class holding `line`, or MODULE."""
    best = MODULE, 0
    for name, first, last in found:
        if first <= line <= last and first >= best[1]:
            best = name, first
    return best[0]
