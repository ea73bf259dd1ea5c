"""Undo edits of one argument: a keyword put back (`keepdims=True`, `axis=1`, `kind="mergesort"`,
`min_periods=2`, `encoding="utf-8"`), or an argument a forward operator added taken out.

Which keyword a call may have lost is read from the call's name: the keywords that matter to
numpy and pandas reductions, sorts and windows are few, and every reader of such code knows
them. A keyword whose value is a name takes a parameter or local the function never reads.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import PART, Undo, unused_names
from bugsmith.mutators.analysis.arguments import (
    callee,
    keyword,
    keyword_arg,
    leading_positional,
    positional,
    replaced_arg,
    with_arg,
    without_arg,
)
from bugsmith.mutators.analysis.expressions import int_value
from bugsmith.mutators.analysis.receivers import is_module_call
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_REDUCTIONS = frozenset("""sum mean max min std var prod median any all amax amin average nanmean nansum nanmax
nanmin nanstd nanvar nanmedian nanprod""".split())
_AXIS_CALLS = _REDUCTIONS | frozenset("""argmax argmin cumsum cumprod sort argsort concat diff quantile percentile
count nunique flip unique expand_dims squeeze stack""".split())
_SORTS = frozenset({"argsort", "sort", "sort_values", "sort_index", "lexsort"})
_WEIGHTED = ("sample_weight", "weights", "weight")

# keyword -> the values to try, by the called name
_KEYWORDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "std": (("ddof", ("0", "1")),), "var": (("ddof", ("0", "1")),),
    "open": (("encoding", ("'utf-8'",)),),
    "rolling": (("closed", ("'left'",)),),
    "sort_values": (("ascending", ("False",)),), "sort_index": (("ascending", ("False",)),),
    "concat": (("axis", ("'columns'", "'index'")),),
}


def _added(node: cst.Call, name: str, value: str, ctx: Context) -> list[cst.Call]:
    """`node` with `name=value` last, and before its other keywords if it has any."""
    if keyword(node, name) is not None:
        return []
    arg = keyword_arg(name, ctx.expression(value))
    found = [with_arg(node, arg)]
    first = next((i for i, each in enumerate(node.args) if each.keyword is not None), None)
    if first is not None:
        spaced = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        found.append(node.with_changes(args=[*node.args[:first], spaced, *node.args[first:]]))
    return found


class AddKeyword(Undo[cst.Call]):
    """A keyword put back on a call that needs it: `x.max(axis=1)` -> `x.max(axis=1, keepdims=True)`."""

    name = "undo/add-keyword"
    family = Family.BEYOND
    tier = PART
    matcher = m.Call()

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if not self.here(node, ctx):
            return
        name = callee(node)
        if name is None:
            return
        found: list[cst.Call] = []
        if name in _REDUCTIONS:
            found += _added(node, "keepdims", "True", ctx)
        if name in _AXIS_CALLS and keyword(node, "axis") is None:
            for value in ("0", "1", "-1"):
                found += _added(node, "axis", value, ctx)
            positional = leading_positional(node)
            wanted = 1 if is_module_call(node, ctx) else 0
            if len(positional) == wanted and len(positional) == len(node.args):
                found.extend(with_arg(node, cst.Arg(value=ctx.expression(value))) for value in ("0", "1", "-1"))
        if name in _SORTS:
            for key, value in (("kind", '"mergesort"'), ("kind", '"stable"'), ("stable", "True")):
                found += _added(node, key, value, ctx)
        if name in ("rolling", "expanding"):
            window = leading_positional(node)
            for value in ["1", "2", "3"] + ([ctx.code(window[0].value)] if window else []):
                found += _added(node, "min_periods", value, ctx)
        for key, values in _KEYWORDS.get(name, ()):
            for value in values:
                found += _added(node, key, value, ctx)
        function = ctx.function(node)
        if function is not None and node.args:
            for unused in unused_names(function):
                for key in _WEIGHTED:
                    found += _added(node, key, unused, ctx)
        yield from found


class AxisBack(Undo[cst.Call]):
    """An axis back to another: `x.sum(axis=0)` -> `x.sum(axis=-1)` (shape/swap-axis's other way)."""

    name = "undo/axis-back"
    family = Family.SHAPE
    matcher = m.Call()

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if not self.here(node, ctx) or callee(node) not in _AXIS_CALLS:
            return
        axis = keyword(node, "axis")
        if axis is None:
            axis = positional(node, 1 if is_module_call(node, ctx) else 0)
        if axis is None or int_value(axis.value) is None:
            return
        for value in ("0", "1", "-1"):
            if int_value(axis.value) != int(value):
                yield replaced_arg(node, axis, ctx.expression(value))


class RemoveArgument(Undo[cst.Call]):
    """An argument a forward operator added taken out: `center=True`, `reverse=True`,
    `method="ordinal"`, `direction="forward"`, or the last of a method's positional ones."""

    name = "undo/remove-argument"
    family = Family.BEYOND
    tier = PART
    matcher = m.Call(args=[m.AtLeastN(n=1)])

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if not self.here(node, ctx):
            return
        for arg in node.args:
            if arg.keyword is not None:
                yield without_arg(node, arg)
        positional = leading_positional(node)
        if positional and not is_module_call(node, ctx) and isinstance(node.func, cst.Attribute):
            yield without_arg(node, positional[-1])


class ArgumentOut(Undo[cst.Call]):
    """An argument taken out of the inner call it slipped into: `enumerate(wrap(items, start))`
    becomes `enumerate(wrap(items), start)` (beyond/misplaced-argument)."""

    name = "undo/argument-out"
    family = Family.BEYOND
    tier = PART
    matcher = m.Call(args=[m.ZeroOrMore(), m.Arg(value=m.Call(), keyword=None, star="")])

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        holder = node.args[-1]
        inner = cst.ensure_type(holder.value, cst.Call)  # as matched
        kept = leading_positional(inner)
        if not self.here(node, ctx) or len(kept) < 2 or len(node.args) != len(leading_positional(node)):
            return
        out = kept[-1]
        shorter = without_arg(inner, out)
        yield with_arg(replaced_arg(node, holder, shorter), cst.Arg(value=out.value))
