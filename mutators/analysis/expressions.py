"""Literal values read from the tree, and replacement nodes that read as a person wrote them.

A replacement keeps the spacing of the operator it replaces and gains parentheses only where it
would otherwise bind differently, so the mutant differs from the original in the bug alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, cast

import libcst as cst

from bugsmith.mutators.context import Context

_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
    cst.SimpleString, cst.List, cst.Dict, cst.Set,
)
# Where an operand may stand without parentheses whatever its precedence.
_LOOSE_PARENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Element,
    cst.Expr, cst.Index, cst.DictElement,
)


def in_place_of(original: cst.BaseExpression, new: cst.BaseExpression, ctx: Context) -> cst.BaseExpression:
    """`new`, parenthesised when it would otherwise bind differently where `original` stood."""
    if original.lpar:
        return new.with_changes(lpar=[*original.lpar, *new.lpar], rpar=[*new.rpar, *original.rpar])
    if new.lpar or isinstance(new, _ATOMS) or isinstance(ctx.parent(original), _LOOSE_PARENTS):
        return new
    return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def read_for_truth(node: cst.CSTNode, ctx: Context) -> bool:
    """Whether only `node`'s truth is read: an `if`'s, `while`'s or `assert`'s test, the operand
    of `not`, or an operand of `and`/`or` that stands in such a place."""
    parent = ctx.parent(node)
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)):
        return parent.test is node
    if isinstance(parent, cst.UnaryOperation):
        return isinstance(parent.operator, cst.Not)
    if isinstance(parent, cst.BooleanOperation):
        return read_for_truth(parent, ctx)
    return False


def int_value(expr: cst.BaseExpression) -> int | None:
    """The value of an integer literal, `-1` included; None for anything else."""
    if isinstance(expr, cst.Integer) and not expr.lpar:
        return int(expr.evaluated_value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, cst.Integer)
    ):
        return -int(expr.expression.evaluated_value)
    return None


def with_text(string: cst.SimpleString, text: str) -> cst.SimpleString:
    """`string` holding `text` instead, with its own prefix and quotes."""
    return string.with_changes(value=string.prefix + string.quote + text + string.quote)


class _Spaced(Protocol):
    """An operator token with whitespace on both sides: every binary, comparison, boolean and
    augmented operator. libcst declares the two fields on each operator class, not on the bases
    (`BaseBinaryOp`, ...) that a node's `operator` is typed as."""

    @property
    def whitespace_before(self) -> cst.BaseParenthesizableWhitespace: ...

    @property
    def whitespace_after(self) -> cst.BaseParenthesizableWhitespace: ...


def respaced(old: cst.CSTNode, new_type: type) -> cst.CSTNode:
    """An operator of `new_type` that keeps the whitespace around the operator `old`."""
    spaced = cast(_Spaced, old)  # every operator passed here has both fields (see `_Spaced`)
    return new_type(whitespace_before=spaced.whitespace_before, whitespace_after=spaced.whitespace_after)


# `<` <-> `<=` and `>` <-> `>=`: whether the value exactly at a limit is in or out.
BOUNDARY_FLIP: dict[type, type] = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
}


def boundary_flips(
    node: cst.Comparison, involved: Callable[[cst.BaseExpression], bool]
) -> Iterator[cst.Comparison]:
    """`<` <-> `<=` and `>` <-> `>=`, one comparison at a time, where an operand is `involved`."""
    left = node.left
    for index, target in enumerate(node.comparisons):
        flip = BOUNDARY_FLIP.get(type(target.operator))
        if flip is not None and (involved(left) or involved(target.comparator)):
            comparisons = list(node.comparisons)
            comparisons[index] = target.with_changes(operator=respaced(target.operator, flip))
            yield node.with_changes(comparisons=comparisons)
        left = target.comparator
