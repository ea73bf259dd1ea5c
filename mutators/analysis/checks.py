"""Whether a condition is a check that refuses an input, and which way round it is written.

A check is the test of an `if` whose block raises (`if x.ndim != 2: raise ValueError(...)`) or
of an `assert`. The same comparison means the opposite under a `not`, or in an `assert` (which
states what is accepted), so the mutators that loosen or tighten a check by one case read its
polarity here.
"""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.context import Context


def _raises(block: cst.BaseSuite) -> bool:
    """The block ends in a `raise`: the input it was entered for is refused."""
    if isinstance(block, cst.SimpleStatementSuite):
        return isinstance(block.body[-1], cst.Raise)
    last = block.body[-1] if block.body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


def refuses_when_true(node: cst.BaseExpression, ctx: Context) -> bool | None:
    """True when `node` being true refuses the input, False when it accepts it, None when `node`
    is no part of a check's condition (or sits under a call, a comparison or a conditional
    expression there, whose value is not the check's)."""
    negations = 0
    child: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.If):
            if child is not ancestor.test or not _raises(ancestor.body):
                return None
            return negations % 2 == 0
        if isinstance(ancestor, cst.Assert):
            return None if child is not ancestor.test else negations % 2 == 1
        if isinstance(ancestor, cst.UnaryOperation) and isinstance(ancestor.operator, cst.Not):
            negations += 1
        elif not isinstance(ancestor, cst.BooleanOperation):
            return None
        child = ancestor
    return None


def in_condition(node: cst.BaseExpression, ctx: Context) -> bool:
    """`node` is the test of an `if`, `elif`, `while` or `assert`, alone or under `not`, `and`, `or`."""
    child: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, (cst.If, cst.While, cst.Assert)):
            return child is ancestor.test
        if not isinstance(ancestor, cst.BooleanOperation) and not (
            isinstance(ancestor, cst.UnaryOperation) and isinstance(ancestor.operator, cst.Not)
        ):
            return False
        child = ancestor
    return False
