"""Metric bugs in how samples are ranked: ties split, ranks made ordinal, the order flipped.

The tie handling is the one non-obvious line of a ROC curve, and numpy sorts ascending while
every metric wants scores descending; each mistake still gives an AUC that looks plausible.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, keyword_arg, positional, with_arg, without_arg
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.metric.replace import replaced
from bugsmith.mutators.family import Family

R_ = m.Subscript(value=m.Attribute(attr=m.Name("r_")))  # `np.r_[...]`: joins tie indices, prepends the origin
_DIFF = m.Call(
    func=m.Name("diff") | m.Attribute(attr=m.Name("diff")), args=[m.Arg(value=m.Name() | m.Attribute(), keyword=None)]
)
_WHERE = m.Call(func=m.Attribute(attr=m.Name("nonzero") | m.Name("flatnonzero") | m.Name("where") | m.Name("argwhere")))
_NAMED = m.Assign(targets=[m.AssignTarget(target=m.Name())])
_BY_NAME = m.Subscript(slice=[m.SubscriptElement(slice=m.Index(value=m.Name()))])
_JOINS = m.Call(func=m.Attribute(attr=m.Name("concatenate") | m.Name("concat") | m.Name("hstack") | m.Name("append")))


def _tie_names(function: cst.FunctionDef) -> dict[str, cst.Assign]:
    """Variables holding the last index of each run of equal scores (`np.diff`-based), including
    indices built from them (`threshold_idxs = np.r_[distinct_value_indices, n - 1]`)."""
    found: dict[str, cst.Assign] = {}
    for assign in find_all(function.body, cst.Assign, _NAMED):
        value = assign.value
        distinct = m.findall(value, _DIFF) and (m.findall(value, _WHERE) or m.findall(value, R_))
        joined = m.matches(value, R_ | _JOINS) and any(m.findall(value, m.Name(name)) for name in found)
        if distinct or joined:
            found[cst.ensure_type(assign.targets[0].target, cst.Name).value] = assign
    return found


def _index(subscript: cst.Subscript) -> cst.Name:
    """The name `i` in `x[i]`, a subscript that `_BY_NAME` matched."""
    index = cst.ensure_type(subscript.slice[0].slice, cst.Index)
    return cst.ensure_type(index.value, cst.Name)


def _unindexed(subscript: cst.CSTNode) -> cst.CSTNode:
    """`x` in place of `x[i]`."""
    return cst.ensure_type(subscript, cst.Subscript).value


class SplitTieGroups(Mutator[cst.FunctionDef]):
    """The distinct-score filter (`X[last]` with `last` from `np.diff`) dropped: one point per sample.

    Realistic: the tie handling is the one non-obvious line of a ROC curve; without it, tied
    scores make a staircase whose area depends on the order of the ties (AUC off for ties).
    """

    name = "metric/split-tie-groups"
    family = Family.METRIC
    explanation = (
        "curve points are now taken at every sample instead of at each distinct score, so tied "
        "scores are split into a staircase"
    )
    matcher = m.FunctionDef()
    examples = (
        Example(
            before="import numpy as np\n\ndef curve(s, tps):\n    # last of each tie run\n"
            "    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]\n    return tps[last], s[last]\n",
            after=("import numpy as np\n\ndef curve(s, tps):\n    return tps, s\n",),
        ),
        Example(  # a diff that is not a distinct-value filter
            before="import numpy as np\n\ndef f(x, y):\n    dx = np.diff(x)\n    return y[dx]\n", after=()),
    )

    def mutate(self, node: cst.FunctionDef, ctx: Context) -> Iterator[Rewrite]:
        ties = _tie_names(node)
        uses = [s for s in find_all(node.body, cst.Subscript, _BY_NAME) if _index(s).value in ties]
        if not uses:
            return
        gone = {id(_index(s)) for s in uses}
        drop: set[int] = set()
        for name, assign in reversed(list(ties.items())):  # a later index reads the earlier ones
            line = ctx.parent(assign)
            still_read = [
                n for n in m.findall(node.body, m.Name(name))
                if id(n) not in gone and n is not assign.targets[0].target and not _inside(n, drop, ctx)
            ]
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and not still_read:
                drop.add(id(line))  # an index nobody reads any more: the bug never computed it
        targets = {id(s): _unindexed for s in uses}
        yield Rewrite(replacement=replaced(node.body, targets, drop), target=node.body)


def _inside(node: cst.CSTNode, lines: set[int], ctx: Context) -> bool:
    return any(id(ancestor) in lines for ancestor in ctx.ancestors(node))


class OrdinalRanks(Mutator[cst.Call]):
    """`rankdata(x)` → `rankdata(x, method="ordinal")` (pandas `.rank()` → `method="first"`).

    Realistic: a rank-based AUC (Mann–Whitney) needs average ranks for ties; `argsort().argsort()`
    style ordinal ranks are the usual shortcut and split every tie group.
    """

    name = "metric/ordinal-ranks"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: tied scores get distinct ranks, so ties are split in a "
        "rank-based metric"
    )
    matcher = m.Call(func=m.Name("rankdata") | m.Attribute(attr=m.Name("rankdata") | m.Name("rank")))
    examples = (
        Example(
            before="from scipy.stats import rankdata\n\ndef f(s):\n    return rankdata(s)\n",
            after=("from scipy.stats import rankdata\n\ndef f(s):\n    return rankdata(s, method=\"ordinal\")\n",),
        ),
        Example(before="def f(s):\n    return rankdata(s, 'max') + s.rank(method='min')\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        pandas = callee(node) == "rank"
        positional_count = sum(1 for a in node.args if a.keyword is None)
        if positional_count != (0 if pandas else 1) or any(a.star for a in node.args):
            return
        method = keyword(node, "method")
        ordinal = ctx.expression('"first"' if pandas else '"ordinal"')
        if method is None:
            yield with_arg(node, keyword_arg("method", ordinal))
        elif m.matches(method.value, m.SimpleString('"average"') | m.SimpleString("'average'")):
            yield node.with_changes(args=[a.with_changes(value=ordinal) if a is method else a for a in node.args])


# The shared array modules less torch: this family has never read `torch.sort` or `torch.argsort`
# as numpy's, and counting them now would change the mutants it makes of torch code.
_ARRAY_MODULES = ARRAY_MODULES - {"torch"}


def _sorts(call: cst.Call) -> bool:
    """`argsort` in any form, or an array library's `sort` (a list's `.sort()` returns None)."""
    func = call.func
    module_sort = (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.attr.value == "sort"
        and func.value.value in _ARRAY_MODULES
    )
    return callee(call) == "argsort" or module_sort


def _reverses(node: cst.CSTNode | None, call: cst.Call) -> bool:
    """Is `node` the subscript `call[::-1]` (or `call[:, ::-1]`)?"""
    if not isinstance(node, cst.Subscript) or node.value is not call:
        return False
    steps = [e.slice for e in node.slice]
    backward = m.Slice(lower=None, upper=None, step=m.UnaryOperation(operator=m.Minus(), expression=m.Integer("1")))
    full = m.Slice(lower=None, upper=None, step=None)
    return all(m.matches(s, backward | full) for s in steps) and sum(m.matches(s, backward) for s in steps) == 1


class FlipSortOrder(Mutator[cst.Call]):
    """The ranking direction flipped: `argsort(-x)` ↔ `argsort(x)`, `[::-1]` or `descending=True` dropped.

    Realistic: numpy sorts ascending and every metric wants scores descending; which of the
    three idioms reverses the order is easy to get wrong, and a flipped ROC gives 1 - AUC.
    """

    name = "metric/flip-sort-order"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the samples are ranked in the opposite order (lowest score first)"
    matcher = m.Call(func=m.Name("argsort") | m.Attribute(attr=m.Name("argsort") | m.Name("sort")))
    examples = (
        Example(
            before="import numpy as np\n\ndef f(s, y_score):\n"
                   "    return np.argsort(-s), np.argsort(s)[::-1], y_score.argsort()\n",
            after=(
                "import numpy as np\n\ndef f(s, y_score):\n"
                "    return np.argsort(s), np.argsort(s)[::-1], y_score.argsort()\n",
                "import numpy as np\n\ndef f(s, y_score):\n"
                "    return np.argsort(-s), np.argsort(s), y_score.argsort()\n",
                "import numpy as np\n\ndef f(s, y_score):\n"
                "    return np.argsort(-s), np.argsort(s)[::-1], (-y_score).argsort()\n",
            ),
        ),
        Example(  # a list's sort, and an ascending sort of values that are not scores
            before="import numpy as np\n\ndef f(xs, u):\n    xs.sort()\n    return np.argsort(u)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode | Rewrite]:
        if not _sorts(node):
            return
        func, parent = node.func, ctx.parent(node)
        module_form = isinstance(func, cst.Name) or (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in _ARRAY_MODULES
        )
        first = positional(node, 0) if module_form else None
        descending = keyword(node, "descending")
        negates = callee(node) == "argsort"  # negating what `sort` returns would change the values
        if descending is not None and m.matches(descending.value, m.Name("True")):
            yield without_arg(node, descending)
        elif first is not None and (negated := _minus_operand(first.value)) is not None:
            yield node.with_changes(args=[a.with_changes(value=negated) if a is first else a for a in node.args])
        elif _reverses(parent, node):
            yield Rewrite(replacement=node, target=parent)
        elif negates and first is not None and _scores(first.value):
            yield node.with_changes(
                args=[a.with_changes(value=_negated(a.value)) if a is first else a for a in node.args]
            )
        elif negates and isinstance(func, cst.Attribute) and not module_form and _scores(func.value):
            yield node.with_changes(func=func.with_changes(value=_negated(func.value, paren=True)))


_SCORE_WORDS = frozenset({"score", "scores", "pred", "preds", "prediction", "predictions", "proba", "prob",
                          "probs", "probas", "probability", "probabilities", "logit", "logits", "confidence",
                          "decision", "margin", "margins"})


def _minus_operand(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` when `expr` is `-x`."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return expr.expression
    return None


def _scores(expr: cst.BaseExpression) -> bool:
    """Named like model scores: only there is "highest first" the known intent of a sort."""
    return any(words(n.value) & _SCORE_WORDS for n in find_all(expr, cst.Name, m.Name()))


def _negated(expr: cst.BaseExpression, *, paren: bool = False) -> cst.BaseExpression:
    simple = isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or expr.lpar
    inner = expr if simple else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    negated = cst.UnaryOperation(operator=cst.Minus(), expression=inner)
    return negated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if paren else negated


class UnstableSort(Mutator[cst.Call]):
    """`kind="mergesort"` / `kind="stable"` / `stable=True` dropped from a sort.

    Realistic: the keyword looks like a performance knob, so it gets "cleaned up"; the default
    quicksort then orders tied scores arbitrarily and every tie-sensitive metric drifts.
    """

    name = "metric/unstable-sort"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: the sort is no longer stable, so tied scores come out in "
        "arbitrary order"
    )
    matcher = m.Call(
        func=m.Name("argsort") | m.Attribute(attr=m.Name("argsort") | m.Name("sort") | m.Name("sort_values"))
    )
    examples = (
        Example(
            before="import numpy as np\n\ndef f(s):\n    return np.argsort(s, kind=\"mergesort\")\n",
            after=("import numpy as np\n\ndef f(s):\n    return np.argsort(s)\n",),
        ),
        Example(before="import numpy as np\n\ndef f(s):\n    return np.argsort(s, kind='quicksort')\n", after=()),
        Example(before="def f(xp, s):\n    return xp.argsort(s, stable=True)\n", after=()),  # stable by default
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        stable = (
            m.SimpleString('"mergesort"') | m.SimpleString("'mergesort'")
            | m.SimpleString('"stable"') | m.SimpleString("'stable'")
        )
        # The array API's sort is stable by default: dropping `stable=True` from `xp.` changes nothing.
        array_api = m.matches(node.func, m.Attribute(value=m.Name("xp")))
        flag: m.BaseMatcherNode = m.Arg(keyword=m.Name("kind"), value=stable)
        if not array_api:
            flag = flag | m.Arg(keyword=m.Name("stable"), value=m.Name("True"))
        for arg in node.args:
            if m.matches(arg, flag):
                yield without_arg(node, arg)
