"""Leakage bugs that pool rows which should stay apart: groups dropped, totals over all rows.

A per-entity `groupby` dropped lets one customer's history flow into the next; "the mean" in
place of "the mean so far" fits a statistic on every row, future included, and the scalar still
broadcasts back to each row.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, method_of, positional
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.receivers import is_namespace, method_receiver
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.leakage.row_order import ORDER_METHODS, groupby_of
from bugsmith.mutators.family import Family

_WINDOWS = m.Name("rolling") | m.Name("expanding") | m.Name("ewm")
_WINDOW_STATISTICS = frozenset("mean sum std var min max median count sem skew kurt".split())
_TOTALS = {"cumsum": "sum", "cumprod": "prod", "cummax": "max", "cummin": "min"}


def _broadcasts(node: cst.CSTNode, ctx: Context, *, named: bool = False) -> bool:
    """Whether a scalar standing for the series `node` would broadcast back to every row.

    True in arithmetic, in an assignment to a column (`df["f"] = ...`), to a plain name if
    `named`, and as what a `transform(lambda ...)` returns; elsewhere a scalar would change a
    shape or a type, a loud failure rather than leakage.
    """
    parent = ctx.parent(node)
    if isinstance(parent, (cst.BinaryOperation, cst.AugAssign)):
        return True
    if isinstance(parent, cst.Assign):
        kinds = (cst.Subscript, cst.Name) if named else cst.Subscript
        return all(isinstance(target.target, kinds) for target in parent.targets)
    if isinstance(parent, cst.Lambda):
        call = ctx.parent(ctx.parent(parent) or parent)
        return isinstance(call, cst.Call) and callee(call) == "transform"
    return False


def _transform(base: cst.BaseExpression, statistic: str, call: cst.Call) -> cst.Call:
    """`base.transform("statistic", <call's arguments>)`: a per-group total broadcast to every row."""
    name = cst.Arg(value=cst.SimpleString(f'"{statistic}"'))
    if call.args:
        name = name.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(
        func=cst.Attribute(value=base, attr=cst.Name("transform")), args=[name, *call.args]
    )


class DropGroupby(Mutator[cst.Call]):
    """`df.groupby(k)[c].shift(1)` becomes `df[c].shift(1)`: one entity's history flows into the next.

    Realistic: the per-entity `groupby` is easy to drop when the test data holds one entity,
    and the lag or window then spans the boundary between two customers, stores or sensors.
    """

    name = "leakage/drop-groupby"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the operation now runs across entity boundaries, so "
        "each entity's first rows see the last rows of another entity"
    )
    matcher = m.Call(
        func=m.Attribute(attr=m.OneOf(*(m.Name(name) for name in sorted(ORDER_METHODS | {"transform"}))))
    )
    examples = (
        Example(before="def f(df):\n    return df.groupby('id')['y'].shift(1)\n",
                after=("def f(df):\n    return df['y'].shift(1)\n",)),
        Example(before="def f(df, keys):\n    return df.groupby(keys).y.rolling(3).mean()\n",
                after=("def f(df, keys):\n    return df.y.rolling(3).mean()\n",)),
        Example(before="def f(df):\n    return df.groupby('id')['y'].transform(lambda s: s.cumsum())\n",
                after=("def f(df):\n    return df['y'].transform(lambda s: s.cumsum())\n",)),
        Example(before="def f(df):\n"
                       "    return df.groupby('id')['y'].transform('mean'), df.groupby('id')['y'].mean(), "
                       "df['y'].shift(1)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        group = groupby_of(method_of(node).value)
        if group is None or is_namespace(method_of(group).value, ctx):
            return
        if callee(node) == "transform":
            function = positional(node, 0)
            ordered = function is not None and (
                isinstance(function.value, cst.Lambda)
                or isinstance(function.value, cst.SimpleString)
                and function.value.raw_value in ORDER_METHODS
            )
            if not ordered:
                return  # `transform("mean")` is a per-group total: without groups it fails loudly
        yield Rewrite(replacement=in_place_of(group, method_of(group).value, ctx), target=group)


class FullSampleStatistic(Mutator[cst.Call]):
    """`s.expanding().mean()` becomes `s.mean()`: the statistic is fitted on all rows, future included.

    Realistic: normalising by "the mean" instead of "the mean so far" is the most common form of
    leakage in feature code; the scalar broadcasts back to every row, so the shapes still match.
    Per-group windows keep their shape through `transform`.
    """

    name = "leakage/full-sample-statistic"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the statistic is now computed over the whole series, "
        "so every row sees the values that come after it"
    )
    matcher = m.Call(func=m.Attribute(value=m.Call(func=m.Attribute(attr=_WINDOWS))))
    examples = (
        Example(before="def f(s):\n    return (s - s.expanding(2).mean()) / s.shift(1).rolling(5).std(ddof=0)\n",
                after=("def f(s):\n    return (s - s.mean()) / s.shift(1).rolling(5).std(ddof=0)\n",
                       "def f(s):\n    return (s - s.expanding(2).mean()) / s.shift(1).std(ddof=0)\n")),
        Example(before="def f(df):\n"
                       "    return df.groupby('id')['y'].expanding().mean().reset_index(level=0, drop=True)\n",
                after=("def f(df):\n"
                       "    return df.groupby('id')['y'].transform(\"mean\").reset_index(level=0, drop=True)\n",)),
        Example(before="def f(df):\n    return df.groupby('id')['y'].transform(lambda s: s.expanding().mean())\n",
                after=("def f(df):\n    return df.groupby('id')['y'].transform(lambda s: s.mean())\n",)),
        Example(before="def f(s):\n    level = s.ewm(span=3).mean()\n    return s / level\n",
                after=("def f(s):\n    level = s.mean()\n    return s / level\n",)),
        Example(before="def f(s):\n"
                       "    return s.rolling(3).mean().shift(1), s.rolling(3).apply(g), s.expanding().quantile(0.5)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        statistic = method_of(node).attr.value
        window = cst.ensure_type(method_of(node).value, cst.Call)  # `s.rolling(...)`, as matched
        base = method_of(window).value
        if statistic not in _WINDOW_STATISTICS or is_namespace(base, ctx):
            return
        if groupby_of(base) is not None:
            yield _transform(base, statistic, node)
        # Only pandas has windows, and a pandas "mean so far" is mostly used in arithmetic.
        elif _broadcasts(node, ctx, named=True):
            yield node.with_changes(func=node.func.with_changes(value=base))


class CumulativeToTotal(Mutator[cst.Call]):
    """`s.cumsum()` becomes `s.sum()`: a running total becomes the grand total of all rows.

    Realistic: "sum of past values" and "sum of values" differ by three letters; with the
    total, each row's feature includes every later row, and the scalar still broadcasts.
    """

    name = "leakage/cumulative-to-total"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the running total became a total over every row, so "
        "each row now includes the rows after it"
    )
    matcher = m.Call(func=m.Attribute(attr=m.OneOf(*(m.Name(name) for name in _TOTALS))))
    examples = (
        Example(before="def f(df):\n    df['seen'] = df['clicks'].cumsum()\n    return df['y'].cummax() / 2\n",
                after=("def f(df):\n    df['seen'] = df['clicks'].sum()\n    return df['y'].cummax() / 2\n",
                       "def f(df):\n    df['seen'] = df['clicks'].cumsum()\n    return df['y'].max() / 2\n")),
        Example(before="def f(df):\n    return df.groupby('id')['y'].cumsum()\n",
                after=("def f(df):\n    return df.groupby('id')['y'].transform(\"sum\")\n",)),
        Example(before="def f(s, w):\n    past = s.cumsum()\n"
                       "    return np.cumsum(w), s.cumsum().shift(1), s.cumsum()[-1], np.dot(s.cumsum(), w)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        receiver = method_receiver(node, ctx)
        if receiver is None:
            return
        total = _TOTALS[method_of(node).attr.value]
        if groupby_of(receiver) is not None:
            if not node.args:
                yield _transform(receiver, total, node)
        elif _broadcasts(node, ctx):
            yield node.with_changes(func=node.func.with_changes(attr=cst.Name(total)))
