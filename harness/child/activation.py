"""Activate a mutant from memory, in a process that will run tests and then die.

Two ways, both without writing a file:
- swap code: compile the mutated module, take the mutated function's code object, and assign
  it to the live function objects (found once per worker by one scan of the heap). Everything
  that already holds the function, tests that did `from mod import f` included, now runs the
  mutant. This is the fast path for every site inside a function body.
- import hook: for sites that run at import time (module level, defaults, decorators), a
  meta-path finder serves the mutated source to a fresh interpreter's first import, where
  harness.child.reexec cannot run the mutated module again in the worker's fork instead.
"""

from __future__ import annotations

import ast
import dis
import gc
import importlib.abc
import importlib.machinery
import sys
import types
from collections import defaultdict
from pathlib import Path

from bugsmith.mutators.compiled import FUTURE_FLAGS


class NeedsFreshImport(Exception):
    """The mutant cannot be swapped into live objects; run it in a fresh interpreter."""


FunctionIndex = dict[tuple[str, str], list[types.FunctionType]]


def index_functions(files: frozenset[str]) -> FunctionIndex:
    """Live functions defined in `files`, keyed by (file, qualified name of their code)."""
    index: FunctionIndex = defaultdict(list)
    # A suite may freeze its heap after collection (gc.freeze() in a conftest, to spare the
    # collector); frozen objects are invisible to get_objects, and every mutant would then
    # need a fresh interpreter.
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    try:
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename in files:
                    index[(code.co_filename, code.co_qualname)].append(obj)
    finally:
        if frozen:
            gc.freeze()
    return dict(index)


def find_code(code: types.CodeType, qualname: str) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname:
                return const
            found = find_code(const, qualname)
            if found is not None:
                return found
    return None


def swap(index: FunctionIndex, path: str, function: str | None, mutated_source: str,
         unit: str = "") -> None:
    """Make every live function compiled from `function` in `path` run the mutated code."""
    if function is None:
        swap_defaults(index, path, mutated_source)
        return
    targets = live_functions(index, path, function)
    new = mutated_code(targets, path, function, mutated_source, unit)
    for target in targets:
        target.__code__ = new


def live_functions(index: FunctionIndex, path: str, function: str) -> list[types.FunctionType]:
    """The live function objects of `function` in `path`; raises NeedsFreshImport if none is."""
    targets = index.get((path, function))
    if not targets:
        raise NeedsFreshImport(f"{function} has no live function object")
    return targets


def mutated_code(targets: list[types.FunctionType], path: str, function: str, mutated_source: str,
                 unit: str = "") -> types.CodeType:
    """The mutated code object of `function`, which every one of `targets` can take.

    `unit`, when given, is the mutated top-level statement alone (harness.units): compiled
    with the module's `__future__` flags it yields the same code object as the whole file.
    Raises NeedsFreshImport when the code cannot be swapped in.
    """
    text, flags = unit, targets[0].__code__.co_flags & FUTURE_FLAGS
    new = _from_unit(unit, path, function, flags) if unit else None
    if new is None:  # the whole file, which states its own __future__ imports
        text, flags = mutated_source, 0
        new = find_code(compile(mutated_source, path, "exec", dont_inherit=True), function)
    if new is None:
        raise NeedsFreshImport(f"{function} not found in the mutated module")
    closure = targets[0].__code__.co_freevars
    if any(f.__code__.co_freevars != closure for f in targets):
        raise NeedsFreshImport(f"{function}: its live functions differ in their closures")
    if new.co_freevars != closure:
        new = keeping_closure(new, closure, text, path, function, flags)
    return new


# Names through which a function can see its own frame's variables: a free variable it does
# not use would show there, so such a function does not keep a closure it lost.
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "_getframe", "currentframe", "f_locals"})


def keeping_closure(new: types.CodeType, closure: tuple[str, ...], text: str, path: str, function: str,
                    flags: int) -> types.CodeType:
    """`new`, compiled again so that it takes the live functions' closure `closure`, of which
    the mutant no longer uses some cells; NeedsFreshImport unless that is possible and shown
    to change nothing else.

    A method whose `super()` call a mutant deleted loses its `__class__` cell: the live
    function's closure has one cell, the mutated code none, and `__code__` cannot be assigned.
    A `nonlocal` declaration of the missing names at the top of the mutated function makes them
    free variables again without emitting code: the result is checked to be the same code,
    instruction for instruction, but for the prologue that copies the cells into the frame."""
    refused = NeedsFreshImport(f"{function}: the mutant changes the closure")
    if not set(new.co_freevars) < set(closure) or _reads_frames(new):
        raise refused
    tree = ast.parse(text, path)  # it compiled as it is
    node = _only_def(tree, function)
    if node is None:
        raise refused
    first = 1 if ast.get_docstring(node, clean=False) is not None else 0
    declaration = ast.Nonlocal(names=[name for name in closure if name not in new.co_freevars])
    node.body.insert(first, ast.copy_location(declaration, node.body[min(first, len(node.body) - 1)]))
    try:  # e.g. no binding for the name in this text's enclosing scopes
        kept = find_code(compile(tree, path, "exec", flags=flags, dont_inherit=True), function)
    except SyntaxError as error:
        raise refused from error
    if kept is None or kept.co_freevars != closure or not _same_code(kept, new):
        raise refused
    return kept


def _reads_frames(code: types.CodeType) -> bool:
    return bool(_FRAME_READERS & set(code.co_names)) or any(
        _reads_frames(const) for const in code.co_consts if isinstance(const, types.CodeType))


def _only_def(tree: ast.AST, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The one def in `tree` whose code has `qualname`, None if none or several."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                if name == qualname:
                    found.append(child)
                visit(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found[0] if len(found) == 1 else None


def _same_code(kept: types.CodeType, new: types.CodeType) -> bool:
    """Whether `kept` does what `new` does: the same signature, names, constants and
    instructions (jumps by the instruction they reach), once `kept`'s COPY_FREE_VARS is left out."""
    fields = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_varnames",
              "co_cellvars", "co_names", "co_consts", "co_name", "co_qualname", "co_firstlineno")
    return all(getattr(kept, f) == getattr(new, f) for f in fields) and _instructions(kept) == _instructions(new)


def _instructions(code: types.CodeType) -> list[tuple[object, ...]]:
    listed = [i for i in dis.get_instructions(code) if i.opname != "COPY_FREE_VARS"]
    position = {i.offset: n for n, i in enumerate(listed)}
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    return [(i.opname, position.get(i.argval, -1) if i.opcode in jumps else i.argval, i.positions)
            for i in listed]


def _from_unit(unit: str, path: str, function: str, flags: int) -> types.CodeType | None:
    try:
        return find_code(compile(unit, path, "exec", flags=flags, dont_inherit=True), function)
    except SyntaxError:
        return None  # the whole file will say why


def _literal_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple, dict] | None:
    try:
        positional = tuple(ast.literal_eval(d) for d in node.args.defaults)
        keywords = {
            arg.arg: ast.literal_eval(d)
            for arg, d in zip(node.args.kwonlyargs, node.args.kw_defaults)
            if d is not None
        }
    except ValueError:
        return None
    return positional, keywords


def _defs(tree: ast.AST, prefix: str = "") -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[prefix + child.name] = child
        elif isinstance(child, ast.ClassDef):
            found.update(_defs(child, prefix + child.name + "."))
    return found


def swap_defaults(index: FunctionIndex, path: str, mutated_source: str) -> None:
    """An import-time site that only changes literal default values: set them in place.

    Default values are evaluated when the module runs, so a code swap cannot reach them; when
    the mutant changes nothing else, assigning `__defaults__` is the same as re-importing.
    """
    if not _only_in_defaults(path, mutated_source):
        raise NeedsFreshImport("the site runs at import time")
    with open(path, encoding="utf-8") as original_file:
        original = ast.parse(original_file.read())
    mutated = ast.parse(mutated_source)
    if _without_defaults(original) != _without_defaults(mutated):
        raise NeedsFreshImport("the site runs at import time")
    before, after = _defs(original), _defs(mutated)
    changed = [name for name in after if ast.dump(after[name].args) != ast.dump(before[name].args)]
    values = [_literal_defaults(after[name]) for name in changed]
    if len(changed) != 1 or values[0] is None or not index.get((path, changed[0])):
        raise NeedsFreshImport("the site runs at import time")
    positional, keywords = values[0]
    for target in index[(path, changed[0])]:
        target.__defaults__ = positional or None
        target.__kwdefaults__ = keywords or None


# path -> its bytes and the byte ranges of its default values (harness.child.worker fills it
# before it forks, so that each child need not parse the file again)
_DEFAULT_SPANS: dict[str, tuple[bytes, tuple[tuple[int, int], ...]]] = {}


def default_spans(path: str) -> tuple[bytes, tuple[tuple[int, int], ...]] | None:
    """The UTF-8 bytes of the file at `path` and where its parameters' default values lie in
    them; None when it cannot be read as Python."""
    if path not in _DEFAULT_SPANS:
        try:
            text = Path(path).read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        data = text.encode("utf-8")
        lines = [0, *(index + 1 for index, byte in enumerate(data) if byte == 0x0A)]
        spans = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for value in (*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)):
                    if value.end_lineno is not None and value.end_col_offset is not None:
                        spans.append((lines[value.lineno - 1] + value.col_offset,
                                      lines[value.end_lineno - 1] + value.end_col_offset))
        _DEFAULT_SPANS[path] = (data, tuple(spans))
    return _DEFAULT_SPANS[path]


def _only_in_defaults(path: str, mutated_source: str) -> bool:
    """Whether the text `mutated_source` changes lies inside one default value of the file at
    `path` (True when that cannot be told): the cheap test that spares most import-time
    mutants parsing the whole module twice."""
    known = default_spans(path)
    if known is None:
        return True
    original, spans = known
    mutated = mutated_source.encode("utf-8")
    start = _common_prefix(original, mutated)
    end = len(original) - _common_prefix(original[start:][::-1], mutated[start:][::-1])
    return any(low <= start and end <= high for low, high in spans)


def _common_prefix(first: bytes, second: bytes) -> int:
    """The length of the longest common prefix, by bisection on slices compared in C."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _without_defaults(tree: ast.Module) -> str:
    """The module's AST with every default value blanked, for comparing the rest."""
    tree = ast.parse(ast.unparse(tree))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            node.args.defaults = [ast.Constant(None) for _ in node.args.defaults]
            node.args.kw_defaults = [None if d is None else ast.Constant(None) for d in node.args.kw_defaults]
    return ast.dump(tree)


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, finder: MutantFinder) -> None:
        self._finder = finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            code = compile(self._finder.source, self._finder.path, "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as error:
            self._finder.error = error  # the mutant breaks the import: pytest may not say how
            raise


class MutantFinder(importlib.abc.MetaPathFinder):
    """Serves one module's mutated source; every other import goes the normal way."""

    def __init__(self, module: str, path: str, source: str) -> None:
        self._module = module
        self.path = path
        self.source = source
        self.error: BaseException | None = None  # what executing the mutated module raised

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - importlib's API
        if fullname != self._module:
            return None
        is_package = Path(self.path).name == "__init__.py"
        spec = importlib.machinery.ModuleSpec(
            fullname, _MutantLoader(self), origin=self.path, is_package=is_package,
        )
        if is_package:
            spec.submodule_search_locations = [str(Path(self.path).parent)]
        spec.has_location = True
        return spec


def install_finder(module: str, path: str, source: str) -> MutantFinder:
    finder = MutantFinder(module, path, source)
    sys.meta_path.insert(0, finder)
    return finder
