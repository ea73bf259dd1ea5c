"""What a statement reads, changes and binds, as name chains: the data flow an order bug needs.

A move of one statement past its neighbour is a bug only when the two share state: one changes
what the other reads. These helpers answer "which chains (`x`, `self.queue`, `entry.state`) does
this statement read, and which does it change", from the statement alone, plus the methods of
its own class that it calls on `self` (a `self._fits(...)` reads what `_fits` reads, not all of
`self`). A call whose code is not at hand reads whatever it is handed, so its receiver and its
arguments count as read whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.nodes import dotted, find_all

# `def` of a method of the class around a statement, by name: how `self.m(...)` is looked into.
Methods = Callable[[str], "cst.FunctionDef | None"]

# Methods that change the container they are called on, whatever its type.
MUTATING = frozenset({
    "append", "appendleft", "add", "insert", "extend", "extendleft", "update", "setdefault",
    "pop", "popleft", "popitem", "remove", "discard", "clear", "sort", "reverse", "put",
    "put_nowait", "difference_update", "intersection_update", "symmetric_difference_update",
})
# Of those, the ones that only put into or reorder the container: their receiver is written,
# not read (`done.append(x)` reads `x`, and leaves what `done` held before as it was).
STORES = MUTATING - {"pop", "popleft", "popitem", "setdefault", "remove"}
# heapq's functions change the list they are given first.
HEAP = frozenset({"heappush", "heappop", "heapreplace", "heappushpop", "heapify"})


def overlap(a: str, b: str) -> bool:
    """Do two chains name the same state, or one a part of the other (`self.q`, `self.q.head`)?"""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def meets(chains: Iterable[str], others: Iterable[str]) -> bool:
    others = tuple(others)
    return any(overlap(a, b) for a in chains for b in others)


class _Reads(cst.CSTVisitor):
    """Chains read at full length; the receiver of a call that is not looked into, read whole."""

    def __init__(self, methods: Methods, seen: frozenset[str]) -> None:
        super().__init__()
        self.found: set[str] = set()
        self._methods = methods
        self._seen = seen  # methods already looked into: recursion stops there

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = dotted(node)
        if name is None:
            return True  # `f(x).y`: the call's parts are read
        self.found.add(name)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        owner = dotted(func.value)
        method = self._method(owner, func.attr.value)
        if method is not None:
            self.found |= {c for c in reads(method.body, self._methods, self._seen | {func.attr.value})
                           if c.startswith("self.")}
        elif owner is not None and func.attr.value not in STORES:
            self.found.add(owner)

    def _method(self, owner: str | None, name: str) -> cst.FunctionDef | None:
        if owner != "self" or name in self._seen:
            return None
        return self._methods(name)

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # a keyword's name is not a read
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._target(node.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._target(node.target)
        if node.value is not None:
            node.value.visit(self)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self._target(node.target)
        node.iter.visit(self)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        node.value.visit(self)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        self._target(node.target)
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def _target(self, target: cst.BaseExpression) -> None:
        """What a binding target reads: the subscripts and owners inside it, not the target."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)
        elif isinstance(target, cst.Subscript):
            for index in target.slice:
                index.visit(self)
            if dotted(target.value) is None:
                self._target(target.value)
        elif isinstance(target, cst.Attribute) and dotted(target) is None:
            target.value.visit(self)


def _local(node: cst.CSTNode) -> set[str]:
    """Names bound only inside `node`'s comprehensions and lambdas: not reads of the function's."""
    names = {
        name.value
        for comp in find_all(node, cst.CompFor, m.CompFor())
        for name in find_all(comp.target, cst.Name, m.Name())
    }
    for function in find_all(node, cst.Lambda, m.Lambda()):
        names |= {param.name.value for param in function.params.params}
    return names


def reads(node: cst.CSTNode, methods: Methods, seen: frozenset[str] = frozenset()) -> set[str]:
    """Chains `node` reads: `entry.request.tokens`, `self.running` for `len(self.running)`, and
    `self` whole for `self.helper()` when `helper` is not defined in the class at hand."""
    visitor = _Reads(methods, seen)
    node.visit(visitor)
    local = _local(node)
    return {chain for chain in visitor.found if chain.partition(".")[0] not in local}


class _Writes(cst.CSTVisitor):
    """Chains a statement changes: names bound, attributes and items assigned or deleted,
    containers changed by a known mutating method, and what `self.m(...)` changes of `self`."""

    def __init__(self, methods: Methods, seen: frozenset[str]) -> None:
        super().__init__()
        self.found: set[str] = set()
        self.names: set[str] = set()
        self._methods = methods
        self._seen = seen

    def _target(self, target: cst.BaseExpression, *, bind: bool = True) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value, bind=bind)
            return
        if isinstance(target, cst.StarredElement):
            self._target(target.value, bind=bind)
            return
        while isinstance(target, cst.Subscript):
            target = target.value
        name = dotted(target)
        if name is not None:
            self.found.add(name)
            if bind and isinstance(target, cst.Name):
                self.names.add(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target, bind=False)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            owner = dotted(func.value)
            method = self._methods(func.attr.value) if owner == "self" and func.attr.value not in self._seen else None
            if method is not None:
                seen = self._seen | {func.attr.value}
                self.found |= {c for c in writes(method.body, self._methods, seen) if c.startswith("self.")}
            elif func.attr.value in MUTATING and owner is not None:
                self.found.add(owner)
        elif isinstance(func, cst.Name) and func.value in HEAP and node.args:
            owner = dotted(node.args[0].value)
            if owner is not None:
                self.found.add(owner)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.found.add(node.name.value)
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        node.iter.visit(self)  # the comprehension's own target is local to it
        for test in node.ifs:
            test.visit(self)
        if node.inner_for_in is not None:
            node.inner_for_in.visit(self)
        return False


def writes(node: cst.CSTNode, methods: Methods, seen: frozenset[str] = frozenset()) -> set[str]:
    """Chains that executing `node` changes or rebinds."""
    visitor = _Writes(methods, seen)
    node.visit(visitor)
    return visitor.found


# Builtins that never change what they are handed.
_PURE = frozenset({
    "len", "sum", "min", "max", "sorted", "reversed", "list", "tuple", "set", "frozenset", "dict",
    "int", "float", "str", "bool", "bytes", "abs", "round", "isinstance", "issubclass", "range",
    "enumerate", "zip", "map", "filter", "any", "all", "repr", "hash", "id", "type", "getattr",
    "hasattr", "iter", "divmod", "pow", "format", "print",
})


def may_write(node: cst.CSTNode, methods: Methods, modules: frozenset[str]) -> set[str]:
    """What `node` changes, and what a call into code not at hand may change: its receiver and
    the chains it is handed (`helper(q)`, `job.run()`), unless the callee is a builtin that
    changes nothing or a function of an imported module (`np.sum(x)`)."""
    found = writes(node, methods)
    for call in find_all(node, cst.Call, m.Call()):
        func = call.func
        if isinstance(func, cst.Name) and func.value in _PURE:
            continue
        root = dotted(func)
        if root is not None and root.partition(".")[0] in modules:
            continue
        if isinstance(func, cst.Attribute):
            owner = dotted(func.value)
            if owner is not None and not (owner == "self" and methods(func.attr.value)):
                found.add(owner)
        found |= {chain for arg in call.args if (chain := dotted(arg.value)) is not None}
    return found


def binds(node: cst.CSTNode) -> set[str]:
    """Plain names that executing `node` (re)binds."""
    visitor = _Writes(lambda name: None, frozenset())
    node.visit(visitor)
    return visitor.names


def unbinds(node: cst.CSTNode) -> set[str]:
    """Plain names that `node` deletes (`del x`)."""
    found: set[str] = set()
    for statement in find_all(node, cst.Del, m.Del()):
        targets = statement.target.elements if isinstance(statement.target, cst.Tuple) else ()
        for target in [element.value for element in targets] or [statement.target]:
            if isinstance(target, cst.Name):
                found.add(target.value)
    return found
