"""Which names a statement reads and binds, and where it sits: what statement moves need.

The scheduling mutators move, delete or rewrite whole statements. A move is proposed only when
no local name would be read before it is bound, so these helpers answer "what does this
statement read / bind" and "which block holds it" without a full data-flow analysis.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.nodes import dotted, find_all
from bugsmith.mutators.context import Context

# A loop is a pass over a collection: what a cleanup or a state transition is moved across.
LOOPS = (cst.For, cst.While)


class _Chains(cst.CSTVisitor):
    """Every name chain read in an expression, with its prefixes: `a.b.c` gives a, a.b, a.b.c."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = dotted(node)
        if name is not None:
            self.found.add(name)
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found.add(node.value)

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # a keyword is not a read
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        node.iter.visit(self)  # the comprehension's own target is local to it
        for test in node.ifs:
            test.visit(self)
        if node.inner_for_in is not None:
            node.inner_for_in.visit(self)
        return False


def chains(node: cst.CSTNode) -> set[str]:
    visitor = _Chains()
    node.visit(visitor)
    return visitor.found


def reads(node: cst.CSTNode) -> set[str]:
    """Plain names read by `node`, minus those bound only inside its comprehensions."""
    local = {
        name.value
        for comp in find_all(node, cst.CompFor, m.CompFor())
        for name in find_all(comp.target, cst.Name, m.Name())
    }
    return {name for name in chains(node) if "." not in name} - local


class _Binds(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()

    def _target(self, target: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.found.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.found.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.found.add(node.name.value)
        return False


def binds(node: cst.CSTNode) -> set[str]:
    """Plain names that executing `node` (re)binds; a bare name is itself a binding target."""
    visitor = _Binds()
    if isinstance(node, (cst.Name, cst.Tuple, cst.List)):
        visitor._target(node)
    else:
        node.visit(visitor)
    return visitor.found


def identifiers(node: cst.CSTNode, *, strings: bool = False) -> list[str]:
    """Names and attribute names in `node`, except called names (`len`, `np.max`, `x.max`).

    With `strings`, the text of plain string literals too (`attrgetter("arrival")`).
    """
    called = {id(call.func) for call in find_all(node, cst.Call, m.Call())}
    attributes = find_all(node, cst.Attribute, m.Attribute())
    suffixes = {id(attribute.attr) for attribute in attributes}
    found = [
        name.value for name in find_all(node, cst.Name, m.Name()) if id(name) not in called | suffixes
    ]
    found.extend(a.attr.value for a in attributes if id(a) not in called)
    if strings:
        found.extend(text.raw_value for text in find_all(node, cst.SimpleString, m.SimpleString()))
    return found


def only(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    """The single small statement of a one-statement line, else None."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def block_of(stmt: cst.CSTNode, ctx: Context) -> tuple[cst.IndentedBlock, int] | None:
    """The indented block inside a function that holds `stmt`, and its index there."""
    block = ctx.parent(stmt)
    if not isinstance(block, cst.IndentedBlock) or ctx.function(stmt) is None:
        return None
    index = next((i for i, each in enumerate(block.body) if each is stmt), None)
    return None if index is None else (block, index)


def moved(body: Sequence[cst.BaseStatement], index: int, to: int) -> list[cst.BaseStatement]:
    """`body` with the statement at `index` taken out and put back at position `to`."""
    rest = [stmt for i, stmt in enumerate(body) if i != index]
    rest.insert(to, body[index])
    return rest
