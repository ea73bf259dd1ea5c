"""Metric bug at the start of a curve: the (0, 0) point, added by hand after the cumulative sums,
is missing.

The curve still looks like a curve, but its first segment and its area are wrong whenever the
top-scored samples include a negative.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.metric.ranking import R_
from bugsmith.mutators.families.metric.replace import replaced
from bugsmith.mutators.family import Family

_CURVE_WORDS = frozenset({"tps", "fps", "tpr", "fpr", "tp", "fp", "recall", "precision", "roc", "curve",
                          "sensitivity", "specificity"})
_ZERO = m.Integer("0") | m.Float("0.0") | m.Float("0.")
_INF = (
    m.Attribute(attr=m.Name("inf"))
    | m.Name("inf")
    | m.Call(func=m.Name("float"), args=[m.Arg(value=m.SimpleString('"inf"') | m.SimpleString("'inf'"))])
)


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

    if (
        isinstance(node, cst.Subscript)
        and m.matches(node, R_)
        and len(node.slice) >= 2
        and all(isinstance(e.slice, cst.Index) for e in node.slice)
    ):
        rest = list(node.slice[1:])
        payload = cst.ensure_type(rest[0].slice, cst.Index).value if len(rest) == 1 else node.with_changes(
            slice=[*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
        found = kind(cst.ensure_type(node.slice[0].slice, cst.Index).value, arrays=False)
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
    names = [n.value for n in find_all(expr, cst.Name, m.Name())]
    return any(words(name) & _CURVE_WORDS for name in names)


def _bare(payload: cst.BaseExpression, where: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(payload, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or payload.lpar:
        return payload.with_changes(lpar=where.lpar, rpar=where.rpar) if where.lpar else payload
    return payload.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class DropOrigin(Mutator[cst.FunctionDef]):
    """The `(0, 0)` start point of a curve dropped: `np.r_[0, fps]` → `fps` (with its `inf` threshold).

    Realistic: the extra point is added by hand after the cumulative sums; forgetting it
    still gives a curve, but its first segment and area are wrong whenever the top scores
    include a negative.
    """

    name = "metric/drop-origin"
    family = Family.METRIC
    explanation = (
        "the curve no longer starts at (0, 0): the segment from the origin to the first threshold "
        "is missing from the area"
    )
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
            (each, *prepended)
            for each in find_all(node.body, (cst.Subscript, cst.Call), R_ | m.Call())
            if (prepended := _prepended(each))
        ]
        if not any(kind == "zero" and _curve_named(payload) for _, kind, payload in found):
            return
        chosen = [(each, payload) for each, kind, payload in found if kind == "inf" or _curve_named(payload)]
        drop = {id(line) for each, payload in chosen if (line := _self_assignment(each, payload, ctx))}
        targets = {id(each): functools.partial(_unprepended, where=each) for each, _ in chosen}
        yield Rewrite(replacement=replaced(node.body, targets, drop), target=node.body)


def _unprepended(updated: cst.CSTNode, where: cst.BaseExpression) -> cst.BaseExpression:
    """The array that `updated` prepends to, standing where the prepending expression stood."""
    prepended = _prepended(updated)
    # Replacing a prepend inside it changed only its array, never the 0 or inf in front.
    assert prepended is not None
    return _bare(prepended[1], where)


def _self_assignment(prepend: cst.CSTNode, payload: cst.BaseExpression, ctx: Context) -> cst.CSTNode | None:
    """The line `x = np.r_[0, x]`, which without the prepend would read `x = x`: delete it."""
    assign = ctx.parent(prepend)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    line = ctx.parent(assign)
    same = assign.targets[0].target.deep_equals(payload) and isinstance(payload, (cst.Name, cst.Attribute))
    return line if same and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
