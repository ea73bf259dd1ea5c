"""How each name of a function or class is used: where it is bound, what is read from it, what
kind of value it holds.

The wrong-name and swapped-argument mutators read these facts to propose only candidates that
could stand where the original stood.
"""

from __future__ import annotations

from collections import defaultdict

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.families.beyond.kinds import annotation_kind, value_kind


class Usage(cst.CSTVisitor):
    """Source order of every node, and how each name is used: attributes read, subscripted,
    called, and the kinds of value bound to it (from annotations and assigned literals)."""

    def __init__(self) -> None:
        super().__init__()
        self.order: dict[cst.CSTNode, int] = {}
        self.attributes: defaultdict[str, set[str]] = defaultdict(set)
        self.subscripted: set[str] = set()
        self.called: set[str] = set()
        self.kinds: defaultdict[str, set[str | None]] = defaultdict(set)
        self.set_attributes: dict[str, int] = {}  # `self.x` assigned, or a class field -> order

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.order[node] = len(self.order)
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and (
            attribute := _self_attribute(node.target)
        ):
            self.set_attributes.setdefault(attribute, len(self.set_attributes))
        if isinstance(node, cst.Attribute) and (key := _key(node.value)):
            self.attributes[key].add(node.attr.value)
        elif isinstance(node, cst.Subscript) and (key := _key(node.value)):
            self.subscripted.add(key)
        elif isinstance(node, cst.Call) and (key := _key(node.func)):
            self.called.add(key)
        elif isinstance(node, cst.Param) and node.annotation is not None:
            self.kinds[node.name.value].add(annotation_kind(node.annotation.annotation))
        elif isinstance(node, cst.AnnAssign) and (key := _key(node.target)):
            self.kinds[key].add(annotation_kind(node.annotation.annotation))
        elif isinstance(node, cst.Assign) and len(node.targets) == 1 and (
            key := _key(node.targets[0].target)
        ):
            source = _key(node.value)  # `self.limit = limit` holds what the parameter holds
            self.kinds[key].add(self.kind(source) if source else value_kind(node.value))
        elif isinstance(node, cst.ClassDef):
            self._fields(node)
        return True

    def _fields(self, cls: cst.ClassDef) -> None:
        """Dataclass-style fields (`x: int` in the class body) are attributes of `self`."""
        for statement in cls.body.body:
            if (field := _field(statement)) is not None:
                name, annotation = field
                self.kinds["self." + name].add(annotation_kind(annotation.annotation))
                self.set_attributes.setdefault(name, len(self.set_attributes))

    def kind(self, key: str) -> str | None:
        """The one kind of value `key` holds, or None when unknown or mixed."""
        kinds = self.kinds.get(key, set()) - {None}
        return next(iter(kinds)) if len(kinds) == 1 else None


def _field(statement: cst.CSTNode) -> tuple[str, cst.Annotation] | None:
    """`("x", int)` for the line `x: int` (or `x: int = 0`) of a class body."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            return small.target.value, small.annotation
    return None


def _self_attribute(node: cst.CSTNode) -> str | None:
    """`x` for `self.x`."""
    if isinstance(node, cst.Attribute) and m.matches(node.value, m.Name("self")):
        return node.attr.value
    return None


def _key(node: cst.CSTNode) -> str | None:
    """`x` for a name, `self.x` for an attribute of self: what the usage facts are about."""
    if isinstance(node, cst.Name):
        return node.value
    attribute = _self_attribute(node)
    return None if attribute is None else "self." + attribute


def usage(node: cst.CSTNode) -> Usage:
    visitor = Usage()
    node.visit(visitor)
    return visitor


class UsageCache:
    """Usage facts of the last few functions or classes: sites arrive grouped by function."""

    def __init__(self) -> None:
        self._cache: dict[cst.CSTNode, Usage] = {}

    def get(self, node: cst.CSTNode) -> Usage:
        if node not in self._cache:
            if len(self._cache) >= 8:
                self._cache.clear()
            self._cache[node] = usage(node)
        return self._cache[node]
