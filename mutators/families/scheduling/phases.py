"""Scheduling bugs in the order of a step: passes swapped, state transitions taken too early.

Moving a statement is a bug only when it interacts with what it moves past: one writes state
the other reads or writes. Two independent passes (say, two loops of assertions) commute, and
their swap would be an equivalent mutant, so it is never proposed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, method_of
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import dotted, find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.scheduling.dataflow import LOOPS, binds, block_of, chains, moved, only, reads
from bugsmith.mutators.families.scheduling.queue_facts import queueish
from bugsmith.mutators.family import Family

_STATE = frozenset({"state", "status", "phase", "stage"})
_MOVES = frozenset({"append", "appendleft", "add", "insert", "extend", "put", "put_nowait"})
_TAKES = frozenset({"pop", "popleft", "get", "get_nowait", "heappop"})
# Methods that change the container they are called on.
_MUTATING = frozenset({
    "append", "appendleft", "add", "insert", "extend", "extendleft", "update", "setdefault",
    "pop", "popleft", "popitem", "remove", "discard", "clear", "put", "put_nowait", "sort",
    "reverse", "heappush", "heappop",
})


class _Writes(cst.CSTVisitor):
    """Name chains a statement changes in place: `self.x = ...`, `d[k] = ...`, `xs.append(...)`."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        while isinstance(target, cst.Subscript):
            target = target.value
        name = dotted(target)
        if name is not None:
            self.found.add(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if not isinstance(node.target, cst.Name):  # rebinding a name is not a write in place
            self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        target = node.target
        if isinstance(target, cst.Tuple):  # `del a, d[k]`: each element as written
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):  # `del o.x` changes `o` in place
            self._target(target.value)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _MUTATING:
            self._target(node.func.value)
        elif m.matches(node.func, m.Name("heappush") | m.Name("heappop")) and node.args:
            self._target(node.args[0].value)


def writes(node: cst.CSTNode) -> set[str]:
    visitor = _Writes()
    node.visit(visitor)
    return visitor.found


def _method(ctx: Context, stmt: cst.CSTNode, name: str) -> cst.FunctionDef | None:
    """The `def name` of the class around `stmt`, if it is defined right there."""
    owner = next((a for a in ctx.ancestors(stmt) if isinstance(a, cst.ClassDef)), None)
    if owner is None:
        return None
    return next(
        (s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None
    )


def _phase(stmt: cst.CSTNode) -> tuple[str, cst.Call | None] | None:
    """("loop", None) for a loop over state, ("call", call) for `self._method(...)`, else None."""
    if isinstance(stmt, cst.For):
        state = any(c.startswith("self.") for c in chains(stmt.iter)) or queueish(stmt.iter)
        return ("loop", None) if state else None
    small = only(stmt)
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    call = value if isinstance(value, cst.Call) else None
    if call is not None and isinstance(call.func, cst.Attribute) and m.matches(call.func.value, m.Name("self")):
        method = call.func.attr.value
        if method.startswith("_") and not method.startswith("__"):
            return ("call", call)
    return None


def _effects(stmt: cst.CSTNode, call: cst.Call | None, ctx: Context) -> tuple[set[str], set[str]] | None:
    """(chains written, chains read) by a phase, not counting its own loop variables."""
    if call is None:  # a loop
        own = binds(cst.ensure_type(stmt, cst.For).target)
        keep = lambda chain: chain.partition(".")[0] not in own  # noqa: E731
        return set(filter(keep, writes(stmt))), set(filter(keep, chains(stmt)))
    method = _method(ctx, stmt, method_of(call).attr.value)  # `self._name(...)`
    if method is None:
        return None  # inherited or dynamic: what it touches is unknown
    state = lambda chain: chain.startswith("self.")  # noqa: E731
    return set(filter(state, writes(method.body))), set(filter(state, chains(method.body))) | chains(stmt)


class SwapPhases(Mutator[cst.IndentedBlock]):
    """Two consecutive passes of a step swapped, e.g. admission before decode.

    Realistic: the order of `self._decode()` and `self._admit()` (or of two loops over the
    queues) is a priority decision hidden in statement order; swapping it inverts decode-first.
    """

    name = "scheduling/swap-phases"
    family = Family.SCHEDULING
    explanation = (
        "two passes of a step were swapped, so the second pass now sees state the first one has "
        "not updated yet"
    )
    matcher = m.IndentedBlock()
    examples = (
        Example(
            before="class S:\n    def step(self):\n        self._decode()\n        self._admit()\n\n"
            "    def _decode(self):\n        for r in self.running:\n            r.emit()\n\n"
            "    def _admit(self):\n        self.running.append(self.waiting.popleft())\n",
            after=("class S:\n    def step(self):\n        self._admit()\n        self._decode()\n\n"
                   "    def _decode(self):\n        for r in self.running:\n            r.emit()\n\n"
                   "    def _admit(self):\n        self.running.append(self.waiting.popleft())\n",),
        ),
        Example(  # the second pass needs the first pass's result
            before="class S:\n    def step(self):\n        done = self._decode()\n        self._admit(done)\n\n"
            "    def _decode(self):\n        return self.running\n\n"
            "    def _admit(self, done):\n        self.running.append(done)\n",
            after=(),
        ),
        Example(  # independent passes commute: swapping them changes nothing
            before="def check(self):\n    for r in self.running:\n        assert r.ok\n"
            "    for r in self.waiting:\n        assert r.ok\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None:
            return
        body = list(node.body)
        for index in range(len(body) - 1):
            first, second = body[index], body[index + 1]
            if self._interact(first, second, ctx):
                yield Rewrite(replacement=node.with_changes(body=moved(body, index, index + 1)))

    @staticmethod
    def _interact(first: cst.CSTNode, second: cst.CSTNode, ctx: Context) -> bool:
        phase_a, phase_b = _phase(first), _phase(second)
        if phase_a is None or phase_b is None or phase_a[0] != phase_b[0]:
            return False
        effects_a, effects_b = _effects(first, phase_a[1], ctx), _effects(second, phase_b[1], ctx)
        if effects_a is None or effects_b is None:
            return False
        (written_a, read_a), (written_b, read_b) = effects_a, effects_b
        # A local name bound by one and used by the other: the swap would read it unbound.
        own_a = binds(first.target) if isinstance(first, cst.For) else set()
        own_b = binds(second.target) if isinstance(second, cst.For) else set()
        bound_a, bound_b = binds(first) - own_a, binds(second) - own_b
        if bound_a & (reads(second) | bound_b) or reads(first) & bound_b:
            return False
        return bool(written_a & (read_b | written_b) or written_b & read_a)


def _taken(stmts: Sequence[cst.CSTNode]) -> set[str]:
    """Names bound to an item taken out of a collection: `x = queue.popleft()`."""
    names: set[str] = set()
    for stmt in stmts:
        small = only(stmt)
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and callee(small.value) in _TAKES:
            names |= binds(stmt)
    return names


def _transition_key(stmt: cst.CSTNode, before: Sequence[cst.CSTNode]) -> str | None:
    """What a pass must read to notice the transition: `.state` for `req.state = ...`, or
    `running` for `running.append(req)` where `req` was taken out of another collection."""
    small = only(stmt)
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Attribute) and words(target.attr.value) & _STATE:
            return "." + target.attr.value
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and small.value.args:
        call = small.value
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in _MOVES:
            return None
        item = call.args[-1].value
        if isinstance(item, cst.Call) and callee(item) in _TAKES:
            return dotted(call.func.value)
        if isinstance(item, cst.Name) and item.value in _taken(before):
            return dotted(call.func.value)
    return None


def _sees(stmt: cst.CSTNode, key: str) -> bool:
    """Does `stmt` read `key` (a chain, or `.attr` for that attribute of any object)?"""
    found = chains(stmt)
    return any(c.endswith(key) for c in found) if key.startswith(".") else key in found


class EarlyTransition(Mutator[cst.SimpleStatementLine]):
    """A state transition moved before the pass that should not see it yet.

    Realistic: marking a request DECODE (or moving it into the running list) "as soon as it is
    admitted" makes the decode pass of the same step serve it: it decodes in the step it prefilled.
    """

    name = "scheduling/early-transition"
    family = Family.SCHEDULING
    explanation = (
        "`{original}` moved before the preceding pass, which now already sees the new state: an "
        "item is served in the step it entered"
    )
    matcher = m.SimpleStatementLine()
    examples = (
        Example(
            before="def step(self):\n    req = self.waiting.popleft()\n    for r in self.running:\n"
            "        r.decode()\n    self.running.append(req)\n",
            after=("def step(self):\n    req = self.waiting.popleft()\n    self.running.append(req)\n"
                   "    for r in self.running:\n        r.decode()\n",),
        ),
        Example(  # the appended value is not an item taken from another collection
            before="def f(self, xs):\n    for x in xs:\n        self.out.append(x)\n    self.out.append(0)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.SimpleStatementLine, ctx: Context) -> Iterator[Rewrite]:
        found = block_of(node, ctx)
        if found is None:
            return
        block, index = found
        body = list(block.body)
        key = _transition_key(node, body[:index])
        if key is None:
            return
        needs = reads(node)
        for earlier in range(index - 1, -1, -1):
            stmt = body[earlier]
            if isinstance(stmt, LOOPS):
                if _sees(stmt, key) and not any(binds(s) & needs for s in body[earlier:index]):
                    yield Rewrite(replacement=block.with_changes(body=moved(body, index, earlier)), target=block)
                return
            if not isinstance(stmt, cst.SimpleStatementLine):
                return


class ElifFallsThrough(Mutator[cst.If]):
    """`if a: ... elif b:` split into two `if`s where the first branch moves into the state `b` tests.

    Realistic: a state machine written as separate `if`s lets one item take two transitions in
    one step (prefill, then decode at once); the `elif` is the whole difference.
    """

    name = "scheduling/elif-falls-through"
    family = Family.SCHEDULING
    explanation = (
        "`elif` became `if`: an item moved to the next state by the first branch now runs the "
        "second branch in the same step"
    )
    matcher = m.If(orelse=m.If())
    examples = (
        Example(
            before="def tick(r):\n    if r.state == 'prefill':\n        r.state = 'decode'\n"
            "    elif r.state == 'decode':\n        r.emit()\n",
            after=("def tick(r):\n    if r.state == 'prefill':\n        r.state = 'decode'\n"
                   "    if r.state == 'decode':\n        r.emit()\n",),
        ),
        Example(  # a clamp: after the first branch the second test cannot hold
            before="def f(r):\n    if r > 1.0:\n        r = 1.0\n    elif r < -1.0:\n        r = -1.0\n    return r\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[Rewrite]:
        found = block_of(node, ctx)
        elif_ = cst.ensure_type(node.orelse, cst.If)  # what the matcher matched
        if found is None or not _enters(node.body, elif_.test):
            return
        block, index = found
        body = list(block.body)
        body[index : index + 1] = [node.with_changes(orelse=None), elif_]
        yield Rewrite(replacement=block.with_changes(body=body), target=block)


def _enters(branch: cst.CSTNode, test: cst.BaseExpression) -> bool:
    """Does `branch` set `x = v` where `test` asks `x == v`, `x is v` or `x in (..., v)`?

    Only then does the split let one item take two transitions; after `if r > 1: r = 1` the
    test `elif r < -1` can never hold, and the split would be an equivalent mutant.
    """
    assigned = [
        (dotted(a.targets[0].target), a.value)
        for a in find_all(branch, cst.Assign, m.Assign(targets=[m.AssignTarget()]))
        if dotted(a.targets[0].target)
    ]
    asks = m.ComparisonTarget(operator=m.Equal() | m.Is() | m.In())
    for comparison in find_all(test, cst.Comparison, m.Comparison(comparisons=[asks])):
        left, right = comparison.left, comparison.comparisons[0].comparator
        options = [e.value for e in right.elements] if isinstance(right, (cst.Tuple, cst.List, cst.Set)) else [right]
        for name, value in assigned:
            if dotted(left) == name and any(value.deep_equals(option) for option in options):
                return True
            if dotted(right) == name and value.deep_equals(left):
                return True
    return False
