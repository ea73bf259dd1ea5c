"""Classic mutation operators, as in mutmut, cosmic-ray and PIT, but only the plausible swaps.

Each operator changes one token the way a person mistypes or misremembers it: `+` for `-`,
`<` for `<=`, `and` for `or`, a dropped `not`, a constant off by one. Swaps that only make
absurd code are left out: arithmetic on string, list or tuple literals (concatenation and
`%` formatting), constants that make an identity (`x + 0`, `x * 1`), seeds and verbosity
levels, `while True` loops. When a rewrite's validity is doubtful, nothing is proposed.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from mutators.base import Example, Mutator, Rewrite
from mutators.context import Context
from mutators.mutant import Family

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
}
_AUGMENTED_SWAPS: dict[type, tuple[type, ...]] = {
    cst.AddAssign: (cst.SubtractAssign,),
    cst.SubtractAssign: (cst.AddAssign,),
    cst.MultiplyAssign: (cst.DivideAssign,),
    cst.DivideAssign: (cst.MultiplyAssign,),
    cst.FloorDivideAssign: (cst.DivideAssign,),
    cst.BitAndAssign: (cst.BitOrAssign,),
    cst.BitOrAssign: (cst.BitAndAssign,),
}
_BOUNDARY = {
    cst.LessThan: cst.LessThanEqual, cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.GreaterThan,
}
_DIRECTION = {
    cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual,
}
# Arguments whose value is configuration, not logic: changing a seed or a verbosity level is
# not a bug, and a copy flag rarely changes a result.
_CONFIG_KEYWORDS = frozenset(
    {"seed", "random_state", "random_seed", "n_jobs", "verbose", "verbosity", "stacklevel",
     "copy", "debug", "quiet", "flush"}
)
_SEEDING_CALLS = frozenset({"seed", "default_rng", "RandomState", "manual_seed", "Random", "sleep"})
_SMALL = 10  # larger constants are sizes and limits, where +-1 is rarely a bug a test can see


def _operator(old: cst.CSTNode, new_type: type) -> cst.CSTNode:
    """An operator of `new_type` that keeps the whitespace around `old`."""
    return new_type(whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after)


def _is_config_value(node: cst.CSTNode, ctx: Context) -> bool:
    """Is `node` the value of a seed, verbosity or copy argument or parameter default?"""
    parent = ctx.parent(node)
    if isinstance(parent, cst.Arg):
        if parent.keyword is not None:
            return parent.keyword.value in _CONFIG_KEYWORDS
        call = ctx.parent(parent)
        func = getattr(call, "func", None)
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        return name in _SEEDING_CALLS
    if isinstance(parent, cst.Param):
        return parent.name.value in _CONFIG_KEYWORDS
    return False


class ArithmeticSwap(Mutator):
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
            yield node.with_changes(operator=_operator(node.operator, new_type))


class AugmentedSwap(Mutator):
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
            yield node.with_changes(operator=_operator(node.operator, new_type))


class ComparisonBoundary(Mutator):
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
        new_type = _BOUNDARY.get(type(node.operator))
        if new_type is not None:
            yield node.with_changes(operator=_operator(node.operator, new_type))


class ComparisonFlip(Mutator):
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
            yield node.with_changes(operator=_operator(node.operator, new_type))


class ComparisonNegate(Mutator):
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
        before, after = op.whitespace_before, op.whitespace_after
        between = cst.SimpleWhitespace(" ")
        new: cst.CSTNode | None = None
        if isinstance(op, (cst.Equal, cst.NotEqual)):
            new = _operator(op, cst.NotEqual if isinstance(op, cst.Equal) else cst.Equal)
        elif isinstance(op, cst.Is):
            new = cst.IsNot(whitespace_before=before, whitespace_between=between, whitespace_after=after)
        elif isinstance(op, cst.IsNot):
            new = cst.Is(whitespace_before=before, whitespace_after=after)
        elif isinstance(op, cst.In):
            new = cst.NotIn(whitespace_before=before, whitespace_between=between, whitespace_after=after)
        elif isinstance(op, cst.NotIn):
            new = cst.In(whitespace_before=before, whitespace_after=after)
        if new is not None:
            yield node.with_changes(operator=new)


class AndOr(Mutator):
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
        yield node.with_changes(operator=_operator(op, new_type))


class DropUnary(Mutator):
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


def _number(node: cst.CSTNode) -> int | float | None:
    """The value of a small decimal constant (`3`, `-1`, `2.0`), or None for anything else."""
    sign = 1
    if isinstance(node, cst.UnaryOperation):
        if not isinstance(node.operator, cst.Minus):
            return None
        sign, node = -1, node.expression
    if isinstance(node, cst.Integer) and node.value.isdigit():
        value: int | float = int(node.value)
    elif isinstance(node, cst.Float) and "e" not in node.value.lower():
        value = float(node.value)
        if not value.is_integer():
            return None
    else:
        return None
    return sign * value if value <= _SMALL else None


def _is_identity(node: cst.CSTNode, value: float, ctx: Context) -> bool:
    """Would `value` in place of `node` make a no-op such as `x + 0`, `x * 1` or `x += 0`?"""
    parent = ctx.parent(node)
    if isinstance(parent, cst.BinaryOperation):
        op = parent.operator
        if value == 0 and isinstance(op, cst.Add | cst.Subtract):
            return parent.right is node or isinstance(op, cst.Add)
        if value == 1 and isinstance(op, cst.Multiply):
            return True
        if value == 1 and isinstance(op, cst.Divide | cst.FloorDivide | cst.Power):
            return parent.right is node
    if isinstance(parent, cst.AugAssign):
        op = parent.operator
        return (value == 0 and isinstance(op, cst.AddAssign | cst.SubtractAssign)) or (
            value == 1 and isinstance(op, cst.MultiplyAssign | cst.DivideAssign | cst.FloorDivideAssign)
        )
    return False


def _shape_index(node: cst.CSTNode, ctx: Context) -> bool:
    """Is `node` the index in `x.shape[k]`, where only the axes that exist make sense?"""
    index = ctx.parent(node)
    element = ctx.parent(index) if isinstance(index, cst.Index) else None
    subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
    return isinstance(subscript, cst.Subscript) and m.matches(
        subscript.value, m.Attribute(attr=m.Name("shape"))
    )


def _render_number(node: cst.CSTNode, value: int | float) -> cst.CSTNode:
    text = str(abs(value)) if isinstance(value, int) else repr(abs(float(value)))
    literal = cst.Integer(value=text) if isinstance(value, int) else cst.Float(value=text)
    if value < 0:
        operator = node.operator if isinstance(node, cst.UnaryOperation) else cst.Minus()
        new: cst.CSTNode = cst.UnaryOperation(operator=operator, expression=literal)
    else:
        new = literal
    return new.with_changes(lpar=node.lpar, rpar=node.rpar)


class NumberChange(Mutator):
    """A small constant `n` becomes `n - 1` or `n + 1` (`0` becomes `1`).

    Realistic: an off-by-one in an axis, an index, a degree of freedom or a start value. Only
    constants up to 10 change: larger ones are sizes and limits where one more or less is rarely
    a bug that any test could see. Seeds and verbosity levels are configuration, not logic.
    """

    name = "classic/number"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the constant is off by one"
    matcher = m.Integer() | m.Float() | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())
    examples = (
        Example(
            before="def f(x):\n    return x.std(ddof=1), x[-1]\n",
            after=(
                "def f(x):\n    return x.std(ddof=0), x[-1]\n",
                "def f(x):\n    return x.std(ddof=2), x[-1]\n",
                "def f(x):\n    return x.std(ddof=1), x[-2]\n",
                "def f(x):\n    return x.std(ddof=1), x[0]\n",
            ),
        ),
        Example(
            before="def f(x, n):\n    return x.shape[1] * 2.0 + n\n",
            after=(
                "def f(x, n):\n    return x.shape[0] * 2.0 + n\n",
                "def f(x, n):\n    return x.shape[1] * 3.0 + n\n",
            ),
        ),
        # identities (`n + 0`), seeds, large limits and hex masks are not proposed
        Example(
            before="def f(n, rng=np.random.default_rng(0)):\n    return n + 1, fit(random_state=1), 1000, 0x1\n",
            after=("def f(n, rng=np.random.default_rng(0)):\n    return n + 2, fit(random_state=1), 1000, 0x1\n",),
        ),
    )

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        if isinstance(node, (cst.Integer, cst.Float)) and m.matches(parent, m.UnaryOperation(operator=m.Minus())):
            return  # the signed constant is the site
        value = _number(node)
        if value is None or _is_config_value(node, ctx):
            return
        candidates = [1] if value == 0 else [value - 1, value + 1]
        if _shape_index(node, ctx):
            candidates = [new for new in candidates if 0 <= new <= max(value, 1)]
        for new in candidates:
            if not _is_identity(node, new, ctx):
                yield _render_number(node, new)


class TrueFalse(Mutator):
    """`True` becomes `False` and back, in an argument, a default or an assignment.

    Realistic: a flag such as `keepdims`, `ascending`, `inplace` or `drop` set the wrong way.
    Returned booleans are `classic/return-bool`; `while True` and copy or verbosity flags are
    left alone, since flipping them makes an infinite-loop skip or no difference.
    """

    name = "classic/true-false"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the flag is set the wrong way"
    matcher = m.Name("True") | m.Name("False")
    examples = (
        Example(
            before="def f(df):\n    done = False\n    return df.sort_values('t', ascending=True), done\n",
            after=(
                "def f(df):\n    done = True\n    return df.sort_values('t', ascending=True), done\n",
                "def f(df):\n    done = False\n    return df.sort_values('t', ascending=False), done\n",
            ),
        ),
        Example(
            before="def f(x):\n    while True:\n        return x.copy(copy=False) or True\n",
            after=("def f(x):\n    while True:\n        return x.copy(copy=False) or False\n",),
        ),
        Example(before="def f():\n    return True\n", after=()),
    )

    def mutate(self, node: cst.Name, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        if isinstance(parent, (cst.While, cst.Return, cst.Assert)) or _is_config_value(node, ctx):
            return
        yield node.with_changes(value="False" if node.value == "True" else "True")


def _function_returns_values(node: cst.Return, ctx: Context) -> bool:
    function = ctx.function(node)
    if function is None or function.name.value.startswith("__"):
        return False  # dunders must return their type: `None` there is a loud TypeError
    return not m.findall(function.body, m.Yield(), metadata_resolver=None) or not _in_generator(function)


def _in_generator(function: cst.FunctionDef) -> bool:
    """Does `function` itself (not a function nested in it) yield?"""
    nested = {id(y) for inner in m.findall(function.body, m.FunctionDef() | m.Lambda())
              for y in m.findall(inner, m.Yield())}
    return any(id(y) not in nested for y in m.findall(function.body, m.Yield()))


class ReturnNone(Mutator):
    """`return result` becomes `return None`: the function forgets to hand back its result.

    Realistic: a result built in place and never returned, or a return lost in a refactor;
    the caller gets `None`, which often flows on until far from the bug. Generators and dunder
    methods are skipped.
    """

    name = "classic/return-none"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the function no longer returns its result"
    matcher = m.Return(value=m.DoesNotMatch(m.Name("None") | m.Name("True") | m.Name("False")) & ~m.MatchIfTrue(lambda v: v is None))
    examples = (
        Example(
            before="def f(x):\n    if x:\n        return None\n    return(x + 1)\n",
            after=("def f(x):\n    if x:\n        return None\n    return None\n",),
        ),
        Example(
            before="def f(x):\n    yield x\n    return x\n\nclass A:\n    def __len__(self):\n        return 0\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        if node.value is None or not _function_returns_values(node, ctx):
            return
        space = node.whitespace_after_return
        if isinstance(space, cst.SimpleWhitespace) and not space.value:
            space = cst.SimpleWhitespace(" ")
        yield node.with_changes(value=cst.Name("None"), whitespace_after_return=space)


class ReturnBool(Mutator):
    """`return True` becomes `return False`, and back: a predicate answers the opposite."""

    name = "classic/return-bool"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the predicate now answers the opposite in this case"
    matcher = m.Return(value=m.Name("True") | m.Name("False"))
    examples = (
        Example(
            before="def f(x):\n    if x < 0:\n        return False\n    return True\n",
            after=(
                "def f(x):\n    if x < 0:\n        return True\n    return True\n",
                "def f(x):\n    if x < 0:\n        return False\n    return False\n",
            ),
        ),
        Example(before="def f(x):\n    return x\n", after=()),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        value = node.value
        yield node.with_changes(value=value.with_changes(value="False" if value.value == "True" else "True"))


class BreakContinue(Mutator):
    """`break` becomes `continue`, and back: a loop that should stop goes on, or stops early."""

    name = "classic/break-continue"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the loop goes on where it should stop, or stops where it should go on"
    matcher = m.Break() | m.Continue()
    examples = (
        Example(
            before="def f(xs):\n    for x in xs:\n        if x:\n            break\n    return x\n",
            after=("def f(xs):\n    for x in xs:\n        if x:\n            continue\n    return x\n",),
        ),
        Example(before="def f(xs):\n    for x in xs:\n        pass\n", after=()),
    )

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        new_type = cst.Continue if isinstance(node, cst.Break) else cst.Break
        yield new_type(semicolon=node.semicolon)


MUTATORS = (
    ArithmeticSwap,
    AugmentedSwap,
    ComparisonBoundary,
    ComparisonFlip,
    ComparisonNegate,
    AndOr,
    DropUnary,
    NumberChange,
    TrueFalse,
    ReturnNone,
    ReturnBool,
    BreakContinue,
)
