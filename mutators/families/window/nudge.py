"""One more or one less, written as a person would write it: what every window mutator proposes.

`n - 1` nudged becomes `n` or `n - 2`, never `n - 1 + 1`; a literal stays a literal. Shared by
the rolling-window and the range, slice and comparison bound mutators of this family.
"""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.analysis.expressions import int_value, respaced

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
    offset = sign * int(cst.ensure_type(expr.right, cst.Integer).evaluated_value) + delta  # as `nudged` checked
    if offset == 0:
        return expr.left
    operator = cst.Add if offset > 0 else cst.Subtract
    return expr.with_changes(operator=respaced(expr.operator, operator), right=cst.Integer(str(abs(offset))))
