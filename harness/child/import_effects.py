"""What a module's import does, read from its source: for re-executing it in place.

A worker that has collected the suite can run a mutant of code that runs at import by executing
the mutated module again into its own module object (harness.child.reexec), instead of starting a
new interpreter and collecting again. That equals a fresh import only when (1) the module's import
changes nothing but its own namespace, and (2) what other modules took from it while they were
imported can be rebound or is unchanged. This module answers both from the source, erring
towards "no" (a fresh import is slower, never wrong):

- `outside_effect(source)`: why the module's import-time code may touch something outside its
  own namespace (a call to a function it does not define and that is not known to be pure, a
  decorator that may register, a base class whose metaclass may), or None;
- `uses_of(...)`: the names another module binds from it (`from m import x as y`, `import *`),
  and the names its own import-time code reads from it (a parametrize list, a constant).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

# Builtins whose call builds or reads a value and touches nothing else.
_PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "getattr", "hasattr", "hash", "hex",
    "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct",
    "ord", "pow", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod",
    "classmethod", "str", "sum", "super", "tuple", "type", "zip",
    *(name for name, value in vars(builtins).items()
      if isinstance(value, type) and issubclass(value, BaseException)),
})
# Functions of the standard library that build values (their caches aside).
_PURE_FUNCTIONS = frozenset({
    "re.compile", "re.escape", "re.sub", "re.match", "re.fullmatch", "re.search", "re.split", "re.findall",
    "collections.namedtuple", "collections.OrderedDict", "collections.defaultdict", "collections.Counter",
    "collections.deque", "functools.partial", "functools.reduce", "functools.wraps", "functools.lru_cache",
    "functools.cache", "functools.total_ordering", "functools.cached_property", "operator.itemgetter",
    "operator.attrgetter", "operator.methodcaller", "typing.TypeVar", "typing.NewType", "typing.cast",
    "typing.overload", "typing.NamedTuple", "typing.TypedDict", "dataclasses.dataclass", "dataclasses.field",
    "enum.auto", "enum.unique", "abc.abstractmethod", "contextlib.contextmanager", "string.Template",
    "decimal.Decimal", "fractions.Fraction", "datetime.date", "datetime.datetime", "datetime.time",
    "datetime.timedelta", "datetime.timezone", "struct.Struct", "struct.calcsize", "os.path.join",
    "os.path.dirname", "os.path.basename", "os.path.splitext", "types.MappingProxyType",
    "types.SimpleNamespace", "unicodedata.normalize", "unicodedata.category", "unicodedata.combining",
})
_PURE_MODULES = frozenset({"itertools", "math", "operator", "string"})
# Base classes whose metaclass and `__init_subclass__` register nothing outside the new class.
_PLAIN_BASES = frozenset({
    "object", "enum.Enum", "enum.IntEnum", "enum.Flag", "enum.IntFlag", "typing.NamedTuple",
    "typing.TypedDict", "typing.Generic", "typing.Protocol", "abc.ABC",
    *(name for name, value in vars(builtins).items() if isinstance(value, type)),
})
# Methods that build a new value from their receiver, whatever its type among the builtins.
_PURE_METHODS = frozenset({
    "format", "join", "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
    "replace", "startswith", "endswith", "encode", "decode", "get", "keys", "values", "items", "copy",
    "count", "index", "find", "rfind", "title", "capitalize", "casefold", "swapcase", "partition",
    "rpartition", "zfill", "ljust", "rjust", "center", "isdigit", "isalpha", "isalnum", "isspace",
    "isupper", "islower", "union", "intersection", "difference", "symmetric_difference", "issubset",
    "issuperset", "isdisjoint", "fromkeys", "translate", "maketrans", "expandtabs",
    "setter", "getter", "deleter",  # of a property the module defines
})
# Methods that change their receiver: allowed on the module's own containers only.
_MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "add", "discard", "update", "setdefault",
    "sort", "reverse", "popitem",
})


def outside_effect(source: str) -> str | None:
    """Why running `source` as a module may change something outside its own namespace, or
    None when its import-time code (module level, class bodies, decorators, defaults, and the
    bodies of its own functions and constructors that these call) only builds its own values."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return "the module cannot be parsed"
    return _Effects(tree).check()


class _Effects:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self.imported: dict[str, str] = {}  # local name -> dotted origin, for names bound by an import
        self.owned: set[str] = set()  # names the module binds to values it builds
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imported[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    origin = "." * node.level + (node.module or "")
                    self.imported[alias.asname or alias.name] = f"{origin}.{alias.name}"
        for node in tree.body:
            for target in _bound(node):
                if target not in self.imported:
                    self.owned.add(target)
        self.reached: set[str] = set()
        self.nested: set[str] = set()  # functions defined inside those that run at import
        self.todo: list[ast.AST] = []

    def check(self) -> str | None:
        try:
            self._statements(self.tree.body, module_level=True)
            while self.todo:
                body = self.todo.pop()
                self._statements(getattr(body, "body", []), module_level=False)
        except _Refused as refused:
            return str(refused)
        return None

    def _reach(self, name: str) -> None:
        """The module's own function or class `name` is called at import: check what it runs."""
        if name in self.reached:
            return
        self.reached.add(name)
        if name in self.functions:
            self.todo.append(self.functions[name])
        else:
            for node in self.classes[name].body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                        "__new__", "__init__", "__post_init__", "__init_subclass__", "__set_name__"):
                    self.todo.append(node)

    def _statements(self, body: list[ast.stmt], module_level: bool) -> None:
        for node in body:
            self._statement(node, module_level)

    def _statement(self, node: ast.stmt, module_level: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global,
                             ast.Nonlocal)):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._decorators(node.decorator_list)
            self._expressions(*node.args.defaults, *filter(None, node.args.kw_defaults))
            if not module_level:  # nested in a function that runs at import: it may be called
                self.nested.add(node.name)
                self.todo.append(node)
            return
        if isinstance(node, ast.ClassDef):
            self._decorators(node.decorator_list)
            if node.keywords:
                raise _Refused(f"class {node.name} names a metaclass or class arguments")
            for base in node.bases:
                self._base(base)
            self._statements(node.body, module_level)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                self._target(target)
            value = getattr(node, "value", None)
            if value is not None:
                self._expressions(value)
            return
        if isinstance(node, (ast.Expr, ast.Return, ast.Raise, ast.Assert)):
            self._expressions(*(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)))
            return
        if isinstance(node, (ast.If, ast.While)):
            self._expressions(node.test)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._target(node.target)
            self._expressions(node.iter)
        elif isinstance(node, ast.Try):
            for handler in node.handlers:
                if handler.type is not None:
                    self._expressions(handler.type)
                self._statements(handler.body, module_level)
        else:
            raise _Refused(f"line {node.lineno}: a {type(node).__name__} statement at import")
        for field in ("body", "orelse", "finalbody"):
            self._statements(getattr(node, field, []), module_level)

    def _target(self, target: ast.expr) -> None:
        """An assignment may rebind names, or change the module's own containers."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, ast.Starred):
            self._target(target.value)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            # `self`: the object a constructor of the module's own class is building
            if not (isinstance(target.value, ast.Name) and target.value.id in (*self.owned, "self", "cls")):
                raise _Refused(f"line {target.lineno}: assigns into an object the module did not build")
            if isinstance(target, ast.Subscript):
                self._expressions(target.slice)

    def _base(self, base: ast.expr) -> None:
        if isinstance(base, ast.Subscript):
            self._expressions(base.slice)
            base = base.value
        name = self._origin(base)
        if name in self.classes:
            return
        if name not in _PLAIN_BASES:
            raise _Refused(f"line {base.lineno}: a base class ({ast.unparse(base)}) may register its subclasses")

    def _decorators(self, decorators: list[ast.expr]) -> None:
        for decorator in decorators:
            callee = decorator.func if isinstance(decorator, ast.Call) else decorator
            self._call(callee, decorator.lineno)
            if isinstance(decorator, ast.Call):
                self._expressions(*decorator.args, *(k.value for k in decorator.keywords))

    def _expressions(self, *nodes: ast.expr) -> None:
        for node in nodes:
            for child in _evaluated(node):
                if isinstance(child, ast.Call):
                    self._call(child.func, child.lineno)

    def _call(self, callee: ast.expr, line: int) -> None:
        if isinstance(callee, ast.Name) and (callee.id in self.functions or callee.id in self.classes):
            self._reach(callee.id)
            return
        if isinstance(callee, ast.Name) and callee.id in self.nested:
            return
        origin = self._origin(callee)
        if origin in _PURE_BUILTINS or origin in _PURE_FUNCTIONS or origin.split(".")[0] in _PURE_MODULES:
            return
        if isinstance(callee, ast.Attribute):
            receiver = callee.value
            if callee.attr in _PURE_METHODS:
                return
            if callee.attr in _MUTATING_METHODS and isinstance(receiver, ast.Name) and receiver.id in self.owned:
                return
        raise _Refused(f"line {line}: calls {ast.unparse(callee)}, which may change what it does not own")

    def _origin(self, node: ast.expr) -> str:
        """The dotted name an expression stands for (`re.compile`, `collections.OrderedDict`), or ""."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        head = self.imported.get(node.id, node.id if node.id not in self.owned else "")
        return ".".join([head, *reversed(parts)]) if head else ""


class _Refused(Exception):
    pass


def _evaluated(node: ast.AST):  # noqa: ANN202 - a generator of nodes
    """The nodes of an expression that run when it is evaluated: not a lambda's body."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Lambda) and child is node.body:
            continue
        yield from _evaluated(child)


def _bound(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds (in its nested blocks too, not in functions)."""
    found: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            found.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(child.name)
    return found


def module_names(source: str) -> frozenset[str]:
    """Every name the module's code may bind in its namespace: at top level, in nested blocks,
    and through `global` in its functions."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in tree.body:
        names |= _bound(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*")
    for inner in ast.walk(tree):
        if isinstance(inner, ast.Global):
            names.update(inner.names)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in inner.names if a.name != "*")
    return frozenset(names)


@dataclass(frozen=True, slots=True, kw_only=True)
class Uses:
    """What one module took from the module being re-executed, `target`."""

    bindings: tuple[tuple[str, str], ...]  # (its name, target's name) from `from target import x as y`
    star: bool  # `from target import *`
    reads: frozenset[str] | None  # target's names its import-time code reads; None: it may read any


def uses_of(target: str, source: str | ast.Module, module: str, is_package: bool) -> Uses | None:
    """What `module` (whose source, or its parsed tree, is `source`) takes from the module named
    `target`; None when it never imports it. Raises SyntaxError/ValueError when the source
    cannot be parsed."""
    tree = ast.parse(source) if isinstance(source, str) else source
    aliases: set[str] = set()  # local names bound to the target module itself
    prefixes: dict[str, str] = {}  # local name -> the package it stands for (`import a.b` binds a)
    bindings: list[tuple[str, str]] = []
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    if alias.name == target:
                        aliases.add(alias.asname)
                    elif target.startswith(alias.name + "."):
                        prefixes[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    if alias.name == target and "." not in target:
                        aliases.add(head)
                    elif target.startswith(head + ".") and (alias.name == target or target.startswith(alias.name)):
                        prefixes[head] = head
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(node, module, is_package)
            for alias in node.names:
                if origin == target:
                    if alias.name == "*":
                        star = True
                    elif node in tree.body or _is_top_level(tree, node):
                        bindings.append((alias.asname or alias.name, alias.name))
                elif f"{origin}.{alias.name}" == target:
                    aliases.add(alias.asname or alias.name)
                elif target.startswith(f"{origin}.{alias.name}."):
                    prefixes[alias.asname or alias.name] = f"{origin}.{alias.name}"
    if not (aliases or prefixes or bindings or star):
        return None
    reads = _import_time_reads(tree, target, aliases, prefixes, dict(bindings), star)
    return Uses(bindings=tuple(bindings), star=star, reads=reads)


def _is_top_level(tree: ast.Module, node: ast.stmt) -> bool:
    """Bound in the module's namespace: at top level or in a top-level `if`/`try`."""
    blocks = [tree.body]
    while blocks:
        body = blocks.pop()
        if node in body:
            return True
        for statement in body:
            if isinstance(statement, (ast.If, ast.Try, ast.With)):
                blocks.extend([statement.body, getattr(statement, "orelse", []), getattr(statement, "finalbody", []),
                               *(h.body for h in getattr(statement, "handlers", []))])
    return False


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*base, node.module] if node.module else base)


def _import_time_reads(tree: ast.Module, target: str, aliases: set[str], prefixes: dict[str, str],
                       bound: dict[str, str], star: bool) -> frozenset[str] | None:
    """The target's names read by code that runs while `tree` is imported: module level, class
    bodies, decorators, defaults, annotations, and its own functions that these call by name."""
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assigned = {name for node in tree.body for name in _bound(node)}
    reads: set[str] = set()
    seen: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        scope = todo.pop()
        nodes = list(_import_time_nodes(scope))
        bases = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                    and node.func.id not in seen:
                seen.add(node.func.id)
                todo.append(functions[node.func.id])
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                dotted = _dotted(node.value)
                if dotted is not None and (dotted in aliases or _expand(dotted, prefixes) == target):
                    reads.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in aliases:
                    if id(node) not in bases:
                        return None  # the module object itself is passed somewhere
                elif node.id in bound:
                    reads.add(bound[node.id])
                elif star and node.id not in assigned:
                    reads.add(node.id)
    return frozenset(reads)


def _import_time_nodes(scope: ast.AST):  # noqa: ANN202 - a generator of nodes
    """Nodes of `scope` that run when it runs: not the bodies of functions and lambdas it defines."""
    body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else [scope]
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(node.args.defaults)
            stack.extend(filter(None, node.args.kw_defaults))
            stack.extend(a.annotation for a in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs)
                         if a.annotation is not None)
            if node.returns is not None:
                stack.append(node.returns)
        elif isinstance(node, ast.Lambda):
            stack.extend(node.args.defaults)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _expand(dotted: str, prefixes: dict[str, str]) -> str:
    head, _, rest = dotted.partition(".")
    if head not in prefixes:
        return ""
    return f"{prefixes[head]}.{rest}" if rest else prefixes[head]
