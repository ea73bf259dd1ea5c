"""Window bugs in pandas rolling windows: a window one observation off, the warm-up rows changed.

"The last w values" is easy to count as w - 1 past values plus the current one, and
`min_periods` is tuned once and copied between features; the numbers stay plausible.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, positional, without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.window.nudge import nudged
from bugsmith.mutators.family import Family


class WindowSize(Mutator[cst.Call]):
    """`.rolling(w)` becomes `.rolling(w - 1)` or `.rolling(w + 1)`: every window is off by one.

    Realistic: "the last w values" is easy to count as w - 1 past values plus the current one,
    or w past values plus the current one; every window keeps producing plausible numbers.
    """

    name = "window/window-size"
    family = Family.WINDOW
    explanation = (
        "`{original}` became `{mutated}`: every rolling window now holds one observation too "
        "many or too few"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("rolling")), args=[m.AtLeastN(n=1)])
    examples = (
        Example(before="def f(s, w):\n    return s.rolling(w).mean()\n",
                after=("def f(s, w):\n    return s.rolling(w - 1).mean()\n",
                       "def f(s, w):\n    return s.rolling(w + 1).mean()\n")),
        Example(before="def f(s):\n    return s.rolling(window=3, min_periods=1).sum()\n",
                after=("def f(s):\n    return s.rolling(window=2, min_periods=1).sum()\n",
                       "def f(s):\n    return s.rolling(window=4, min_periods=1).sum()\n")),
        Example(before="def f(s):\n    return s.rolling(1).sum(), s.rolling('7D').sum(), s.expanding(3).sum()\n",
                after=("def f(s):\n    return s.rolling(2).sum(), s.rolling('7D').sum(), s.expanding(3).sum()\n",)),
        Example(before="def f(s, w):\n    if isinstance(w, str):\n        return s.rolling(w).sum()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        window = keyword(node, "window") or positional(node, 0)
        if window is not None and not _known_string(window.value, ctx):
            for _, value in nudged(window.value, floor=1):
                yield Rewrite(replacement=value, target=window.value)


def _known_string(expr: cst.BaseExpression, ctx: Context) -> bool:
    """`w` inside `if isinstance(w, str):`, where `w + 1` could only raise a TypeError."""
    if not isinstance(expr, cst.Name):
        return False
    guard = m.Call(
        func=m.Name("isinstance"), args=[m.Arg(value=m.Name(expr.value)), m.Arg(value=m.Name("str"))]
    )
    child: cst.CSTNode = expr
    for ancestor in ctx.ancestors(expr):
        if isinstance(ancestor, cst.If) and child is ancestor.body and m.matches(ancestor.test, guard):
            return True
        child = ancestor
    return False


_MIN_PERIOD_DEFAULTS = {"expanding": "1", "ewm": "0"}  # rolling: the window itself


class MinPeriods(Mutator[cst.Call]):
    """`min_periods=k` becomes `k - 1`, `k + 1` or is dropped: the warm-up rows change.

    Realistic: `min_periods` decides which leading rows are NaN; it is tuned once, copied between
    features, and its default differs between `rolling` (the window) and `expanding` (1).
    """

    name = "window/min-periods"
    family = Family.WINDOW
    explanation = (
        "`{original}` became `{mutated}`: the first rows of each series now get a value from "
        "too few observations, or a NaN they should not have"
    )
    matcher = m.Call(
        func=m.Attribute(attr=m.Name("rolling") | m.Name("expanding") | m.Name("ewm")),
        args=[m.ZeroOrMore(), m.Arg(keyword=m.Name("min_periods")), m.ZeroOrMore()],
    )
    examples = (
        Example(before="def f(s):\n    return s.rolling(5, min_periods=2).mean()\n",
                after=("def f(s):\n    return s.rolling(5, min_periods=1).mean()\n",
                       "def f(s):\n    return s.rolling(5, min_periods=3).mean()\n",
                       "def f(s):\n    return s.rolling(5).mean()\n")),
        Example(before="def f(s, w):\n    return s.rolling(w, min_periods=w).mean()\n",
                after=("def f(s, w):\n    return s.rolling(w, min_periods=w - 1).mean()\n",)),
        Example(before="def f(s):\n"
                       "    return s.expanding(min_periods=1).mean(), s.rolling('2D', min_periods=1).sum()\n",
                after=("def f(s):\n"
                       "    return s.expanding(min_periods=2).mean(), s.rolling('2D', min_periods=1).sum()\n",
                       "def f(s):\n"
                       "    return s.expanding(min_periods=1).mean(), s.rolling('2D', min_periods=2).sum()\n")),
        Example(before="def f(s, w):\n    if isinstance(w, str):\n        return s.rolling(w, min_periods=1).sum()\n",
                after=("def f(s, w):\n    if isinstance(w, str):\n"
                       "        return s.rolling(w, min_periods=2).sum()\n",)),
        Example(before="def f(df, s):\n    return df.corr(min_periods=3), s.rolling(3).mean()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        periods = keyword(node, "min_periods")
        if periods is None:  # the matcher asks for it; this tells the type checker
            return
        window = (keyword(node, "window") or positional(node, 0)) if callee(node) == "rolling" else None
        window_code = ctx.code(window.value) if window else None
        if window is not None and _known_string(window.value, ctx):
            window_code = None  # an offset such as "7D": `min_periods` defaults to 1
        for delta, value in nudged(periods.value, floor=1):
            # More periods than the window holds is a ValueError on the first call, not a bug.
            if not (delta > 0 and window_code == ctx.code(periods.value)):
                yield Rewrite(replacement=value, target=periods.value)
        default: str | None
        if window is not None and (isinstance(window.value, cst.SimpleString) or window_code is None):
            default = "1"  # a time-based window needs one observation by default
        else:
            default = _MIN_PERIOD_DEFAULTS.get(callee(node) or "", window_code)
        if ctx.code(periods.value) != default:
            yield Rewrite(replacement=without_arg(node, periods))
