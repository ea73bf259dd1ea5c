"""Window bugs: a window, a range or a slice is one element too long or too short.

Off-by-one errors at the edge of a window are the classic silent bug of time-series and
scheduling code: the numbers stay plausible, only the first or last element of each window is
wrong. Bounds are matched by syntax (rolling calls, `range`, slices, comparisons against
limit-like names), never by our own file or function names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families._calls import boundary_flips, callee, int_value, keyword, positional, spelled_out, without_arg
from bugsmith.mutators.mutant import Family

# Operands that bind tighter than `+`, so `e + 1` means (e) + 1 without parentheses.
_TIGHT = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)
_TIGHT_OPERATORS = (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def nudged(
    expr: cst.BaseExpression, *, floor: int = 1, from_end: bool = True
) -> list[tuple[int, cst.BaseExpression]]:
    """`expr - 1` and `expr + 1` as `(delta, expression)`, written as a person would write them.

    `n - 1` becomes `n` or `n - 2`, not `n - 1 + 1`. A literal is never taken below `floor`,
    and a negative literal counting `from_end` (an index) never reaches zero; an expression
    whose precedence is unclear gives nothing.
    """
    value = int_value(expr)
    if value is not None:
        return [
            (delta, _literal(expr, value + delta))
            for delta in (-1, 1)
            if (value + delta < 0 if value < 0 and from_end else value + delta >= floor)
        ]
    if (
        isinstance(expr, cst.BinaryOperation)
        and isinstance(expr.operator, (cst.Add, cst.Subtract))
        and isinstance(expr.right, cst.Integer)
        and not expr.lpar
    ):
        return [(delta, _with_offset(expr, delta)) for delta in (-1, 1)]
    tight = (
        isinstance(expr, _TIGHT)
        or (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _TIGHT_OPERATORS))
        or (isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not))
    )
    if not (tight or expr.lpar):
        return []
    return [
        (delta, cst.BinaryOperation(left=expr, operator=operator, right=cst.Integer("1")))
        for delta, operator in ((-1, cst.Subtract()), (1, cst.Add()))
    ]


def _literal(original: cst.BaseExpression, value: int) -> cst.BaseExpression:
    literal: cst.BaseExpression = cst.Integer(str(abs(value)))
    if value < 0:
        literal = cst.UnaryOperation(operator=cst.Minus(), expression=literal)
    return literal


def _with_offset(expr: cst.BinaryOperation, delta: int) -> cst.BaseExpression:
    """`left ± k` shifted by `delta`: `n - 1` → `n` or `n - 2`, `i + 1` → `i` or `i + 2`."""
    sign = 1 if isinstance(expr.operator, cst.Add) else -1
    offset = sign * int(expr.right.evaluated_value) + delta
    if offset == 0:
        return expr.left
    operator = cst.Add if offset > 0 else cst.Subtract
    return expr.with_changes(
        operator=operator(
            whitespace_before=expr.operator.whitespace_before,
            whitespace_after=expr.operator.whitespace_after,
        ),
        right=cst.Integer(str(abs(offset))),
    )


class WindowSize(Mutator):
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
                after=("def f(s, w):\n    return s.rolling(w - 1).mean()\n", "def f(s, w):\n    return s.rolling(w + 1).mean()\n")),
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


class MinPeriods(Mutator):
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
        Example(before="def f(s):\n    return s.expanding(min_periods=1).mean(), s.rolling('2D', min_periods=1).sum()\n",
                after=("def f(s):\n    return s.expanding(min_periods=2).mean(), s.rolling('2D', min_periods=1).sum()\n",
                       "def f(s):\n    return s.expanding(min_periods=1).mean(), s.rolling('2D', min_periods=2).sum()\n")),
        Example(before="def f(s, w):\n    if isinstance(w, str):\n        return s.rolling(w, min_periods=1).sum()\n",
                after=("def f(s, w):\n    if isinstance(w, str):\n        return s.rolling(w, min_periods=2).sum()\n",)),
        Example(before="def f(df, s):\n    return df.corr(min_periods=3), s.rolling(3).mean()\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        periods = keyword(node, "min_periods")
        window = (keyword(node, "window") or positional(node, 0)) if callee(node) == "rolling" else None
        window_code = ctx.code(window.value) if window else None
        if window is not None and _known_string(window.value, ctx):
            window_code = None  # an offset such as "7D": `min_periods` defaults to 1
        for delta, value in nudged(periods.value, floor=1):
            # More periods than the window holds is a ValueError on the first call, not a bug.
            if not (delta > 0 and window_code == ctx.code(periods.value)):
                yield Rewrite(replacement=value, target=periods.value)
        if window is not None and (isinstance(window.value, cst.SimpleString) or window_code is None):
            default = "1"  # a time-based window needs one observation by default
        else:
            default = _MIN_PERIOD_DEFAULTS.get(callee(node) or "", window_code)
        if ctx.code(periods.value) != default:
            yield Rewrite(replacement=without_arg(node, periods))


class RangeBound(Mutator):
    """`range(a, b)` becomes `range(a ± 1, b)` or `range(a, b ± 1)`: a loop skips or adds an index.

    Realistic: whether the last index is `n`, `n - 1` or `n + 1` is the oldest off-by-one
    question; a loop over windows or time steps that stops one early still returns numbers.
    """

    name = "window/range-bound"
    family = Family.WINDOW
    explanation = (
        "`{original}` became `{mutated}`: the loop now starts or stops one index off, skipping "
        "the first or last step or running one past it"
    )
    matcher = m.Call(func=m.Name("range"), args=[m.AtLeastN(n=1)])
    examples = (
        Example(before="def f(n):\n    for i in range(n):\n        yield i\n",
                after=("def f(n):\n    for i in range(n - 1):\n        yield i\n", "def f(n):\n    for i in range(n + 1):\n        yield i\n")),
        Example(before="def f(x):\n    return [x[i] for i in range(1, len(x) - 1)]\n",
                after=("def f(x):\n    return [x[i] for i in range(0, len(x) - 1)]\n",
                       "def f(x):\n    return [x[i] for i in range(2, len(x) - 1)]\n",
                       "def f(x):\n    return [x[i] for i in range(1, len(x))]\n",
                       "def f(x):\n    return [x[i] for i in range(1, len(x) - 2)]\n")),
        Example(before="def f(n):\n    return range(n - 1, -1, -1), range(0, n, 2)\n",
                after=("def f(n):\n    return range(n, -1, -1), range(0, n, 2)\n",
                       "def f(n):\n    return range(n - 2, -1, -1), range(0, n, 2)\n",
                       "def f(n):\n    return range(n - 1, 0, -1), range(0, n, 2)\n",
                       "def f(n):\n    return range(n - 1, -1, -1), range(1, n, 2)\n",
                       "def f(n):\n    return range(n - 1, -1, -1), range(0, n - 1, 2)\n",
                       "def f(n):\n    return range(n - 1, -1, -1), range(0, n + 1, 2)\n")),
        Example(before="def f(xs):\n    return range(*xs), range(a if xs else b), range(n, step=2)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if any(arg.keyword is not None or arg.star for arg in node.args) or len(node.args) > 3:
            return
        if len(node.args) == 1:
            bounds = [(node.args[0], 1)]
        else:
            step = int_value(node.args[2].value) if len(node.args) == 3 else 1
            # Counting down, `range(n - 1, -1, -1)` stops before -1: 0 is the buggy neighbour.
            bounds = [(node.args[0], 0), (node.args[1], -1 if step is not None and step < 0 else 1)]
        for arg, floor in bounds:
            for _, value in nudged(arg.value, floor=floor, from_end=False):
                yield Rewrite(replacement=value, target=arg.value)


class SliceBound(Mutator):
    """`x[a:b]` becomes `x[a ± 1:b]` or `x[a:b ± 1]`: a window includes or misses one element.

    Realistic: `x[t - w:t]` versus `x[t - w + 1:t + 1]` is exactly where window code goes wrong;
    the slice still has data in it, just one element too early, too late, too long or too short.
    """

    name = "window/slice-bound"
    family = Family.WINDOW
    explanation = (
        "`{original}` became `{mutated}`: the slice now starts or ends one element off, so the "
        "window gains or loses its first or last element"
    )
    matcher = m.Slice()
    examples = (
        Example(before="def f(x, w):\n    return x[-w:]\n",
                after=("def f(x, w):\n    return x[-w - 1:]\n", "def f(x, w):\n    return x[-w + 1:]\n")),
        Example(before="def f(x, t):\n    return x[t - 3 : t + 1]\n",
                after=("def f(x, t):\n    return x[t - 4 : t + 1]\n", "def f(x, t):\n    return x[t - 2 : t + 1]\n",
                       "def f(x, t):\n    return x[t - 3 : t]\n", "def f(x, t):\n    return x[t - 3 : t + 2]\n")),
        Example(before="def f(x):\n    return x[1:] - x[:-1]\n",
                after=("def f(x):\n    return x[0:] - x[:-1]\n", "def f(x):\n    return x[2:] - x[:-1]\n",
                       "def f(x):\n    return x[1:] - x[:-2]\n", "def f(x):\n    return x[1:] - x[:]\n")),
        Example(before="def f(x):\n    return x[:1], x[None:k]\n",
                after=("def f(x):\n    return x[:2], x[None:k]\n",
                       "def f(x):\n    return x[:1], x[None:k - 1]\n",
                       "def f(x):\n    return x[:1], x[None:k + 1]\n")),
        Example(before="def f(x):\n    return x[::2], x[:], x['a':'b'], x[a if c else b :]\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Slice, ctx: Context) -> Iterator[Rewrite]:
        if node.lower is not None and not m.matches(node.lower, m.Name("None")):
            for _, value in nudged(node.lower, floor=0):
                yield Rewrite(replacement=value, target=node.lower)
        if node.upper is not None and not m.matches(node.upper, m.Name("None")):
            for _, value in nudged(node.upper, floor=1):
                yield Rewrite(replacement=value, target=node.upper)
            if int_value(node.upper) == -1:  # `x[:-1]` dropping the last element forgets to
                yield node.with_changes(upper=None)


# Words that mark a quantity as a bound, a limit, a size or a position: comparing one of them is
# where `<` versus `<=` decides whether the element at the edge is in or out.
_BOUND_WORDS = frozenset(
    "window win size len length limit budget max min maximum minimum start end stop lo low hi high"
    " bound cap capacity idx index pos position offset count num begin first last upper lower"
    " width horizon lag deadline step steps remaining total head tail room quota cutoff period"
    " periods left right".split()
)
_INDEX_NAMES = frozenset({"i", "j", "k", "n", "m", "t"})
_WORD_SPLIT = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")


def _is_bound_name(identifier: str) -> bool:
    if identifier in _INDEX_NAMES:
        return True
    words = [word.lower() for word in _WORD_SPLIT.split(identifier) if word]
    return any(word in _BOUND_WORDS or word.rstrip("s") in _BOUND_WORDS for word in words)


def is_bound(expr: cst.BaseExpression) -> bool:
    """Whether `expr` reads as a length, limit, index or window edge."""
    if isinstance(expr, cst.Name):
        return _is_bound_name(expr.value)
    if isinstance(expr, cst.Attribute):
        return _is_bound_name(expr.attr.value)
    if isinstance(expr, cst.Call):
        return callee(expr) in ("len", "min", "max") or (
            isinstance(expr.func, cst.Attribute) and _is_bound_name(expr.func.attr.value)
        )
    if isinstance(expr, cst.Subscript):
        return is_bound(expr.value)
    if isinstance(expr, cst.BinaryOperation):
        return is_bound(expr.left) or is_bound(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return is_bound(expr.expression)
    return False


class BoundaryComparison(Mutator):
    """`i < limit` becomes `i <= limit` (and `>` ↔ `>=`): the element at the edge changes side.

    Realistic: whether a budget may be met exactly, or a window includes its end, is decided by
    one character; the code behaves the same everywhere except exactly at the limit.
    """

    name = "window/boundary-comparison"
    family = Family.WINDOW
    explanation = (
        "`{original}` became `{mutated}`: the value exactly at the limit now falls on the "
        "other side of the boundary (off by one)"
    )
    matcher = m.Comparison()
    examples = (
        Example(before="def f(used, max_tokens):\n    return used + 1 <= max_tokens\n",
                after=("def f(used, max_tokens):\n    return used + 1 < max_tokens\n",)),
        Example(before="def f(x, i):\n    return 0 <= i < len(x)\n",
                after=("def f(x, i):\n    return 0 < i < len(x)\n", "def f(x, i):\n    return 0 <= i <= len(x)\n")),
        Example(before="def f(self, t):\n    return self.windowStart >  t\n",
                after=("def f(self, t):\n    return self.windowStart >=  t\n",)),
        Example(before="def f(score, p):\n    return score > 0.5 and p <= q and score == n and temperature > 0\n", after=()),
    )

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[cst.Comparison]:
        yield from boundary_flips(node, is_bound)


MUTATORS = (WindowSize, MinPeriods, RangeBound, SliceBound, BoundaryComparison)
