"""Metric bugs in the integration rule: trapezoids become rectangles.

The rectangle rule is what people write from memory; it is exact on a staircase and wrong only
on the diagonal segments that tied scores produce.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import TypeGuard

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_SUMS = frozenset({"sum", "nansum", "dot", "vdot", "inner"})


def _slice(node: cst.BaseExpression, lower: str | None, upper: str | None) -> TypeGuard[cst.Subscript]:
    """Is `node` `x[lower:upper]` with one plain slice?"""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    part = node.slice[0].slice
    text = lambda e: None if e is None else cst.Module([]).code_for_node(e)  # noqa: E731
    return isinstance(part, cst.Slice) and part.step is None and (text(part.lower), text(part.upper)) == (lower, upper)


def _neighbours(node: cst.BinaryOperation) -> tuple[cst.Subscript, cst.Subscript] | None:
    """`(a[1:], a[:-1])` when `node` is `a[1:] + a[:-1]` (either order)."""
    if not isinstance(node.operator, cst.Add):
        return None
    for right, left in ((node.left, node.right), (node.right, node.left)):
        if _slice(right, "1", None) and _slice(left, None, "-1") and right.value.deep_equals(left.value):
            return right, left
    return None


def _halving(pair: cst.CSTNode, ctx: Context) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(the expression that halves the pair's sum, what remains once the halving is dropped).

    Only through products and sums (`np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2`): a plain
    `(e[1:] + e[:-1]) / 2` is a midpoint, not an area.
    """
    child, multiplied = pair, False
    for ancestor in islice(ctx.ancestors(pair), 10):
        if isinstance(ancestor, cst.BinaryOperation):
            operator, left = ancestor.operator, child is ancestor.left
            operand, other = (ancestor.left, ancestor.right) if left else (ancestor.right, ancestor.left)
            if isinstance(operator, cst.Divide) and left and m.matches(other, m.Integer("2") | m.Float("2.0")):
                return (ancestor, operand) if multiplied else None
            if isinstance(operator, cst.Multiply) and m.matches(other, m.Float("0.5") | m.Float(".5")):
                return (ancestor, operand) if multiplied else None
            if not isinstance(operator, cst.Multiply) and not (isinstance(operator, cst.Divide) and left):
                return None
            multiplied = True
        elif isinstance(ancestor, cst.Arg):
            if ancestor.keyword is not None:
                return None
        elif isinstance(ancestor, cst.Call):
            if callee(ancestor) not in _SUMS:
                return None
        elif not m.matches(ancestor, m.Attribute(attr=m.Name("sum"))):
            return None
        child = ancestor
    return None


class RectangleRule(Mutator[cst.BinaryOperation]):
    """Trapezoids `(y[1:] + y[:-1]) / 2` become rectangles `y[1:]` or `y[:-1]`.

    Realistic: the rectangle rule is what people write from memory; it is exact on a
    staircase and wrong only on the diagonal segments that ties produce.
    """

    name = "metric/rectangle-rule"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: the area is summed over rectangles instead of "
        "trapezoids, wrong on every diagonal segment (ties)"
    )
    matcher = m.BinaryOperation(operator=m.Add())
    examples = (
        Example(
            before="import numpy as np\n\ndef auc(x, y):\n    return np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2\n",
            after=(
                "import numpy as np\n\ndef auc(x, y):\n    return np.sum(np.diff(x) * y[1:])\n",
                "import numpy as np\n\ndef auc(x, y):\n    return np.sum(np.diff(x) * y[:-1])\n",
            ),
        ),
        Example(before="def centres(e):\n    return (e[1:] + e[:-1]) / 2\n", after=()),  # a midpoint
    )

    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[Rewrite]:
        pair = _neighbours(node)
        found = _halving(node, ctx) if pair else None
        if pair is None or found is None:
            return
        halver, kept = found
        for side in pair:
            new = side if kept is node else kept.deep_replace(node, side)
            yield Rewrite(replacement=in_place_of(halver, new, ctx), target=halver)


def _steps(node: cst.BaseExpression) -> bool:
    """Is `node` the width of each step: `np.diff(x)`, `x[1:] - x[:-1]` or `x[:-1] - x[1:]`?"""
    if isinstance(node, cst.Call):
        return callee(node) == "diff" and len(node.args) == 1
    if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Subtract):
        return False
    pairs = (("1", None, None, "-1"), (None, "-1", "1", None))
    return any(_slice(node.left, a, b) and _slice(node.right, c, d) and node.left.value.deep_equals(node.right.value)
               for a, b, c, d in pairs)


class StepAtWrongEnd(Mutator[cst.BinaryOperation]):
    """A step sum weighted at the other end of each step: `np.sum(np.diff(r) * p[:-1])` becomes
    `p[1:]` (or the reverse).

    Realistic: average precision and other step integrals weight each step by the height at one
    of its ends; which end is a convention written from memory (left or right Riemann sum), and
    both give a number of the same size, off wherever the curve moves.
    """

    name = "metric/step-wrong-end"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: each step is weighted by the height at its other end,"
        " so the sum is a left Riemann sum where a right one was meant (or the reverse)"
    )
    matcher = m.BinaryOperation(operator=m.Multiply())
    examples = (
        Example(before="def ap(p, r):\n    return np.sum((r[:-1] - r[1:]) * p[:-1])\n",
                after=("def ap(p, r):\n    return np.sum((r[:-1] - r[1:]) * p[1:])\n",)),
        Example(before="def area(x, y):\n    return (y[1:] * np.diff(x)).sum()\n",
                after=("def area(x, y):\n    return (y[:-1] * np.diff(x)).sum()\n",)),
        # Not a step sum: no step widths, or the heights are the steps' own array sliced alike.
        Example(before="def f(a, b, x):\n    return a[1:] * b[:-1], np.diff(x) * x, (x[1:] - x) * b[1:]\n",
                after=()),
    )

    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[Rewrite]:
        for steps, heights in ((node.left, node.right), (node.right, node.left)):
            if not _steps(steps):
                continue
            for lower, upper, other in (("1", None, "[:-1]"), (None, "-1", "[1:]")):
                if _slice(heights, lower, upper):
                    moved = cst.parse_expression(f"x{other}")
                    assert isinstance(moved, cst.Subscript)
                    yield Rewrite(replacement=heights.with_changes(slice=moved.slice), target=heights)


def _numpy_alias(ctx: Context) -> str | None:
    for statement in ctx.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                if m.matches(alias.name, m.Name("numpy")):
                    return alias.evaluated_alias or "numpy"
    return None


class TrapezoidToSum(Mutator[cst.Call]):
    """`np.trapz(y, x)` / `trapezoid(y, x)` becomes `np.sum(y[1:] * np.diff(x))`.

    Realistic: replacing a library call by "the obvious sum" is a common refactor, and the
    hand-written sum is the rectangle rule: exact on a staircase, wrong on tied segments.
    """

    name = "metric/trapezoid-to-sum"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: the area is summed over rectangles instead of "
        "trapezoids, wrong on every diagonal segment (ties)"
    )
    matcher = m.Call(
        func=m.Name("trapz") | m.Name("trapezoid") | m.Attribute(attr=m.Name("trapz") | m.Name("trapezoid"))
    )
    examples = (
        Example(
            before="import numpy as np\n\ndef auc(fpr, tpr):\n    return np.trapezoid(tpr, fpr)\n",
            after=("import numpy as np\n\ndef auc(fpr, tpr):\n    return np.sum(tpr[1:] * np.diff(fpr))\n",),
        ),
        Example(before="import numpy as np\n\ndef f(y):\n    return np.trapz(y, dx=0.5)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        owner = node.func.value if isinstance(node.func, cst.Attribute) else None
        numpy = owner.value if isinstance(owner, cst.Name) and owner.value in ("np", "numpy") else _numpy_alias(ctx)
        y, x = positional(node, 0), positional(node, 1) or next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "x"), None
        )
        if numpy is None or y is None or x is None or len(node.args) != 2:
            return
        heights = ctx.code(y.value).strip()
        if not isinstance(y.value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            heights = f"({heights})"
        yield ctx.expression(f"{numpy}.sum({heights}[1:] * {numpy}.diff({ctx.code(x.value).strip()}))")
