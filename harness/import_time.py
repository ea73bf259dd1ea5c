"""Which functions of a module run while it is imported.

A function that module-level code calls (a helper that registers rules, as inflection does; a
decorator; a default value) runs during collection, when no test is running: coverage ties
its import-time lines to no test, and swapping the code of the live function afterwards
cannot change what the import already did. Its mutants need a fresh import, with the tests
that use the module. Found from the source, so a guess: a call in a branch the import skips
counts too; `if __name__ == "__main__":` blocks, which an import never runs, do not.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ImportCalls:
    direct: frozenset[str]  # module-level functions that module-level code calls or decorates with
    reached: frozenset[str]  # those, and what they call in turn

    def needs_fresh_import(self, function: str | None, covered: bool) -> bool:
        """A direct call's effect can show in tests that never run its line, so it always
        needs the fresh import; a function reached through others only when no test covers its
        line (the guess is wider there, and a fresh import costs a new interpreter)."""
        return function in self.direct or (not covered and function in self.reached)


def import_calls(source: str) -> ImportCalls:
    tree = ast.parse(source)
    defined = {node.name: node for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    direct = _Calls(defined).of(tree)
    reached = set(direct)
    todo = list(direct)
    while todo:
        for name in _Calls(defined).of(*defined[todo.pop()].body) - reached:
            reached.add(name)
            todo.append(name)
    return ImportCalls(direct=frozenset(direct), reached=frozenset(reached))


class _Calls(ast.NodeVisitor):
    """Names of `defined` functions called when the visited code runs (not when the functions
    and lambdas it defines are called later)."""

    def __init__(self, defined: Mapping[str, ast.AST]) -> None:
        self.defined = defined
        self.called: set[str] = set()

    def of(self, *nodes: ast.AST) -> set[str]:
        for node in nodes:
            self.visit(node)
        return self.called

    def visit_Call(self, node: ast.Call) -> None:
        self._name(node.func)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self._name(decorator)
        self.of(*node.decorator_list, *node.args.defaults, *filter(None, node.args.kw_defaults))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.of(*node.args.defaults, *filter(None, node.args.kw_defaults))

    def visit_If(self, node: ast.If) -> None:
        if _is_main_guard(node.test):
            self.of(*node.orelse)
        else:
            self.generic_visit(node)

    def _name(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name) and node.id in self.defined:
            self.called.add(node.id)


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name(id="__name__", ctx=ast.Load())), ast.dump(ast.Constant(value="__main__"))}
