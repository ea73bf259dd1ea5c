"""Which deques a module serves from which end, and which names look like FIFO queues.

The FCFS and phase mutators find queues by how the module uses them (`deque()`, `popleft()`,
`pop(0)`) or by queue-like names, never by a name of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import dotted
from bugsmith.mutators.context import Context

_QUEUE_WORDS = frozenset({"queue", "queued", "waiting", "pending", "fifo", "backlog", "waitlist", "inbox", "q"})


@dataclass(frozen=True, slots=True)
class QueueFacts:
    """Name chains of one module that are deques, and those served from either end."""

    deques: frozenset[str]  # and never assigned anything else in the module
    served: frozenset[str]  # `.popleft()` or `.pop(...)` called on them
    front_served: frozenset[str]  # `.popleft()` or `.pop(0)` called on them


class _QueueScan(cst.CSTVisitor):
    """One pass over a module that looks at each simple statement without descending into it.

    Deques are made and served in plain statements (`q = deque()`, `x = q.popleft()`); walking
    every expression node instead would cost each mutator a pass over every expression of the
    module, slow on a large one.
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
            elif isinstance(small, cst.AnnAssign) and (target := dotted(small.target)):
                annotation = small.annotation.annotation
                typed = _names_deque(annotation.value if isinstance(annotation, cst.Subscript) else annotation)
                made = isinstance(small.value, cst.Call) and _names_deque(small.value.func)
                if typed or made:
                    self.deques.add(target)
                elif small.value is not None:
                    self.others.add(target)
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
