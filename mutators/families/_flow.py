"""Which names a statement reads and binds, and where it sits: what statement moves need.

The scheduling and metric families move, delete or rewrite whole statements. A move is proposed
only when no local name would be read before it is bound, so these helpers answer "what does
this statement read / bind" and "which block holds it" without a full data-flow analysis.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.context import Context

_WORD_SPLIT = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")
_QUEUE_WORDS = frozenset({"queue", "queued", "waiting", "pending", "fifo", "backlog", "waitlist", "inbox", "q"})


def dotted(node: cst.CSTNode | None) -> str | None:
    """`self.queue` for `self.queue`, None for anything that is not a plain name chain."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = dotted(node.value)
        return None if owner is None else f"{owner}.{node.attr.value}"
    return None


def words(identifier: str) -> set[str]:
    """`max_new_tokens` → {max, new, tokens}; `maxTokens` → {max, tokens}."""
    return {word.lower() for word in _WORD_SPLIT.split(identifier) if word}


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
    local = {name.value for comp in m.findall(node, m.CompFor()) for name in m.findall(comp.target, m.Name())}
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
    called = {id(call.func) for call in m.findall(node, m.Call())}
    attributes = m.findall(node, m.Attribute())
    suffixes = {id(attribute.attr) for attribute in attributes}
    found = [
        name.value for name in m.findall(node, m.Name()) if id(name) not in called | suffixes
    ]
    found.extend(a.attr.value for a in attributes if id(a) not in called)
    if strings:
        found.extend(text.raw_value for text in m.findall(node, m.SimpleString()))
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


@dataclass(frozen=True, slots=True)
class QueueFacts:
    """Name chains of one module that are deques, and those served from either end."""

    deques: frozenset[str]  # and never assigned anything else in the module
    served: frozenset[str]  # `.popleft()` or `.pop(...)` called on them
    front_served: frozenset[str]  # `.popleft()` or `.pop(0)` called on them


class _QueueScan(cst.CSTVisitor):
    """One pass over a module that looks at each simple statement without descending into it.

    Deques are made and served in plain statements (`q = deque()`, `x = q.popleft()`); walking
    every expression node instead costs a few seconds on a 10,000-line module, per mutator.
    """

    def __init__(self) -> None:
        super().__init__()
        self.deques: set[str] = set()
        self.others: set[str] = set()  # also assigned something that is not a deque
        self.served: set[str] = set()
        self.front: set[str] = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        for small in node.body:
            if isinstance(small, cst.Assign):
                made = isinstance(small.value, cst.Call) and _names_deque(small.value.func)
                names = filter(None, (dotted(t.target) for t in small.targets))
                (self.deques if made else self.others).update(names)
            elif isinstance(small, cst.AnnAssign) and dotted(small.target):
                annotation = small.annotation.annotation
                typed = _names_deque(annotation.value if isinstance(annotation, cst.Subscript) else annotation)
                made = isinstance(small.value, cst.Call) and _names_deque(small.value.func)
                if typed or made:
                    self.deques.add(dotted(small.target))
                elif small.value is not None:
                    self.others.add(dotted(small.target))
            value = getattr(small, "value", None)
            if isinstance(value, cst.Call):
                self.visit_Call(value)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("pop", "popleft"):
            return
        owner = dotted(func.value)
        if owner is None:
            return
        self.served.add(owner)
        if func.attr.value == "popleft":
            self.front.add(owner)
            self.deques.add(owner)
        elif m.matches(node, m.Call(args=[m.Arg(value=m.Integer("0"))])):
            self.front.add(owner)


def _names_deque(node: cst.CSTNode) -> bool:
    return m.matches(node, m.Name("deque") | m.Name("Deque") | m.Attribute(attr=m.Name("deque") | m.Name("Deque")))


def queue_facts(module: cst.Module) -> QueueFacts:
    scan = _QueueScan()
    module.visit(scan)
    # A chain that is a deque in one class and a list in another is no sure deque.
    return QueueFacts(
        deques=frozenset(scan.deques - scan.others),
        served=frozenset(scan.served),
        front_served=frozenset(scan.front),
    )


class ModuleFacts:
    """Mixin: `queue_facts` of the module being visited, computed once per module.

    The engine visits a module once for all mutators; scanning the whole module again at each
    site would make big files quadratic.
    """

    _facts: tuple[cst.Module, QueueFacts] | None = None

    def queues(self, ctx: Context) -> QueueFacts:
        if self._facts is None or self._facts[0] is not ctx.module:
            self._facts = (ctx.module, queue_facts(ctx.module))
        return self._facts[1]


def queueish(expr: cst.BaseExpression, facts: QueueFacts | None = None) -> bool:
    """Is `expr` a FIFO queue: named like one, or (given `facts`) a deque of this module?"""
    name = dotted(expr)
    if name is None:
        return False
    return bool(words(name.rpartition(".")[2]) & _QUEUE_WORDS) or (facts is not None and name in facts.deques)
