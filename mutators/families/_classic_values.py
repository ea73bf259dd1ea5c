"""Part of the classic family: a constant, a flag, a returned value or a loop jump changed.

Only small constants change by one (`axis=1`, `ddof=0`, `x[-1]`); seeds, verbosity and copy
flags are configuration, and `x + 0` or `x * 1` is not code anyone writes.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.mutant import Family

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
        op = parent.operator
        return (value == 0 and isinstance(op, cst.AddAssign | cst.SubtractAssign)) or (
            value == 1 and isinstance(op, cst.MultiplyAssign | cst.DivideAssign | cst.FloorDivideAssign)
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

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        negated = m.matches(parent, m.UnaryOperation(operator=m.Minus()))
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


class TrueFalse(Mutator):
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


def _returns_values(node: cst.Return, ctx: Context) -> bool:
    """Is `node` in a function whose callers use what it returns?"""
    function = ctx.function(node)
    if function is None or function.name.value.startswith("__"):
        return False  # dunders must return their type: `None` there is a loud TypeError
    return not _is_generator(function)


class _YieldFinder(cst.CSTVisitor):
    """Finds a `yield` of the visited function itself, not of a function nested in it."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Yield, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            self.found = self.found or isinstance(node, cst.Yield)
            return False
        return not self.found


def _is_generator(function: cst.FunctionDef) -> bool:
    finder = _YieldFinder()
    function.body.visit(finder)
    return finder.found


class ReturnNone(Mutator):
    """`return result` becomes `return None`: the function forgets to hand back its result.

    Realistic: a result built in place and never returned, or a return lost in a refactor;
    the caller gets `None`, which often flows on until far from the bug. Generators and dunder
    methods are skipped.
    """

    name = "classic/return-none"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the function no longer returns its result"
    matcher = m.Return(value=~m.Name("None") & ~m.Name("True") & ~m.Name("False"))
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
        if node.value is None or not _returns_values(node, ctx):
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
