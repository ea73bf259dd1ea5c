"""Window bugs at a bound: a range or slice end one element off, a `<` that should be `<=`.

Whether the last index is `n`, `n - 1` or `n + 1`, and whether a limit may be met exactly, is
decided by one token; a loop that stops one early, or a window that misses its last element,
still returns numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import boundary_flips, int_value
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.window.nudge import nudged
from bugsmith.mutators.family import Family


class RangeBound(Mutator[cst.Call]):
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
                after=("def f(n):\n    for i in range(n - 1):\n        yield i\n",
                       "def f(n):\n    for i in range(n + 1):\n        yield i\n")),
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


class SliceBound(Mutator[cst.Slice]):
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
    def mutate(self, node: cst.Slice, ctx: Context) -> Iterator[Rewrite | cst.Slice]:
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


def _is_bound_name(identifier: str) -> bool:
    if identifier in _INDEX_NAMES:
        return True
    return any(word in _BOUND_WORDS or word.rstrip("s") in _BOUND_WORDS for word in words(identifier))


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


class BoundaryComparison(Mutator[cst.Comparison]):
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
        Example(before="def f(score, p):\n"
                       "    return score > 0.5 and p <= q and score == n and temperature > 0\n", after=()),
    )

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[cst.Comparison]:
        yield from boundary_flips(node, is_bound)
