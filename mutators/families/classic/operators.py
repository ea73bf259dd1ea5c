"""Classic mutations of an operator: arithmetic, comparison, boolean and unary.

Each changes one token the way a person mistypes or misremembers it (`+` for `-`, `<` for `<=`,
`and` for `or`, a dropped `not`); `+`, `*` and `%` on strings, lists and tuples are
concatenation, repetition and formatting, and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.expressions import BOUNDARY_FLIP, respaced
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# Operands whose `+`, `*` or `%` is concatenation, repetition or formatting, never arithmetic.
_NON_NUMERIC = (
    cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple,
    cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
)
_BINARY_SWAPS: dict[type, tuple[type, ...]] = {
    cst.Add: (cst.Subtract,),
    cst.Subtract: (cst.Add,),
    cst.Multiply: (cst.Divide,),
    cst.Divide: (cst.Multiply, cst.FloorDivide),
    cst.FloorDivide: (cst.Divide,),
    cst.Modulo: (cst.FloorDivide,),  # remainder for quotient, as in a flat index split
    cst.Power: (cst.Multiply,),
    cst.MatrixMultiply: (cst.Multiply,),  # matrix product for an elementwise one
    cst.BitAnd: (cst.BitOr,),  # boolean masks: `&` and `|` combine conditions
    cst.BitOr: (cst.BitAnd,),
    cst.BitXor: (cst.BitAnd, cst.BitOr),  # bit tricks: `^` toggles, `&` keeps, `|` sets
    cst.LeftShift: (cst.RightShift,),
    cst.RightShift: (cst.LeftShift,),
}
_AUGMENTED_SWAPS: dict[type, tuple[type, ...]] = {
    cst.AddAssign: (cst.SubtractAssign,),
    cst.SubtractAssign: (cst.AddAssign,),
    cst.MultiplyAssign: (cst.DivideAssign,),
    cst.DivideAssign: (cst.MultiplyAssign,),
    cst.FloorDivideAssign: (cst.DivideAssign,),
    cst.BitAndAssign: (cst.BitOrAssign, cst.BitXorAssign),  # `n &= n - 1` -> `n ^= n - 1`
    cst.BitOrAssign: (cst.BitAndAssign, cst.BitXorAssign),
    cst.BitXorAssign: (cst.BitAndAssign, cst.BitOrAssign),
    cst.ModuloAssign: (cst.FloorDivideAssign,),
    cst.PowerAssign: (cst.MultiplyAssign,),
    cst.LeftShiftAssign: (cst.RightShiftAssign,),
    cst.RightShiftAssign: (cst.LeftShiftAssign,),
}
_DIRECTION = {
    cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual,
}


class ArithmeticSwap(Mutator[cst.BinaryOperation]):
    """`a + b` becomes `a - b`, `a / b` becomes `a * b` or `a // b`, and the like.

    Realistic: the sign of a correction term, the direction of a normalisation and integer
    versus true division are each one keystroke, and most tests only check a few values.
    """

    name = "classic/arithmetic-swap"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the expression computes with the wrong arithmetic operator"
    matcher = m.BinaryOperation()
    examples = (
        Example(
            before="def f(a, b):\n    return (a - b) / b\n",
            after=(
                "def f(a, b):\n    return (a + b) / b\n",
                "def f(a, b):\n    return (a - b) * b\n",
                "def f(a, b):\n    return (a - b) // b\n",
            ),
        ),
        Example(
            before="def f(mask, valid, i, n):\n    return x[mask & valid], i % n, w @ v\n",
            after=(
                "def f(mask, valid, i, n):\n    return x[mask | valid], i % n, w @ v\n",
                "def f(mask, valid, i, n):\n    return x[mask & valid], i // n, w @ v\n",
                "def f(mask, valid, i, n):\n    return x[mask & valid], i % n, w * v\n",
            ),
        ),
        # concatenation, repetition and formatting are not arithmetic
        Example(
            before="def f(name, n):\n    return 'id-' + name, [0] * n, '%d' % n, (n,) + (1,)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(node.left, _NON_NUMERIC) or isinstance(node.right, _NON_NUMERIC):
            return
        for new_type in _BINARY_SWAPS.get(type(node.operator), ()):
            yield node.with_changes(operator=respaced(node.operator, new_type))


class AugmentedSwap(Mutator[cst.AugAssign]):
    """`total += x` becomes `total -= x`, `scale *= k` becomes `scale /= k`, and the like.

    Realistic: an accumulator updated in the wrong direction, as when a refund is added to a
    balance or a decay factor divides instead of multiplies.
    """

    name = "classic/augmented-swap"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the running value is updated with the wrong operator"
    matcher = m.AugAssign()
    examples = (
        Example(
            before="def f(xs):\n    total = 0\n    for x in xs:\n        total += x  # sum\n    return total\n",
            after=("def f(xs):\n    total = 0\n    for x in xs:\n        total -= x  # sum\n    return total\n",),
        ),
        Example(before="def f(parts, s):\n    parts += [s]\n    s += '!'\n", after=()),
    )

    def mutate(self, node: cst.AugAssign, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(node.value, _NON_NUMERIC):
            return
        for new_type in _AUGMENTED_SWAPS.get(type(node.operator), ()):
            yield node.with_changes(operator=respaced(node.operator, new_type))


class ComparisonBoundary(Mutator[cst.ComparisonTarget]):
    """`a < b` becomes `a <= b` and back, `>` likewise: the boundary case lands on the wrong side.

    Realistic: the classic off-by-one; whether a limit is inclusive is the detail people get
    wrong in capacity checks, window ends and thresholds.
    """

    name = "classic/comparison-boundary"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the boundary value now falls on the wrong side of the comparison"
    matcher = m.ComparisonTarget()
    examples = (
        Example(
            before="def f(used, cost, budget):\n    return used + cost <= budget\n",
            after=("def f(used, cost, budget):\n    return used + cost < budget\n",),
        ),
        Example(before="def f(a, b):\n    return a == b or a is b\n", after=()),
    )

    def mutate(self, node: cst.ComparisonTarget, ctx: Context) -> Iterator[cst.CSTNode]:
        new_type = BOUNDARY_FLIP.get(type(node.operator))
        if new_type is not None:
            yield node.with_changes(operator=respaced(node.operator, new_type))


class ComparisonFlip(Mutator[cst.ComparisonTarget]):
    """`a < b` becomes `a > b`, `a <= b` becomes `a >= b`: the comparison points the wrong way.

    Realistic: a minimum tracked with `>`, a descending sort assumed ascending.
    """

    name = "classic/comparison-flip"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the comparison now points the wrong way"
    matcher = m.ComparisonTarget()
    examples = (
        Example(
            before="def f(x, best):\n    if x < best:\n        best = x\n    return best\n",
            after=("def f(x, best):\n    if x > best:\n        best = x\n    return best\n",),
        ),
        Example(before="def f(x, y):\n    return x != y\n", after=()),
    )

    def mutate(self, node: cst.ComparisonTarget, ctx: Context) -> Iterator[cst.CSTNode]:
        new_type = _DIRECTION.get(type(node.operator))
        if new_type is not None:
            yield node.with_changes(operator=respaced(node.operator, new_type))


class ComparisonNegate(Mutator[cst.ComparisonTarget]):
    """`==` becomes `!=`, `is` becomes `is not`, `in` becomes `not in`, and back.

    Realistic: a negation lost or added while a condition is rewritten, such as
    `if x is None` where `if x is not None` was meant.
    """

    name = "classic/comparison-negate"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the condition now tests the opposite"
    matcher = m.ComparisonTarget()
    examples = (
        Example(
            before="def f(x, seen):\n    return x is None or x in seen\n",
            after=(
                "def f(x, seen):\n    return x is not None or x in seen\n",
                "def f(x, seen):\n    return x is None or x not in seen\n",
            ),
        ),
        Example(
            before="def f(a, b):\n    return a != b\n",
            after=("def f(a, b):\n    return a == b\n",),
        ),
        Example(before="def f(a, b):\n    return a < b\n", after=()),
    )

    def mutate(self, node: cst.ComparisonTarget, ctx: Context) -> Iterator[cst.CSTNode]:
        op = node.operator
        between = cst.SimpleWhitespace(" ")
        new: cst.CSTNode | None = None
        if isinstance(op, (cst.Equal, cst.NotEqual)):
            new = respaced(op, cst.NotEqual if isinstance(op, cst.Equal) else cst.Equal)
        elif isinstance(op, cst.Is):
            new = cst.IsNot(
                whitespace_before=op.whitespace_before, whitespace_between=between, whitespace_after=op.whitespace_after
            )
        elif isinstance(op, cst.IsNot):
            new = cst.Is(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
        elif isinstance(op, cst.In):
            new = cst.NotIn(
                whitespace_before=op.whitespace_before, whitespace_between=between, whitespace_after=op.whitespace_after
            )
        elif isinstance(op, cst.NotIn):
            new = cst.In(whitespace_before=op.whitespace_before, whitespace_after=op.whitespace_after)
        if new is not None:
            yield node.with_changes(operator=new)


class AndOr(Mutator[cst.BooleanOperation]):
    """`a and b` becomes `a or b`, and back.

    Realistic: "both" and "either" confused in a guard, so the branch runs on half the cases
    it should, or on twice as many.
    """

    name = "classic/and-or"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the condition combines its parts with the wrong connective"
    matcher = m.BooleanOperation()
    examples = (
        Example(
            before="def f(q, ok):\n    while q and ok(q[0]):\n        q.pop()\n",
            after=("def f(q, ok):\n    while q or ok(q[0]):\n        q.pop()\n",),
        ),
        Example(before="def f(a, b):\n    return a & b\n", after=()),
    )

    def mutate(self, node: cst.BooleanOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        op = node.operator
        new_type = cst.Or if isinstance(op, cst.And) else cst.And
        yield node.with_changes(operator=respaced(op, new_type))


class DropUnary(Mutator[cst.UnaryOperation]):
    """`not x`, `-x` and `~mask` lose their operator.

    Realistic: a negation forgotten in a condition, a sign dropped from a gradient step, or a
    mask that should have been inverted (`df[~seen]`) used as it is.
    """

    name = "classic/drop-unary"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the value is used without its negation"
    matcher = m.UnaryOperation(operator=m.Not() | m.Minus() | m.BitInvert())
    examples = (
        Example(
            before="def f(df, seen, g):\n    if not df.empty:\n        return df[~seen], -g\n",
            after=(
                "def f(df, seen, g):\n    if df.empty:\n        return df[~seen], -g\n",
                "def f(df, seen, g):\n    if not df.empty:\n        return df[seen], -g\n",
                "def f(df, seen, g):\n    if not df.empty:\n        return df[~seen], g\n",
            ),
        ),
        # a negative constant is a constant, changed by `classic/number`
        Example(before="def f(x):\n    return x[-1] + x.reshape(-1, 1)\n", after=()),
    )

    def mutate(self, node: cst.UnaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float)):
            return
        operand = node.expression
        if node.lpar and not operand.lpar:
            operand = operand.with_changes(lpar=node.lpar, rpar=node.rpar)
        yield operand
