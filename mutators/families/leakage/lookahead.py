"""Leakage bugs that make each row look ahead: a centred or closed window, a backward fill or join.

Each is one keyword or one letter (`center=True`, `closed="both"`, `bfill`, `direction="forward"`)
that copies values from later rows into the current one.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, method_of, replaced_arg, with_arg, without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import with_text
from bugsmith.mutators.analysis.receivers import method_receiver
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


class CenterWindow(Mutator[cst.Call]):
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
                after=("def f(s):\n    return s.rolling(\n        3,\n        min_periods=1,\n        center=True,\n"
                       "    ).mean()\n",)),
        Example(before="def f(s):\n    return s.rolling(3, center=False).mean()\n",
                after=("def f(s):\n    return s.rolling(3, center=True).mean()\n",)),
        Example(before="def f(s):\n    return s.rolling(3, center=True).mean(), s.expanding(3).mean()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        center = keyword(node, "center")
        if center is None:
            yield with_arg(node, cst.ensure_type(ctx.expression("f(center=True)"), cst.Call).args[0])
        elif m.matches(center.value, m.Name("False")):
            yield replaced_arg(node, center, center.value.with_changes(value="True"))


class ClosedWindow(Mutator[cst.Call]):
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
                after=("def f(s):\n    return s.rolling('3D', closed='both').sum()\n",
                       "def f(s):\n    return s.rolling('3D').sum()\n")),
        Example(before="def f(s):\n    return s.rolling(3, closed=\"right\").sum(), "
                       "s.resample('D', closed='left').sum()\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        closed = keyword(node, "closed")
        if closed is None:  # the matcher asks for it; this tells the type checker
            return
        if isinstance(closed.value, cst.SimpleString) and closed.value.raw_value in ("left", "neither"):
            yield Rewrite(replacement=with_text(closed.value, "both"), target=closed.value)
            yield Rewrite(replacement=without_arg(node, closed))


_FILL_METHODS = {"ffill": "bfill", "pad": "backfill"}


class BackFill(Mutator[cst.Call]):
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
            yield Rewrite(replacement=cst.Name("bfill"), target=method_of(node).attr)


class AsofDirection(Mutator[cst.Call]):
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
            forward = cst.ensure_type(ctx.expression('f(direction="forward")'), cst.Call).args[0]
            yield Rewrite(replacement=with_arg(node, forward))
        elif isinstance(direction.value, cst.SimpleString) and direction.value.raw_value == "backward":
            for other in ("forward", "nearest"):
                yield Rewrite(replacement=with_text(direction.value, other), target=direction.value)
