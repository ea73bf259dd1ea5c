"""Leakage bugs: a feature computed for time t quietly uses data from after t, or from another entity.

Leakage is the bug that makes a model look better: every test of "does it run" and most tests
of "is the number plausible" still pass, and the validation score goes up. The mutators match
the pandas idioms that keep features causal (lags, trailing windows, forward fills, per-entity
groups, sorting by time) and undo or reverse them.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families._calls import (
    callee,
    in_place_of,
    int_value,
    is_namespace,
    keyword,
    method_receiver,
    positional,
    replaced_arg,
    spelled_out,
    with_arg,
    with_text,
    without_arg,
)
from bugsmith.mutators.mutant import Family

# Methods whose result depends on row order, and so on the sort and the group they run in.
ORDER_METHODS = frozenset(
    "shift rolling expanding ewm diff pct_change cumsum cumprod cummax cummin cumcount ffill bfill".split()
)
_WINDOWS = m.Name("rolling") | m.Name("expanding") | m.Name("ewm")
_WINDOW_STATISTICS = frozenset("mean sum std var min max median count sem skew kurt".split())
_TOTALS = {"cumsum": "sum", "cumprod": "prod", "cummax": "max", "cummin": "min"}


def groupby_of(expr: cst.BaseExpression) -> cst.Call | None:
    """The `X.groupby(...)` call in `X.groupby(k)`, `X.groupby(k)[c]` or `X.groupby(k).c`."""
    if isinstance(expr, (cst.Subscript, cst.Attribute)) and not expr.lpar:
        expr = expr.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and callee(expr) == "groupby":
        return expr
    return None


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


def _shift_periods(node: cst.Call) -> cst.Arg | None:
    return keyword(node, "periods") or positional(node, 0)


class DropShift(Mutator):
    """`s.shift(k)` becomes `s`: each row now sees the value it is meant to predict.

    Realistic: the shift is the one line that makes a lag feature a lag; it is easy to drop
    while refactoring a feature pipeline, and every metric gets better when it is gone.
    """

    name = "leakage/drop-shift"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: each row now sees its own current value instead of a "
        "past one (future-data leakage)"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("shift")))
    examples = (
        Example(before="def f(s):\n    return s.shift(1).rolling(3).mean()\n",
                after=("def f(s):\n    return s.rolling(3).mean()\n",)),
        Example(before="def f(df):\n    return df.groupby('id')['y'].shift(periods=2, fill_value=0)\n",
                after=("def f(df):\n    return df['y']\n",)),
        Example(before="from scipy import ndimage\n\ndef f(s, image):\n    return s.rolling(3).mean(), ndimage.shift(image, 1), self.shift(2)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.BaseExpression]:
        receiver = method_receiver(node, ctx)
        if receiver is None or len([arg for arg in node.args if arg.keyword is None]) > 1:
            return
        group = groupby_of(receiver)
        if group is not None:  # the unshifted column, not a bare GroupBy object
            frame = group.func.value
            receiver = frame if receiver is group else receiver.with_changes(value=frame)
        yield in_place_of(node, receiver, ctx)


class FlipShift(Mutator):
    """`s.shift(1)` becomes `s.shift(-1)` (or the reverse): the lag becomes a lead.

    Realistic: the sign convention of `shift` is remembered the wrong way round about half the
    time (`shift(-1)` builds next-step targets, `shift(1)` lags), and both run without a warning.
    """

    name = "leakage/flip-shift"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the shift now runs the other way, so each row sees a "
        "future value instead of a past one"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("shift")))
    examples = (
        Example(before="def f(s, lag):\n    return s.shift(1) - s.shift(periods=lag)\n",
                after=("def f(s, lag):\n    return s.shift(-1) - s.shift(periods=lag)\n",
                       "def f(s, lag):\n    return s.shift(1) - s.shift(periods=-lag)\n")),
        Example(before="def f(df):\n    df['target'] = df['y'].shift(-1)\n    return df['y'].shift()\n",
                after=("def f(df):\n    df['target'] = df['y'].shift(1)\n    return df['y'].shift()\n",
                       "def f(df):\n    df['target'] = df['y'].shift(-1)\n    return df['y'].shift(-1)\n")),
        Example(before="def f(s, a, b):\n    return s.shift(0), s.shift(a + b), self.shift(1)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if method_receiver(node, ctx) is None:
            return
        periods = _shift_periods(node)
        if periods is None:
            if not node.args:
                yield Rewrite(replacement=node.with_changes(args=[cst.Arg(value=ctx.expression("-1"))]))
            return
        value, number = periods.value, int_value(periods.value)
        if number is not None:
            flipped = ctx.expression(str(-number)) if number else None
        elif m.matches(value, m.UnaryOperation(operator=m.Minus())):
            flipped = value.expression
        elif isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            flipped = cst.UnaryOperation(operator=cst.Minus(), expression=value)
        else:
            flipped = None
        if flipped is None:
            return
        if (number is not None and number < 0) or isinstance(value, cst.UnaryOperation):
            yield Rewrite(
                replacement=flipped,
                target=value,
                explanation=(
                    "`{original}` became `{mutated}`: a lead became a lag, so the value meant "
                    "to come from the next step (a target) now comes from the previous one"
                ),
            )
        else:
            yield Rewrite(replacement=flipped, target=value)


class CenterWindow(Mutator):
    """`.rolling(w)` gains `center=True`: each window now reaches half its width into the future.

    Realistic: centred windows are the right choice for smoothing a plot, and the setting is
    copied from exploratory notebooks into feature code, where it leaks future values.
    """

    name = "leakage/center-window"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the window is now centred on each row, so it "
        "averages values from the following rows (future-data leakage)"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("rolling")), args=[m.AtLeastN(n=1)])
    examples = (
        Example(before="def f(s):\n    return s.rolling(3).mean()\n",
                after=("def f(s):\n    return s.rolling(3, center=True).mean()\n",)),
        Example(before="def f(s):\n    return s.rolling(\n        3,\n        min_periods=1,\n    ).mean()\n",
                after=("def f(s):\n    return s.rolling(\n        3,\n        min_periods=1,\n        center=True,\n    ).mean()\n",)),
        Example(before="def f(s):\n    return s.rolling(3, center=False).mean()\n",
                after=("def f(s):\n    return s.rolling(3, center=True).mean()\n",)),
        Example(before="def f(s):\n    return s.rolling(3, center=True).mean(), s.expanding(3).mean()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        center = keyword(node, "center")
        if center is None:
            yield with_arg(node, ctx.expression("f(center=True)").args[0])
        elif m.matches(center.value, m.Name("False")):
            yield replaced_arg(node, center, center.value.with_changes(value="True"))


class ClosedWindow(Mutator):
    """`closed="left"` on a rolling window becomes `"both"` or is dropped: the window includes now.

    Realistic: `closed="left"` is the one keyword that keeps the current row out of its own
    trailing statistic; the default (`"right"`) puts it back in and nothing else changes.
    """

    name = "leakage/closed-window"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the window now includes the current row, so the "
        "feature contains the value it should predict"
    )
    matcher = m.Call(
        func=m.Attribute(attr=m.Name("rolling")),
        args=[m.ZeroOrMore(), m.Arg(keyword=m.Name("closed")), m.ZeroOrMore()],
    )
    examples = (
        Example(before="def f(s):\n    return s.rolling('3D', closed='left').sum()\n",
                after=("def f(s):\n    return s.rolling('3D', closed='both').sum()\n", "def f(s):\n    return s.rolling('3D').sum()\n")),
        Example(before="def f(s):\n    return s.rolling(3, closed=\"right\").sum(), s.resample('D', closed='left').sum()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        closed = keyword(node, "closed")
        if isinstance(closed.value, cst.SimpleString) and closed.value.raw_value in ("left", "neither"):
            yield Rewrite(replacement=with_text(closed.value, "both"), target=closed.value)
            yield Rewrite(replacement=without_arg(node, closed))


_FILL_METHODS = {"ffill": "bfill", "pad": "backfill"}


class BackFill(Mutator):
    """`ffill` becomes `bfill`: a gap is filled from the next observation instead of the last.

    Realistic: the two names differ by one letter and both remove the NaNs a test looks for;
    only the backward one copies a value from the future into the gap.
    """

    name = "leakage/backward-fill"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: each gap is now filled with the next observation, a "
        "value from the future"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("ffill"))) | m.Call(
        args=[m.ZeroOrMore(), m.Arg(keyword=m.Name("method"), value=m.SimpleString()), m.ZeroOrMore()]
    )
    examples = (
        Example(before="def f(df):\n    return df.groupby('id').ffill(limit=2)\n",
                after=("def f(df):\n    return df.groupby('id').bfill(limit=2)\n",)),
        Example(before="def f(s, i):\n    return s.fillna(method='pad'), s.reindex(i, method=\"ffill\")\n",
                after=("def f(s, i):\n    return s.fillna(method='backfill'), s.reindex(i, method=\"ffill\")\n",
                       "def f(s, i):\n    return s.fillna(method='pad'), s.reindex(i, method=\"bfill\")\n")),
        Example(before="def f(s):\n    return s.bfill(), s.interpolate(method='linear'), np.pad(s, 1)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        method = keyword(node, "method")
        if method is not None and isinstance(method.value, cst.SimpleString):
            backward = _FILL_METHODS.get(method.value.raw_value)
            if backward is not None:
                yield Rewrite(replacement=with_text(method.value, backward), target=method.value)
        elif callee(node) == "ffill" and method_receiver(node, ctx) is not None:
            yield Rewrite(replacement=cst.Name("bfill"), target=node.func.attr)


class AsofDirection(Mutator):
    """`merge_asof` looks `"forward"` or to the `"nearest"` row instead of `"backward"`.

    Realistic: "forward" reads like forward-fill, the safe direction, but in `merge_asof` it
    joins each row to the *next* quote, trade or label: a one-word leak of future data.
    """

    name = "leakage/asof-direction"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: each row is now joined to a later (or the nearest) "
        "record instead of the last one known at its time"
    )
    matcher = m.Call(func=m.Name("merge_asof") | m.Attribute(attr=m.Name("merge_asof")))
    examples = (
        Example(before="def f(a, b):\n    return pd.merge_asof(a, b, on='t', direction='backward')\n",
                after=("def f(a, b):\n    return pd.merge_asof(a, b, on='t', direction='forward')\n",
                       "def f(a, b):\n    return pd.merge_asof(a, b, on='t', direction='nearest')\n")),
        Example(before="def f(a, b):\n    return merge_asof(a, b, on='t')\n",
                after=("def f(a, b):\n    return merge_asof(a, b, on='t', direction=\"forward\")\n",)),
        Example(before="def f(a, b):\n    return pd.merge_asof(a, b, on='t', direction=d), pd.merge(a, b)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        direction = keyword(node, "direction")
        if direction is None:
            yield Rewrite(replacement=with_arg(node, ctx.expression('f(direction="forward")').args[0]))
        elif isinstance(direction.value, cst.SimpleString) and direction.value.raw_value == "backward":
            for other in ("forward", "nearest"):
                yield Rewrite(replacement=with_text(direction.value, other), target=direction.value)


def _transform(base: cst.BaseExpression, statistic: str, call: cst.Call) -> cst.Call:
    """`base.transform("statistic", <call's arguments>)`: a per-group total broadcast to every row."""
    name = cst.Arg(value=cst.SimpleString(f'"{statistic}"'))
    if call.args:
        name = name.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(
        func=cst.Attribute(value=base, attr=cst.Name("transform")), args=[name, *call.args]
    )


class DropGroupby(Mutator):
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
        Example(before="def f(df):\n    return df.groupby('id')['y'].transform('mean'), df.groupby('id')['y'].mean(), df['y'].shift(1)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        group = groupby_of(node.func.value)
        if group is None or is_namespace(group.func.value, ctx):
            return
        if callee(node) == "transform":
            function = positional(node, 0)
            ordered = function is not None and (
                isinstance(function.value, cst.Lambda)
                or m.matches(function.value, m.SimpleString())
                and function.value.raw_value in ORDER_METHODS
            )
            if not ordered:
                return  # `transform("mean")` is a per-group total: without groups it fails loudly
        yield Rewrite(replacement=in_place_of(group, group.func.value, ctx), target=group)


class FullSampleStatistic(Mutator):
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
        Example(before="def f(df):\n    return df.groupby('id')['y'].expanding().mean().reset_index(level=0, drop=True)\n",
                after=("def f(df):\n    return df.groupby('id')['y'].transform(\"mean\").reset_index(level=0, drop=True)\n",)),
        Example(before="def f(df):\n    return df.groupby('id')['y'].transform(lambda s: s.expanding().mean())\n",
                after=("def f(df):\n    return df.groupby('id')['y'].transform(lambda s: s.mean())\n",)),
        Example(before="def f(s):\n    level = s.ewm(span=3).mean()\n    return s / level\n",
                after=("def f(s):\n    level = s.mean()\n    return s / level\n",)),
        Example(before="def f(s):\n    return s.rolling(3).mean().shift(1), s.rolling(3).apply(g), s.expanding().quantile(0.5)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        statistic = callee(node)
        window = node.func.value
        base = window.func.value
        if statistic not in _WINDOW_STATISTICS or is_namespace(base, ctx):
            return
        if groupby_of(base) is not None:
            yield _transform(base, statistic, node)
        # Only pandas has windows, and a pandas "mean so far" is mostly used in arithmetic.
        elif _broadcasts(node, ctx, named=True):
            yield node.with_changes(func=node.func.with_changes(value=base))


class CumulativeToTotal(Mutator):
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
        Example(before="def f(s, w):\n    past = s.cumsum()\n    return np.cumsum(w), s.cumsum().shift(1), s.cumsum()[-1], np.dot(s.cumsum(), w)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        receiver = method_receiver(node, ctx)
        if receiver is None:
            return
        total = _TOTALS[callee(node)]
        if groupby_of(receiver) is not None:
            if not node.args:
                yield _transform(receiver, total, node)
        elif _broadcasts(node, ctx):
            yield node.with_changes(func=node.func.with_changes(attr=cst.Name(total)))


class DropSort(Mutator):
    """`df.sort_values("time")` is dropped before order-dependent work: lags run in file order.

    Realistic: data usually arrives sorted, so the sort looks redundant and is removed; on the
    first unsorted file, `shift` and rolling windows take "previous" rows from the future.
    Proposed only where the same function uses an order-dependent method.
    """

    name = "leakage/drop-sort"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: rows are no longer in time order, so lags and "
        "windows may take their \"past\" values from later rows"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("sort_values") | m.Name("sort_index")))
    examples = (
        Example(before="def f(df):\n    df = df.sort_values('t')\n    return df['y'].shift(1)\n",
                after=("def f(df):\n    return df['y'].shift(1)\n",)),
        Example(before="def f(df):\n    df.sort_index(inplace=True)\n    s = df.sort_values(['id', 't']).groupby('id')['y'].diff()\n    return s\n",
                after=("def f(df):\n    s = df.sort_values(['id', 't']).groupby('id')['y'].diff()\n    return s\n",
                       "def f(df):\n    df.sort_index(inplace=True)\n    s = df.groupby('id')['y'].diff()\n    return s\n")),
        Example(before="def f(df):\n    return df.sort_values('score').head(10)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        receiver = method_receiver(node, ctx)
        if receiver is None or not _uses_order(ctx.function(node) or ctx.module, node):
            return
        parent = ctx.parent(node)
        line = ctx.parent(parent) if parent is not None else None
        whole_statement = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
        in_place = keyword(node, "inplace")
        if in_place is not None:
            if whole_statement and isinstance(parent, cst.Expr) and m.matches(in_place.value, m.Name("True")):
                yield Rewrite(replacement=cst.RemovalSentinel.REMOVE, target=line, explanation=_DELETED_SORT)
        elif whole_statement and _reassigns(parent, receiver, ctx):
            yield Rewrite(replacement=cst.RemovalSentinel.REMOVE, target=line, explanation=_DELETED_SORT)
        else:
            yield Rewrite(replacement=in_place_of(node, receiver, ctx))


_DELETED_SORT = (
    "`{original}` was deleted: rows are no longer in time order, so lags and windows may take "
    "their \"past\" values from later rows"
)


def _uses_order(scope: cst.CSTNode, sort: cst.Call) -> bool:
    names = sorted(ORDER_METHODS | {"merge_asof"})
    ordered = m.Call(func=m.Attribute(attr=m.OneOf(*(m.Name(name) for name in names))))
    return any(call is not sort for call in m.findall(scope, ordered))


def _reassigns(statement: cst.CSTNode, receiver: cst.BaseExpression, ctx: Context) -> bool:
    """`df = df.sort_values(...)`: deleting the line, not leaving `df = df`, is the natural bug."""
    return (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and ctx.code(statement.targets[0].target) == ctx.code(receiver)
    )


MUTATORS = (
    DropShift,
    FlipShift,
    CenterWindow,
    ClosedWindow,
    BackFill,
    AsofDirection,
    DropGroupby,
    FullSampleStatistic,
    CumulativeToTotal,
    DropSort,
)
