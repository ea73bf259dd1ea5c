"""Metric bugs that confuse the two classes: a rate normalised by the other class's count, the
two axes of a curve swapped.

TPR divides by the positives and FPR by the negatives, and sklearn returns `(fpr, tpr, ...)`;
the two names differ by one letter, and the mirror-image curve has area 1 - AUC.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# Role words of a curve's two axes.
_AXES = (("fpr", "tpr"), ("fps", "tps"), ("fp", "tp"), ("false", "true"), ("precision", "recall"))
_PLOTS = frozenset({"plot", "scatter", "step", "fill_between", "semilogx", "semilogy", "loglog"})


_COUNTS = {
    "tps": "fps", "fps": "tps", "tp": "fp", "fp": "tp", "pos": "neg", "neg": "pos",
    "positive": "negative", "negative": "positive", "positives": "negatives", "negatives": "positives",
}


def _partner(identifier: str) -> str | None:
    """`n_neg` for `n_pos`, `fps` for `tps`: the same count for the other class."""
    parts = re.split(r"(_+)", identifier)
    roles = [i for i, part in enumerate(parts) if part.lower() in _COUNTS]
    if len(roles) != 1:
        return None
    word = _COUNTS[parts[roles[0]].lower()]
    parts[roles[0]] = word.upper() if parts[roles[0]].isupper() else word
    return "".join(parts)


class WrongClassCount(Mutator[cst.BinaryOperation | cst.AugAssign]):
    """A rate normalised by the wrong count: `/ tps[-1]` ↔ `/ fps[-1]`, `/ n_pos` → `/ (n_pos + n_neg)`.

    Realistic: TPR divides by the positives and FPR by the negatives; the two lines are
    copy-pasted from each other and the denominator is the one thing not edited.
    """

    name = "metric/wrong-class-count"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the rate is normalised by the other class's count"
    matcher = m.BinaryOperation(operator=m.Divide()) | m.AugAssign(operator=m.DivideAssign())
    examples = (
        Example(
            before="def tpr(tps, fps):\n    return tps / tps[-1]\n",
            after=("def tpr(tps, fps):\n    return tps / fps[-1]\n",
                   "def tpr(tps, fps):\n    return tps / (tps[-1] + fps[-1])\n"),
        ),
        Example(before="def f(tps, n_pos, n_neg):\n    return tps / 2 + n_pos / (n_pos * n_neg)\n", after=()),
    )

    def mutate(self, node: cst.BinaryOperation | cst.AugAssign, ctx: Context) -> Iterator[Rewrite | cst.CSTNode]:
        below = node.right if isinstance(node, cst.BinaryOperation) else node.value
        calls = find_all(below, cst.Call, m.Call())
        called = {id(c.func) for c in calls} | {id(c.func.attr) for c in calls if isinstance(c.func, cst.Attribute)}
        names = [n for n in find_all(below, cst.Name, m.Name()) if id(n) not in called]
        roles = [(n, partner) for n in names if (partner := _partner(n.value))]
        if len(roles) != 1 or any(n.value == roles[0][1] for n in names):
            return
        name, partner = roles[0]
        if not m.findall(ctx.function(node) or ctx.module, m.Name(partner)):
            return  # the other class's count does not exist here
        other = below.deep_replace(name, name.with_changes(value=partner))
        yield Rewrite(replacement=other, target=below)
        plain = lambda e: e.with_changes(lpar=[], rpar=[])  # noqa: E731
        total = cst.BinaryOperation(
            left=plain(below), operator=cst.Add(), right=plain(other),
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()],
        )
        why = "`{original}` became `{mutated}`: the rate is normalised by all samples instead of one class"
        yield Rewrite(replacement=total, target=below, explanation=why)


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


def _complementary_pairs(
    values: list[cst.BaseExpression], pairs: tuple[tuple[str, str], ...]
) -> Iterator[tuple[int, int]]:
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if _complementary(values[i], values[j], pairs):
                yield i, j


class SwapCurveAxes(Mutator[cst.Return | cst.Call | cst.Assign]):
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

    def mutate(self, node: cst.Return | cst.Call | cst.Assign, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(node, cst.Call):
            yield from self._call(node)
            return
        # The matcher's tuple: the returned one, or the one assigned to.
        holder = cst.ensure_type(node.value if isinstance(node, cst.Return) else node.targets[0].target, cst.Tuple)
        elements = list(holder.elements)
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return
        for i, j in _complementary_pairs([e.value for e in elements], _AXES):
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
        for i, j in _complementary_pairs([a.value for a in args], pairs):
            first, second = args[i], args[j]
            yield node.with_changes(args=[
                second.with_changes(comma=first.comma) if a is first
                else first.with_changes(comma=second.comma) if a is second else a
                for a in node.args
            ])
