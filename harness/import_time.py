"""Which functions of a module run while it is imported.

A function that module-level code calls (a helper that registers rules, as inflection does; a
decorator; a default value) runs during collection, when no test is running: coverage ties
its import-time lines to no test, and swapping the code of the live function afterwards
cannot change what the import already did. Its mutants need a fresh import, with the tests
that use the module. Found from the source, so a guess: a call in a branch the import skips
counts too; `if __name__ == "__main__":` blocks, which an import never runs, do not.

Other modules count too: a test module that decorates its methods with the library's
decorator factory (cachetools' `@cachedmethod(...)` in a class body) runs that factory during
collection, and the wrappers it built keep the original code of their nested functions however
the factory's own code is swapped later. Their import-time calls are matched by name (`f(...)`,
`mod.f(...)`, `@f`, `@mod.f`), a guess that errs towards the slower, always right fresh import.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

CALLS_VERSION = "1"  # of `called_names`: a store keeps them by this and the file's bytes


@dataclass(frozen=True, slots=True)
class ImportCalls:
    direct: frozenset[str]  # module-level functions that module-level code calls or decorates with
    reached: frozenset[str]  # those, and what they call in turn

    def needs_fresh_import(self, function: str | None, covered: bool) -> bool:
        """A direct call's effect can show in tests that never run its line, so it always
        needs the fresh import; a function reached through others only when no test covers its
        line (the guess is wider there, and a fresh import costs a new interpreter)."""
        return function in self.direct or (not covered and function in self.reached)


def import_calls(source: str, others: Iterable[ast.AST | frozenset[str]] = ()) -> ImportCalls:
    """The functions of `source` that run while it, or any of `others` (the parsed test files
    and other modules a run imports, or the `called_names` of each), is
    imported. Calling a class runs its constructors: test data built at module level (`CASES =
    [Duration(years=0.5)]`) was built by the original `__init__`, however the method is
    swapped later."""
    tree = ast.parse(source)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    bodies: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = dict(functions)
    for cls in classes.values():
        bodies.update((f"{cls.name}.{node.name}", node) for node in cls.body
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.name in _CONSTRUCTORS)
    callable_names: dict[str, ast.AST] = {**functions, **classes}

    def run_by(names: AbstractSet[str]) -> set[str]:
        """The qualified names of what calling `names` runs: a function, or a class's constructors."""
        found = {name for name in names if name in functions}
        for name in names & classes.keys():
            found.update(q for q in bodies if q.startswith(f"{name}.") and q.count(".") == 1)
        return found

    direct = run_by(_Calls(callable_names).of(tree))
    for other in others:
        names = other if isinstance(other, frozenset) else called_names(other)
        direct |= run_by(names & callable_names.keys())
    reached = set(direct)
    todo = list(direct)
    while todo:
        node = bodies[todo.pop()]
        for name in run_by(_Calls(callable_names).of(*node.body)) - reached:
            reached.add(name)
            todo.append(name)
    return ImportCalls(direct=frozenset(direct), reached=frozenset(reached))


# What calling a class runs (a metaclass aside).
_CONSTRUCTORS = frozenset({"__new__", "__init__", "__post_init__"})


def called_names(tree: ast.AST) -> frozenset[str]:
    """Every name that `tree`'s import calls or decorates with, as `f(...)`, `mod.f(...)`,
    `@f` or `@mod.f`: what `import_calls` matches against each module's functions. Computed
    once per neighbour, not once per module and neighbour (a run's sources times its test
    files)."""
    return frozenset(_Calls(_ANY, by_attribute=True).of(tree))


def called_names_in(data: bytes) -> frozenset[str]:
    """`called_names` of a file's bytes; none where Python cannot parse them (the run reports
    its own errors)."""
    try:
        return called_names(ast.parse(data))
    except (SyntaxError, ValueError):
        return frozenset()


class _Anything:
    """A `defined` that holds every name (`called_names` filters by module afterwards)."""

    def __contains__(self, name: object) -> bool:
        return True


_ANY = _Anything()


class _Calls(ast.NodeVisitor):
    """Names of `defined` functions called when the visited code runs (not when the functions
    and lambdas it defines are called later)."""

    def __init__(self, defined: Container[str], by_attribute: bool = False) -> None:
        self.defined = defined
        self.by_attribute = by_attribute  # another module may call `module.f(...)`
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

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self._name(decorator)
        self.generic_visit(node)

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
        elif self.by_attribute and isinstance(node, ast.Attribute) and node.attr in self.defined:
            self.called.add(node.attr)


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name(id="__name__", ctx=ast.Load())), ast.dump(ast.Constant(value="__main__"))}
