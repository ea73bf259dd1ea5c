"""Beyond-classic bugs of a computed answer written as a constant: `return True`, `flag = True`,
`[]`, `while True`.

The base case that answers `True` instead of testing `depth == 0`, the empty result `[]` where
the one empty subset `[[]]` was meant, the loop that never checks its queue: each is a case its
author settled by a constant, and each is right on the inputs they tried first.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee
from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_POPS = frozenset({"pop", "popleft", "popitem", "get", "get_nowait"})


class ReturnConstantBool(Mutator[cst.Return]):
    """`return depth == 0` becomes `return True` or `return False`: a predicate stops testing.

    Realistic: a predicate settled by the case its author had in mind (`return True` for a
    balanced-brackets check that forgot the leftover depth); `classic/return-bool` only flips a
    constant that is already there.
    """

    name = "beyond/return-constant-bool"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the predicate answers a constant instead of testing"
    matcher = m.Return(value=m.Comparison() | m.BooleanOperation() | m.UnaryOperation(operator=m.Not()))
    examples = (
        Example(
            before="def balanced(depth):\n    return depth == 0\n",
            after=("def balanced(depth):\n    return True\n", "def balanced(depth):\n    return False\n"),
        ),
        # a value that is not a test; outside a function
        Example(before="def f(x):\n    return x + 1\n\nlambda x: x == 0\n", after=()),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None:
            return
        for constant in ("True", "False"):
            yield node.with_changes(value=cst.Name(constant))


class AssignConstantBool(Mutator[cst.Assign]):
    """`self._filled = self._fillstyle != 'none'` becomes `self._filled = True`: a flag is set
    to the case its author had in mind instead of being computed.

    Realistic: an initial guess ("assume the marker is filled") written as a constant where it
    depends on the state (BugsInPy: matplotlib 3); `return-constant-bool` makes the same slip in
    a `return`. One target only, and only a test (a comparison, `and`/`or`, `not`).
    """

    name = "beyond/assign-constant-bool"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the flag is set to a constant instead of being tested"
    matcher = m.Assign(targets=[m.AssignTarget(target=m.Name() | m.Attribute())],
                       value=m.Comparison() | m.BooleanOperation() | m.UnaryOperation(operator=m.Not()))
    examples = (
        Example(
            before="class M:\n    def reset(self):\n        self._filled = self._fillstyle != 'none'\n",
            after=("class M:\n    def reset(self):\n        self._filled = True\n",
                   "class M:\n    def reset(self):\n        self._filled = False\n"),
        ),
        # a value that is not a test; two targets; outside a function
        Example(before="def f(x, a, b):\n    y = x + 1\n    a = b = x > 0\n\nZ = 1 == 2\n", after=()),
    )

    def mutate(self, node: cst.Assign, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None:
            return
        for constant in ("True", "False"):
            yield node.with_changes(value=cst.Name(constant))


class EmptyResult(Mutator[cst.Return]):
    """`return [[]]` becomes `return []`, `return [x]` likewise: the one-element base case is empty.

    Realistic: the base case of a recursion that builds lists (subsets, paths, partitions)
    returns "nothing" where it must return the one empty solution; every result built on it is
    empty too.
    """

    name = "beyond/empty-result"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the base case returns no element instead of one"
    matcher = m.Return(value=m.List(elements=[m.Element()]))
    examples = (
        Example(
            before="def subsets(xs):\n    if not xs:\n        return [[]]\n    return [xs[:1]]\n",
            after=(
                "def subsets(xs):\n    if not xs:\n        return []\n    return [xs[:1]]\n",
                "def subsets(xs):\n    if not xs:\n        return [[]]\n    return []\n",
            ),
        ),
        Example(before="def f(a, b):\n    return [a, b]\n", after=()),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        value = cst.ensure_type(node.value, cst.List)  # as matched
        if ctx.function(node) is not None and not isinstance(value.elements[0], cst.StarredElement):
            yield node.with_changes(value=value.with_changes(elements=[]))


class LoopForever(Mutator[cst.While]):
    """`while queue:` becomes `while True:`: the loop no longer stops when its work runs out.

    Realistic: a search loop whose "nothing left" exit was forgotten; it is right whenever the
    goal is found, and pops from an empty queue when it is not. Only loops that take their work
    from the collection they test are changed, so the mutant fails at once instead of hanging.
    """

    name = "beyond/loop-forever"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the loop no longer checks that work is left"
    matcher = m.While(test=m.Name() | m.Attribute())
    examples = (
        Example(
            before="def bfs(queue, goal):\n    while queue:\n        node = queue.popleft()\n"
                   "        if node == goal:\n            return True\n    return False\n",
            after=("def bfs(queue, goal):\n    while True:\n        node = queue.popleft()\n"
                   "        if node == goal:\n            return True\n    return False\n",),
        ),
        # the loop does not take from what it tests; a flag; already `True`
        Example(
            before="def f(q, other, running):\n    while q:\n        other.pop()\n    while running:\n"
                   "        running = step()\n    while True:\n        q.pop()\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.While, ctx: Context) -> Iterator[cst.CSTNode]:
        test = ctx.code(node.test).strip()
        if test in ("True", "False") or ctx.function(node) is None:
            return
        pops = find_all(node.body, cst.Call, m.Call(func=m.Attribute()))
        if any(callee(call) in _POPS and ctx.code(cst.ensure_type(call.func, cst.Attribute).value).strip() == test
               for call in pops):
            yield node.with_changes(test=cst.Name("True"))
