"""Classic mutations of a constant or a flag: a small number off by one, `True` for `False`.

Only small constants change by one (`axis=1`, `ddof=0`, `x[-1]`); seeds, verbosity and copy
flags are configuration, and `x + 0` or `x * 1` is not code anyone writes.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# Arguments whose value is configuration, not logic: changing a seed or a verbosity level is
# not a bug, and a copy flag rarely changes a result.
_CONFIG_KEYWORDS = frozenset(
    {"seed", "random_state", "random_seed", "n_jobs", "verbose", "verbosity", "stacklevel",
     "copy", "debug", "quiet", "flush"}
)
_SEEDING_CALLS = frozenset({"seed", "default_rng", "RandomState", "manual_seed", "Random", "sleep"})
_SMALL = 10  # larger constants are sizes and limits, where +-1 is rarely a bug a test can see


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
        update = parent.operator
        return (value == 0 and isinstance(update, cst.AddAssign | cst.SubtractAssign)) or (
            value == 1 and isinstance(update, cst.MultiplyAssign | cst.DivideAssign | cst.FloorDivideAssign)
        )
    return False


def _is_axis(node: cst.CSTNode, ctx: Context) -> bool:
    """Is `node` an axis number (`x.shape[k]`, `axis=k`), where only existing axes make sense?"""
    parent = ctx.parent(node)
    if isinstance(parent, cst.Arg):
        return parent.keyword is not None and parent.keyword.value == "axis"
    element = ctx.parent(parent) if isinstance(parent, cst.Index) else None
    subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
    return isinstance(subscript, cst.Subscript) and m.matches(
        subscript.value, m.Attribute(attr=m.Name("shape"))
    )


def _render_number(node: cst.Integer | cst.Float | cst.UnaryOperation, value: int | float) -> cst.CSTNode:
    text = str(abs(value)) if isinstance(value, int) else repr(abs(float(value)))
    literal = cst.Integer(value=text) if isinstance(value, int) else cst.Float(value=text)
    if value < 0:
        operator = node.operator if isinstance(node, cst.UnaryOperation) else cst.Minus()
        new: cst.CSTNode = cst.UnaryOperation(operator=operator, expression=literal)
    else:
        new = literal
    return new.with_changes(lpar=node.lpar, rpar=node.rpar)


class NumberChange(Mutator[cst.Integer | cst.Float | cst.UnaryOperation]):
    """A small constant `n` becomes `n - 1` or `n + 1` (`0` becomes `1`).

    Realistic: an off-by-one in an axis, an index, a degree of freedom or a start value. Only
    constants up to 10 change: larger ones are sizes and limits where one more or less is rarely
    a bug that any test could see. Seeds and verbosity levels are configuration, not logic.
    """

    name = "classic/number"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the constant is off by one"
    matcher = (
        m.Integer() | m.Float() | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())
    )
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
            before="def f(x, n):\n    return x.shape[1] * 2.0 + x.sum(axis=0)\n",
            after=(
                "def f(x, n):\n    return x.shape[0] * 2.0 + x.sum(axis=0)\n",
                "def f(x, n):\n    return x.shape[1] * 3.0 + x.sum(axis=0)\n",
                "def f(x, n):\n    return x.shape[1] * 2.0 + x.sum(axis=1)\n",
            ),
        ),
        # `n + 0` is no code anyone writes
        Example(before="def f(n):\n    return n + 1\n", after=("def f(n):\n    return n + 2\n",)),
        # seeds, large limits, hex masks and fractions are not proposed
        Example(
            before="def f(rng=np.random.default_rng(0)):\n    return fit(random_state=1), 1000, 0x1, 0.5, 1e-9\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Integer | cst.Float | cst.UnaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        negated = isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus)
        if isinstance(node, (cst.Integer, cst.Float)) and negated:
            return  # the signed constant is the site
        value = _number(node)
        if value is None or _is_config_value(node, ctx):
            return
        candidates = [value + 1] if value == 0 else [value - 1, value + 1]
        if value >= 0 and _is_axis(node, ctx):  # axis 2 of a matrix is a crash, not a bug
            candidates = [new for new in candidates if new <= max(value, 1)]
        for new in candidates:
            if not _is_identity(node, new, ctx):
                yield _render_number(node, new)


class TrueFalse(Mutator[cst.Name]):
    """`True` becomes `False` and back, in an argument, a default or an assignment.

    Realistic: a flag such as `keepdims`, `ascending`, `inplace` or `drop` set the wrong way.
    Returned booleans are `classic/return-bool`; `while True` and copy or verbosity flags are
    left alone, since flipping them makes an infinite-loop skip or no difference.
    """

    name = "classic/true-false"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the flag is set the wrong way"
    # one matcher, not `m.Name("True") | m.Name("False")`: the engine would dispatch each
    # `Name` to this mutator once per alternative and make every mutant twice
    matcher = m.Name(value=m.MatchIfTrue(lambda value: value in ("True", "False")))
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
