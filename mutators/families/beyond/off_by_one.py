"""Beyond-classic bugs of extent: a bound one off or dropped.

`x[i + 1]` for `x[i]`, `range(n)` for `range(n - 1)`, `x[a:b]` for `x[a:]`: each is a bug of
extent that type checkers and most example-based tests let through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeGuard

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import is_literal
from bugsmith.mutators.family import Family

_RANGES = frozenset({"range", "arange"})
_ONE = m.Integer(value="1")
# A bound `a + b`, `a << b` or `a & b` plus one would need parentheses, or read as a new sum.
_LOOSER_THAN_PLUS = (cst.Add, cst.Subtract, cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)
# Words that name a position or a bound, where `+ 1` is the whole point.
_BOUND_WORDS = frozenset(
    {"lo", "hi", "low", "high", "start", "stop", "end", "begin", "left", "right", "first",
     "last", "idx", "index", "pos", "offset", "upper", "lower", "bound", "cut", "mid"}
)


def _is_bound_position(node: cst.CSTNode, ctx: Context) -> bool:
    """Is `node` an index, a slice bound, a `range` argument or a side of a comparison?"""
    parent = ctx.parent(node)
    if isinstance(parent, (cst.Index, cst.Slice, cst.ComparisonTarget)):
        return True
    if isinstance(parent, cst.Comparison):
        return parent.left is node
    if isinstance(parent, cst.Arg) and parent.keyword is None:
        call = ctx.parent(parent)
        return isinstance(call, cst.Call) and callee(call) in _RANGES
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
        target = parent.targets[0].target  # `lo = mid + 1`, `end = start + 1`
        return isinstance(target, cst.Name) and bool(_BOUND_WORDS & set(target.value.lower().split("_")))
    return False


class DropOne(Mutator[cst.BinaryOperation]):
    """`+ 1` or `- 1` is dropped from an index or bound: `x[i + 1]` -> `x[i]`, `i < n - 1` -> `i < n`.

    Realistic: the off-by-one of a boundary written without its correction, the commonest
    window and indexing bug of all (`lo = mid + 1` -> `lo = mid` is the binary search that
    never ends). Bounds are indices, slice ends, `range` arguments, comparison sides, and
    assignments to names such as `lo`, `end` or `start_idx`.
    """

    name = "beyond/drop-one"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the bound or index is off by one"
    matcher = m.BinaryOperation(operator=m.Add() | m.Subtract(), right=_ONE)
    examples = (
        Example(
            before="def f(x, i, n):\n    for k in range(n - 1):\n        if k < n - 1:\n"
                   "            return x[i + 1], x[:i - 1]\n    return n + 1\n",
            after=(
                "def f(x, i, n):\n    for k in range(n):\n        if k < n - 1:\n"
                "            return x[i + 1], x[:i - 1]\n    return n + 1\n",
                "def f(x, i, n):\n    for k in range(n - 1):\n        if k < n:\n"
                "            return x[i + 1], x[:i - 1]\n    return n + 1\n",
                "def f(x, i, n):\n    for k in range(n - 1):\n        if k < n - 1:\n"
                "            return x[i], x[:i - 1]\n    return n + 1\n",
                "def f(x, i, n):\n    for k in range(n - 1):\n        if k < n - 1:\n"
                "            return x[i + 1], x[:i]\n    return n + 1\n",
            ),
        ),
        Example(
            before="def f(lo, mid):\n    while lo < mid:\n        lo = mid + 1\n",
            after=("def f(lo, mid):\n    while lo < mid:\n        lo = mid\n",),
        ),
        # a count, an argument and a step of two are not bounds
        Example(before="def f(n):\n    total = n + 1\n    return f(n - 1), n + 2\n", after=()),
    )

    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        if _is_bound_position(node, ctx):
            left = node.left
            yield left.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar and not left.lpar else left


def _bound(expression: cst.BaseExpression, operator: cst.BaseBinaryOp) -> cst.BinaryOperation:
    return cst.BinaryOperation(left=expression, operator=operator, right=cst.Integer("1"))


def _can_add_one(expression: cst.BaseExpression | None) -> TypeGuard[cst.BaseExpression]:
    """A bound that is a value: not a constant, not already `x +- k` (that is `classic/number`'s),
    and binding tighter than `+`, so that `bound + 1` needs no parentheses."""
    if expression is None or is_literal(expression):
        return False
    if isinstance(expression, cst.BinaryOperation):
        return not isinstance(expression.operator, _LOOSER_THAN_PLUS)  # `x * k`, `n // 2`
    return isinstance(expression, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.UnaryOperation))


class AddOne(Mutator[cst.Call | cst.Slice]):
    """`+ 1` or `- 1` is added to a range end or a slice bound: `range(n)` -> `range(n - 1)`.

    Realistic: an inclusive bound taken for an exclusive one, so a loop or a window covers one
    element too many or too few. Constant bounds are `classic/number`'s.
    """

    name = "beyond/add-one"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the bound is off by one"
    matcher = m.Call(func=m.Name() | m.Attribute()) | m.Slice()
    examples = (
        Example(
            before="def f(x, n, i):\n    for k in range(n):\n        yield x[i:k]\n",
            after=(
                "def f(x, n, i):\n    for k in range(n + 1):\n        yield x[i:k]\n",
                "def f(x, n, i):\n    for k in range(n - 1):\n        yield x[i:k]\n",
                "def f(x, n, i):\n    for k in range(n):\n        yield x[i + 1:k]\n",
                "def f(x, n, i):\n    for k in range(n):\n        yield x[i - 1:k]\n",
                "def f(x, n, i):\n    for k in range(n):\n        yield x[i:k + 1]\n",
                "def f(x, n, i):\n    for k in range(n):\n        yield x[i:k - 1]\n",
            ),
        ),
        Example(before="def f(x, n):\n    return range(10), x[1:n - 1], x[::n], len(x)\n", after=()),
    )

    def mutate(self, node: cst.Call | cst.Slice, ctx: Context) -> Iterator[Rewrite]:
        for bound in self._bounds(node):
            for operator in (cst.Add(), cst.Subtract()):
                yield Rewrite(replacement=_bound(bound, operator), target=bound)

    @staticmethod
    def _bounds(node: cst.Call | cst.Slice) -> list[cst.BaseExpression]:
        if isinstance(node, cst.Slice):
            return [b for b in (node.lower, node.upper) if _can_add_one(b)]
        if callee(node) not in _RANGES:
            return []
        args = [arg for arg in node.args if arg.keyword is None and not arg.star]
        if not args or len(args) != len(node.args) or len(args) > 3:
            return []
        stop = args[0].value if len(args) == 1 else args[1].value
        return [stop] if _can_add_one(stop) else []


class DropSliceBound(Mutator[cst.Subscript]):
    """A slice loses one bound: `x[a:b]` becomes `x[a:]` or `x[:b]`, `x[1:]` becomes `x`.

    Realistic: a window that no longer ends (or starts) where it should, a header row no
    longer skipped; the code still runs on every input.
    """

    name = "beyond/drop-slice-bound"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the slice lost one of its bounds"
    matcher = m.Subscript()
    examples = (
        Example(
            before="def f(x, a, b):\n    return x[a:b], x[1:], X[:, :-1]\n",
            after=(
                "def f(x, a, b):\n    return x[:b], x[1:], X[:, :-1]\n",
                "def f(x, a, b):\n    return x[a:], x[1:], X[:, :-1]\n",
                "def f(x, a, b):\n    return x[a:b], x, X[:, :-1]\n",
                "def f(x, a, b):\n    return x[a:b], x[1:], X[:, :]\n",
            ),
        ),
        Example(before="def f(x, b):\n    x[:b] = 0\n    return x[::-1], x[b], x[:]\n", after=()),
    )

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        is_target = isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) and parent.target is node
        for index, element in enumerate(node.slice):
            piece = element.slice
            if not isinstance(piece, cst.Slice):
                continue
            for field in ("lower", "upper"):
                if getattr(piece, field) is None:
                    continue
                shorter = piece.with_changes(**{field: None})
                bare = shorter.lower is None and shorter.upper is None and shorter.step is None
                if bare and len(node.slice) == 1:
                    if not is_target:  # `x[1:]` -> `x`, not the copy `x[1:]` -> `x[:]`
                        yield node.value
                    continue
                elements = list(node.slice)
                elements[index] = element.with_changes(slice=shorter)
                yield node.with_changes(slice=elements)
