"""Beyond-classic bugs of where an argument goes: crossed between two calls, or in the wrong one.

`max(vmin, vmax, oldmax), min(vmin, vmax, oldmin)` where each bound belongs with the other
reduction, `settings.get(NEW, settings.get(OLD))` that asks the fallback first, and
`enumerate(wrap(items, start))` where `start` was `enumerate`'s: the right names in the right
statement, each passed to the wrong call. BugsInPy fixes three of the first two kinds
(matplotlib 24 and 26, scrapy 35) and one of the last (tqdm 1).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, leading_positional, replaced_arg, with_arg, without_arg
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# Functions whose nested calls give one answer in any order: crossing them changes nothing.
_ASSOCIATIVE = frozenset(
    {"max", "min", "maximum", "minimum", "fmax", "fmin", "add", "multiply", "logical_and", "logical_or",
     "logical_xor", "gcd", "lcm", "hypot", "union1d", "intersect1d", "setxor1d"}
)


# What may cross: a name, a dotted name, a constant, each with its own kind. A crossed call or
# expression is a rewrite, not a slip.
def _simple(node: cst.BaseExpression) -> str | None:
    """The class of a value that may cross ("name", "string", "number"), or None."""
    if isinstance(node, cst.Attribute):
        return "name" if _simple(node.value) == "name" else None
    if isinstance(node, cst.Name):
        return "name"
    if isinstance(node, cst.SimpleString):
        return "string"
    return "number" if isinstance(node, (cst.Integer, cst.Float)) else None


def _one_difference(first: Sequence[cst.Arg], second: Sequence[cst.Arg], ctx: Context) -> int | None:
    """The one position where two argument lists differ, both there a simple value of one
    syntactic class; None when they differ in no position, in several, or in something else."""
    differ = [i for i, (a, b) in enumerate(zip(first, second))
              if ctx.code(a.value).strip() != ctx.code(b.value).strip()]
    if len(differ) != 1:
        return None
    kind = _simple(first[differ[0]].value)
    return differ[0] if kind is not None and kind == _simple(second[differ[0]].value) else None


def _crossed(first: cst.Call, second: cst.Call, at: int) -> tuple[cst.Call, cst.Call]:
    a, b = leading_positional(first)[at], leading_positional(second)[at]
    return replaced_arg(first, a, b.value), replaced_arg(second, b, a.value)


class CrossedArguments(Mutator[cst.Call]):
    """Two calls side by side, alike but for one argument, get each other's: `max(a, b, oldmin),
    min(a, b, oldmax)` becomes `max(a, b, oldmax), min(a, b, oldmin)`; a fallback chain
    `d.get(NEW, d.get(OLD))` asks in the wrong order, `d.get(OLD, d.get(NEW))`.

    Realistic: when two calls are written as a pair, which of two names goes with which call is
    one more thing to remember, and both orders run (BugsInPy: matplotlib 24 and 26, scrapy 35).
    Only calls of one argument list (the arguments a call passes to another of the same
    function, or two different functions passed side by side to one call) that differ in
    exactly one simple argument cross; two calls of one function side by side are left alone,
    since crossing them is swapping the calls (`beyond/swap-arguments`).
    """

    name = "beyond/crossed-arguments"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: each call got the argument meant for the other"
    matcher = m.Call(args=[m.ZeroOrMore(), m.Arg(value=m.Call()), m.ZeroOrMore()])
    examples = (
        Example(
            before="def f(self, vmin, vmax, oldmin, oldmax):\n"
                   "    setter(self, max(vmin, vmax, oldmin), min(vmin, vmax, oldmax), ignore=True)\n",
            after=("def f(self, vmin, vmax, oldmin, oldmax):\n"
                   "    setter(self, max(vmin, vmax, oldmax), min(vmin, vmax, oldmin), ignore=True)\n",),
        ),
        Example(
            before="def f(settings):\n"
                   "    return settings.get('SPIDER_MANAGER_CLASS', settings.get('SPIDER_LOADER_CLASS'))\n",
            after=("def f(settings):\n"
                   "    return settings.get('SPIDER_LOADER_CLASS', settings.get('SPIDER_MANAGER_CLASS'))\n",),
        ),
        # one function twice side by side; two differences; a constant against a name; other
        # functions nested; a symmetric function nested in itself
        Example(
            before="def f(a, b, c, lo, hi, d):\n"
                   "    g(h(a, lo), h(a, hi)), g(max(a, lo), min(b, hi)), g(max(a, 0), min(a, hi))\n"
                   "    return d.get('x', np.mean(b)), round(abs(a), c), np.maximum(a, np.maximum(b, c))\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None:
            return
        outer = leading_positional(node)
        function = ctx.code(node.func).strip()
        nested = callee(node) not in _ASSOCIATIVE  # `max(a, max(b, c))` crossed is the same maximum
        for i, arg in enumerate(outer if nested else ()):
            inner = arg.value
            if isinstance(inner, cst.Call) and ctx.code(inner.func).strip() == function:
                at = _one_difference(outer[:i], leading_positional(inner), ctx)
                if at is not None:
                    a, b = outer[at], leading_positional(inner)[at]
                    crossed = replaced_arg(inner, b, a.value)
                    yield replaced_arg(replaced_arg(node, arg, crossed), a, b.value)
        for first, second in zip(outer, outer[1:]):
            yield from self._side_by_side(node, first, second, ctx)

    @staticmethod
    def _side_by_side(node: cst.Call, first: cst.Arg, second: cst.Arg, ctx: Context) -> Iterator[cst.Call]:
        one, two = first.value, second.value
        if not (isinstance(one, cst.Call) and isinstance(two, cst.Call)):
            return
        if ctx.code(one.func).strip() == ctx.code(two.func).strip():
            return
        args_one, args_two = leading_positional(one), leading_positional(two)
        if len(args_one) != len(args_two) or len(args_one) < 2 or len(one.args) != len(two.args):
            return
        at = _one_difference(args_one, args_two, ctx)
        if at is not None:
            new_one, new_two = _crossed(one, two, at)
            yield replaced_arg(replaced_arg(node, first, new_one), second, new_two)


class MisplacedArgument(Mutator[cst.Call]):
    """A call's last argument slips inside the call before it: `enumerate(wrap(items), start)`
    becomes `enumerate(wrap(items, start))`, `round(np.mean(x), 2)` becomes `round(np.mean(x, 2))`.

    Realistic: a closing parenthesis one argument too late is the slip of nested calls, and the
    inner function often takes one more positional argument (BugsInPy: tqdm 1, where `start`
    became the wrapped iterable's `desc`). Only a last positional argument that is a name or a
    constant moves (a call or an expression has its place in sight), after the inner call's own
    positional ones, and only into a call that has some.
    """

    name = "beyond/misplaced-argument"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the argument went to the inner call"
    matcher = m.Call(args=[m.ZeroOrMore(), m.Arg(value=m.Call(), keyword=None, star=""), m.Arg(keyword=None, star="")])
    examples = (
        Example(
            before="def f(tqdm_class, iterable, start, kw):\n"
                   "    return enumerate(tqdm_class(iterable, **kw), start)\n",
            after=("def f(tqdm_class, iterable, start, kw):\n"
                   "    return enumerate(tqdm_class(iterable, start, **kw))\n",),
        ),
        Example(
            before="def f(x):\n    return round(np.mean(x), 2)\n",
            after=("def f(x):\n    return round(np.mean(x, 2))\n",),
        ),
        # a keyword last; an inner call without positional arguments; a single argument; a call last
        Example(
            before="def f(x, k):\n    return sorted(set(x), key=k), g(h(), k), len(list(x)), g(h(x), h(k))\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None or len(node.args) != len(leading_positional(node)):
            return
        holder, moved = node.args[-2], node.args[-1]
        inner = cst.ensure_type(holder.value, cst.Call)  # as matched
        kept = leading_positional(inner)
        if not kept or _simple(moved.value) is None or any(arg.star == "*" for arg in inner.args):
            return
        shorter = without_arg(node, moved)
        yield replaced_arg(shorter, shorter.args[-1], _inserted(inner, len(kept), moved.value))


def _inserted(call: cst.Call, at: int, value: cst.BaseExpression) -> cst.Call:
    """`call` with the positional `value` after its first `at` arguments (its positional ones)."""
    if at == len(call.args):
        return with_arg(call, cst.Arg(value=value))
    new = cst.Arg(value=value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*call.args[:at], new, *call.args[at:]])
