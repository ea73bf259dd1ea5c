"""Metric bugs in how a curve is built and integrated (part of the metric family).

`mutators.families.metric` exports these classes; they live here so that each module stays
short. Curves are recognised by numpy idioms (`y[1:] + y[:-1]`, `np.r_[0, x]`) and by the names
ROC and precision/recall code always uses (tps/fps, tpr/fpr, precision/recall).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families._flow import words
from bugsmith.mutators.families._calls import callee, in_place_of, positional
from bugsmith.mutators.mutant import Family

_SUMS = frozenset({"sum", "nansum", "dot", "vdot", "inner"})
# Role words of a curve's two axes.
_AXES = (("fpr", "tpr"), ("fps", "tps"), ("fp", "tp"), ("false", "true"), ("precision", "recall"))
R_ = m.Subscript(value=m.Attribute(attr=m.Name("r_")))  # `np.r_[...]`
_PLOTS = frozenset({"plot", "scatter", "step", "fill_between", "semilogx", "semilogy", "loglog"})


def _slice(node: cst.BaseExpression, lower: str | None, upper: str | None) -> bool:
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
            other = ancestor.right if left else ancestor.left
            if isinstance(operator, cst.Divide) and left and m.matches(other, m.Integer("2") | m.Float("2.0")):
                return (ancestor, child) if multiplied else None
            if isinstance(operator, cst.Multiply) and m.matches(other, m.Float("0.5") | m.Float(".5")):
                return (ancestor, child) if multiplied else None
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


class RectangleRule(Mutator):
    """Trapezoids `(y[1:] + y[:-1]) / 2` become rectangles `y[1:]` or `y[:-1]`.

    Realistic: the rectangle rule is what people write from memory; it is exact on a
    staircase and wrong only on the diagonal segments that ties produce.
    """

    name = "metric/rectangle-rule"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the area is summed over rectangles instead of trapezoids, wrong on every diagonal segment (ties)"
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
        if found is None:
            return
        halver, kept = found
        for side in pair:
            new = side if kept is node else kept.deep_replace(node, side)
            yield Rewrite(replacement=in_place_of(halver, new, ctx), target=halver)


def _numpy_alias(ctx: Context) -> str | None:
    for statement in ctx.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                if m.matches(alias.name, m.Name("numpy")):
                    return alias.asname.name.value if alias.asname else "numpy"
    return None


class TrapezoidToSum(Mutator):
    """`np.trapz(y, x)` / `trapezoid(y, x)` becomes `np.sum(y[1:] * np.diff(x))`.

    Realistic: replacing a library call by "the obvious sum" is a common refactor, and the
    hand-written sum is the rectangle rule: exact on a staircase, wrong on tied segments.
    """

    name = "metric/trapezoid-to-sum"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the area is summed over rectangles instead of trapezoids, wrong on every diagonal segment (ties)"
    matcher = m.Call(func=m.Name("trapz") | m.Name("trapezoid") | m.Attribute(attr=m.Name("trapz") | m.Name("trapezoid")))
    examples = (
        Example(
            before="import numpy as np\n\ndef auc(fpr, tpr):\n    return np.trapezoid(tpr, fpr)\n",
            after=("import numpy as np\n\ndef auc(fpr, tpr):\n    return np.sum(tpr[1:] * np.diff(fpr))\n",),
        ),
        Example(before="import numpy as np\n\ndef f(y):\n    return np.trapz(y, dx=0.5)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        owner = node.func.value if isinstance(node.func, cst.Attribute) else None
        numpy = owner.value if m.matches(owner, m.Name("np") | m.Name("numpy")) else _numpy_alias(ctx)
        y, x = positional(node, 0), positional(node, 1) or next(
            (a for a in node.args if m.matches(a.keyword, m.Name("x"))), None
        )
        if numpy is None or y is None or x is None or len(node.args) != 2:
            return
        heights = ctx.code(y.value).strip()
        if not isinstance(y.value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            heights = f"({heights})"
        yield ctx.expression(f"{numpy}.sum({heights}[1:] * {numpy}.diff({ctx.code(x.value).strip()}))")


def role_words(expr: cst.BaseExpression) -> set[str] | None:
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    if isinstance(expr, cst.Name):
        return words(expr.value)
    if isinstance(expr, cst.Attribute):
        return words(expr.attr.value)
    return None


def _complementary(a: cst.BaseExpression, b: cst.BaseExpression, pairs: tuple[tuple[str, str], ...]) -> bool:
    first, second = role_words(a), role_words(b)
    if not first or not second:
        return False
    return any(
        (p in first and q in second and first - {p} == second - {q})
        or (q in first and p in second and first - {q} == second - {p})
        for p, q in pairs
    )


def _swapped(values: list[cst.BaseExpression], pairs) -> Iterator[tuple[int, int]]:
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if _complementary(values[i], values[j], pairs):
                yield i, j


class SwapCurveAxes(Mutator):
    """The two axes of a curve swapped: `return fpr, tpr` → `return tpr, fpr`, `auc(tpr, fpr)`.

    Realistic: sklearn returns `(fpr, tpr, thresholds)`, plots want x then y, and the two
    names differ by one letter; the swapped curve is the mirror image and its area is 1 - AUC.
    """

    name = "metric/swap-curve-axes"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the curve's two axes are swapped (TPR ↔ FPR), which mirrors it"
    matcher = m.Return(value=m.Tuple()) | m.Call() | m.Assign(targets=[m.AssignTarget(target=m.Tuple())])
    examples = (
        Example(
            before="def f(fps, tps):\n    fpr, tpr = fps / fps[-1], tps / tps[-1]\n    return fpr, tpr, None\n",
            after=(
                "def f(fps, tps):\n    tpr, fpr = fps / fps[-1], tps / tps[-1]\n    return fpr, tpr, None\n",
                "def f(fps, tps):\n    fpr, tpr = fps / fps[-1], tps / tps[-1]\n    return tpr, fpr, None\n",
            ),
        ),
        Example(  # `x`/`y` only count as axes in an integration call
            before="import numpy as np\n\ndef f(x, y):\n    return np.trapz(y, x), max(x, y)\n",
            after=("import numpy as np\n\ndef f(x, y):\n    return np.trapz(x, y), max(x, y)\n",),
        ),
        Example(before="def f(fpr_a, tpr_b, ax):\n    ax.plot(fpr_a, tpr_b)\n    return fpr_a, tpr_b\n", after=()),
    )

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(node, cst.Call):
            yield from self._call(node)
            return
        holder = node.value if isinstance(node, cst.Return) else node.targets[0].target
        elements = list(holder.elements)
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return
        for i, j in _swapped([e.value for e in elements], _AXES):
            swapped = list(elements)
            swapped[i] = elements[i].with_changes(value=elements[j].value)
            swapped[j] = elements[j].with_changes(value=elements[i].value)
            tuple_ = holder.with_changes(elements=swapped)
            yield node.with_changes(value=tuple_) if isinstance(node, cst.Return) else node.with_changes(
                targets=[node.targets[0].with_changes(target=tuple_)]
            )

    @staticmethod
    def _call(node: cst.Call) -> Iterator[cst.CSTNode]:
        name = callee(node)
        if name in _PLOTS:
            return  # a swapped plot is not a wrong number
        args = [a for a in node.args if a.keyword is None and not a.star]
        pairs = _AXES + ((("x", "y"),) if name in ("trapz", "trapezoid", "auc", "simpson") else ())
        for i, j in _swapped([a.value for a in args], pairs):
            first, second = args[i], args[j]
            yield node.with_changes(args=[
                second.with_changes(comma=first.comma) if a is first
                else first.with_changes(comma=second.comma) if a is second else a
                for a in node.args
            ])


class Replace(cst.CSTTransformer):
    """Replace nodes (by identity) with what `make` builds from their updated version."""

    def __init__(self, targets: dict[int, object], drop: set[int] = frozenset()) -> None:
        super().__init__()
        self._targets, self._drop = targets, drop

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        if id(original) in self._drop:
            return cst.RemovalSentinel.REMOVE
        make = self._targets.get(id(original))
        return make(updated) if make else updated


_CURVE_WORDS = frozenset({"tps", "fps", "tpr", "fpr", "tp", "fp", "recall", "precision", "roc", "curve",
                          "sensitivity", "specificity"})
_ZERO = m.Integer("0") | m.Float("0.0") | m.Float("0.")
_INF = m.Attribute(attr=m.Name("inf")) | m.Name("inf") | m.Call(func=m.Name("float"), args=[m.Arg(value=m.SimpleString('"inf"') | m.SimpleString("'inf'"))])


def _single(expr: cst.BaseExpression, scalar: m.BaseMatcherNode) -> bool:
    """`[0]`, `(0,)`, `np.asarray([0.0], ...)` (for `scalar` 0): a one-element array of it."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return len(expr.elements) == 1 and m.matches(expr.elements[0].value, scalar)
    if isinstance(expr, cst.Call) and callee(expr) in ("asarray", "array", "atleast_1d"):
        first = positional(expr, 0)
        return first is not None and _single(first.value, scalar)
    return False


def _prepended(node: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """("zero" or "inf", the array) when `node` puts a 0 or an inf in front of an array."""
    def kind(head: cst.BaseExpression, arrays: bool) -> str | None:
        for name, scalar in (("zero", _ZERO), ("inf", _INF)):
            if m.matches(head, scalar) or (arrays and _single(head, scalar)):
                return name
        return None

    if m.matches(node, R_) and len(node.slice) >= 2 and all(isinstance(e.slice, cst.Index) for e in node.slice):
        rest = list(node.slice[1:])
        payload = rest[0].slice.value if len(rest) == 1 else node.with_changes(
            slice=[*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
        found = kind(node.slice[0].slice.value, arrays=False)
        return (found, payload) if found else None
    if not isinstance(node, cst.Call) or any(a.keyword or a.star for a in node.args):
        return None
    name, args = callee(node), [a.value for a in node.args]
    if name in ("concatenate", "concat", "hstack") and len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
        parts = [e.value for e in args[0].elements]
        found = kind(parts[0], arrays=True) if len(parts) == 2 else None
        return (found, parts[1]) if found else None
    if name == "append" and len(args) == 2 and m.matches(node.func, m.Attribute(value=m.Name())):
        found = kind(args[0], arrays=True)
        return (found, args[1]) if found else None
    if name == "insert" and len(args) == 3 and m.matches(args[1], m.Integer("0")):
        found = kind(args[2], arrays=False)
        return (found, args[0]) if found else None
    return None


def _curve_named(expr: cst.BaseExpression) -> bool:
    names = [n.value for n in m.findall(expr, m.Name())]
    return any(words(name) & _CURVE_WORDS for name in names)


def _bare(payload: cst.BaseExpression, where: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(payload, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or payload.lpar:
        return payload.with_changes(lpar=where.lpar, rpar=where.rpar) if where.lpar else payload
    return payload.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class DropOrigin(Mutator):
    """The `(0, 0)` start point of a curve dropped: `np.r_[0, fps]` → `fps` (with its `inf` threshold).

    Realistic: the extra point is added by hand after the cumulative sums; forgetting it
    still gives a curve, but its first segment and area are wrong whenever the top scores
    include a negative.
    """

    name = "metric/drop-origin"
    family = Family.METRIC
    explanation = "the curve no longer starts at (0, 0): the segment from the origin to the first threshold is missing from the area"
    matcher = m.FunctionDef()
    examples = (
        Example(
            before="import numpy as np\n\ndef roc(fps, tps, s):\n    fpr = np.r_[0, fps] / fps[-1]\n"
            "    tpr = np.concatenate([[0.0], tps]) / tps[-1]\n    return fpr, tpr, np.r_[np.inf, s]\n",
            after=("import numpy as np\n\ndef roc(fps, tps, s):\n    fpr = fps / fps[-1]\n"
                   "    tpr = tps / tps[-1]\n    return fpr, tpr, s\n",),
        ),
        Example(
            before="import numpy as np\n\ndef roc(fps, tps):\n    # start at (0, 0)\n    fps = np.r_[0, fps]\n"
            "    tps = np.r_[0, tps]\n    return fps / fps[-1], tps / tps[-1]\n",
            after=("import numpy as np\n\ndef roc(fps, tps):\n    return fps / fps[-1], tps / tps[-1]\n",),
        ),
        Example(  # a leading zero of an index pointer, not of a curve
            before="import numpy as np\n\ndef f(c):\n    return np.concatenate([[0], np.cumsum(c)])\n", after=()),
    )

    def mutate(self, node: cst.FunctionDef, ctx: Context) -> Iterator[Rewrite]:
        found = [
            (each, *_prepended(each)) for each in m.findall(node.body, R_ | m.Call()) if _prepended(each)
        ]
        if not any(kind == "zero" and _curve_named(payload) for _, kind, payload in found):
            return
        chosen = [(each, payload) for each, kind, payload in found if kind == "inf" or _curve_named(payload)]
        drop = {id(line) for each, payload in chosen if (line := _self_assignment(each, payload, ctx))}
        targets = {id(each): (lambda updated, original=each: _bare(_prepended(updated)[1], original)) for each, _ in chosen}
        yield Rewrite(replacement=node.body.visit(Replace(targets, drop)), target=node.body)


def _self_assignment(prepend: cst.CSTNode, payload: cst.BaseExpression, ctx: Context) -> cst.CSTNode | None:
    """The line `x = np.r_[0, x]`, which without the prepend would read `x = x`: delete it."""
    assign = ctx.parent(prepend)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    line = ctx.parent(assign)
    same = assign.targets[0].target.deep_equals(payload) and isinstance(payload, (cst.Name, cst.Attribute))
    return line if same and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None


CURVE_MUTATORS = (RectangleRule, TrapezoidToSum, SwapCurveAxes, DropOrigin)
