"""Beyond-classic bugs of order: operands, indices or arguments that change places.

`a - b` for `b - a`, `X[i, j]` for `X[j, i]`, `np.where(m, b, a)` for `np.where(m, a, b)`: each
runs without complaint when both sides hold the same kind of value, which is exactly when the
swap is a plausible bug.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, leading_positional
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import annotation_kind, is_literal, similarity, value_kind
from bugsmith.mutators.families.beyond.usage import Usage, UsageCache
from bugsmith.mutators.family import Family

_ADDITIVE = (cst.Add, cst.Subtract)
_MULTIPLICATIVE = (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.MatrixMultiply)
# Operators that bind as tightly as the key one: `a - b - c` is `(a - b) - c`, so moving
# `a - b` to the right needs parentheses.
_SAME_LEVEL = {
    cst.Subtract: _ADDITIVE,
    cst.Divide: _MULTIPLICATIVE,
    cst.FloorDivide: _MULTIPLICATIVE,
    cst.MatrixMultiply: _MULTIPLICATIVE,
}
_NOT_ARRAYS = frozenset(
    {"r_", "c_", "s_", "index_exp", "tuple", "dict", "list", "set", "frozenset", "type",
     "Tuple", "Dict", "List", "Callable", "Mapping", "MutableMapping", "Union", "Literal",
     "Annotated", "Generator", "Iterator", "Iterable", "Sequence", "Optional"}
)
# Swapping the arguments of these changes nothing, or only makes a loud TypeError.
_NO_SWAP = frozenset(
    {"max", "min", "maximum", "minimum", "fmax", "fmin", "add", "multiply", "logical_and",
     "logical_or", "logical_xor", "hypot", "gcd", "lcm", "array_equal", "array_equiv", "equal",
     "not_equal", "intersect1d", "union1d", "setxor1d", "isclose", "allclose", "isinstance",
     "issubclass", "getattr", "setattr", "hasattr", "delattr", "super", "print", "format",
     "join", "map", "filter", "sum", "partial", "enumerate"}
)
# Arguments that are the receiver, a namespace or an option, never data of the same kind as
# their neighbour: `f(self, x)`, `xp.mean(X, axis)`, `g(*args, **kwargs)`.
_NOT_DATA = frozenset(
    {"self", "cls", "xp", "args", "kwargs", "axis", "dtype", "device", "ndim", "copy", "out"}
)


class SwapOperands(Mutator[cst.BinaryOperation]):
    """The operands of a non-commutative operator change places: `a - b` becomes `b - a`.

    Realistic: a difference taken the wrong way round (`t_end - t_start`), a ratio inverted,
    a matrix product in the wrong order. Comparisons are left to `classic/comparison-flip`:
    `b < a` behaves exactly as `a > b`, so proposing both would count one bug twice.
    """

    name = "beyond/swap-operands"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the operands are in the wrong order"
    matcher = m.BinaryOperation(operator=m.Subtract() | m.Divide() | m.FloorDivide() | m.MatrixMultiply())
    examples = (
        Example(
            before="def f(a, b, c, W, x):\n    return a - b - c, W @ x, (a + b) / c\n",
            after=(
                "def f(a, b, c, W, x):\n    return b - a - c, W @ x, (a + b) / c\n",
                "def f(a, b, c, W, x):\n    return c - (a - b), W @ x, (a + b) / c\n",
                "def f(a, b, c, W, x):\n    return a - b - c, x @ W, (a + b) / c\n",
                "def f(a, b, c, W, x):\n    return a - b - c, W @ x, c / (a + b)\n",
            ),
        ),
        Example(before="def f(n, x):\n    return n - 1, x / 2, 1 - x, x - x, n + x\n", after=()),
    )

    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        left, right = node.left, node.right
        if is_literal(left) or is_literal(right) or ctx.code(left).strip() == ctx.code(right).strip():
            return
        if m.matches(left, m.UnaryOperation()):
            return  # `-a - b` -> `b - -a` is not code anyone writes
        same_level = _SAME_LEVEL[type(node.operator)]
        if isinstance(left, cst.BinaryOperation) and not left.lpar and isinstance(left.operator, same_level):
            left = left.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        yield node.with_changes(left=right, right=left)


class SwapIndices(Mutator[cst.Subscript]):
    """A two-dimensional index is transposed: `X[i, j]` becomes `X[j, i]`.

    Realistic: row and column confused; on a square matrix nothing crashes. Labels (string
    keys of `.loc`) are left alone, since swapping them only makes a loud `KeyError`.
    """

    name = "beyond/swap-indices"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: rows and columns are swapped in the index"
    matcher = m.Subscript(slice=[m.SubscriptElement(), m.SubscriptElement()])
    examples = (
        Example(
            before="def f(X, i, j):\n    return X[i, j] + X[:, j]\n",
            after=(
                "def f(X, i, j):\n    return X[j, i] + X[:, j]\n",
                "def f(X, i, j):\n    return X[i, j] + X[j, :]\n",
            ),
        ),
        Example(before="def f(df, X, i):\n    return df.loc[i, 'a'], X[i, i], X[:, :], X[i]\n", after=()),
    )

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.CSTNode]:
        first, second = node.slice
        if ctx.function(node) is None or _not_an_array(node):
            return
        if ctx.code(first.slice).strip() == ctx.code(second.slice).strip():
            return
        label = m.Index(value=m.SimpleString() | m.ConcatenatedString() | m.FormattedString())
        if any(m.matches(element.slice, label) for element in node.slice):
            return
        swapped = [first.with_changes(slice=second.slice), second.with_changes(slice=first.slice)]
        yield node.with_changes(slice=swapped)


def _not_an_array(node: cst.Subscript) -> bool:
    """`np.r_[a, b]` concatenates and `dict[str, int]` is a type: neither has rows and columns."""
    value = node.value
    name = value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", None)
    if name in _NOT_ARRAYS:
        return True
    return any(m.matches(e.slice, m.Index(value=m.Ellipsis())) for e in node.slice)


class SwapArguments(Mutator[cst.Call]):
    """Two positional arguments of a call change places: `np.where(m, b, a)`, `range(hi, lo)`.

    Realistic: argument order is a convention to remember, and two arrays of the same shape
    go in either order without complaint. Only arguments of the same kind swap (two values,
    or two numeric constants), and only the most similar adjacent pair of each call.
    """

    name = "beyond/swap-arguments"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the call receives its arguments in the wrong order"
    matcher = m.Call()
    examples = (
        Example(
            before="def f(X, Y, go_left, left, right):\n    return np.where(go_left, left, right), fit(X, Y)\n",
            after=(
                "def f(X, Y, go_left, left, right):\n    return np.where(go_left, right, left), fit(X, Y)\n",
                "def f(X, Y, go_left, left, right):\n    return np.where(go_left, left, right), fit(Y, X)\n",
            ),
        ),
        # symmetric functions, mixed kinds (a value and a constant), keywords and strings
        Example(
            before="def f(a, b, n):\n"
                   "    return max(a, b), np.full(n, 0.0), g(a, axis=b), getattr(a, 'x'), h('a', 'b')\n",
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._usage = UsageCache()

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if callee(node) in _NO_SWAP and _local_definition(node, ctx) is None:
            return  # a symmetric library function; a function of this module (`gcd`) is ours
        args = leading_positional(node)
        kinds = _parameter_kinds(node, ctx)
        function = ctx.function(node)
        facts = self._usage.get(function) if function is not None else None
        pairs = [
            (i, ctx.code(a.value).strip(), ctx.code(b.value).strip())
            for i, (a, b) in enumerate(zip(args, args[1:]))
            if _swappable(a.value, b.value, ctx)
            and _same_kind(kinds[i : i + 2])
            and _same_kind([_kind(a.value, facts), _kind(b.value, facts)])
        ]
        if not pairs:
            return
        i, _, _ = max(pairs, key=lambda pair: (similarity(pair[1], pair[2]), -pair[0]))
        new_args = list(node.args)
        new_args[i] = args[i].with_changes(value=args[i + 1].value)
        new_args[i + 1] = args[i + 1].with_changes(value=args[i].value)
        yield node.with_changes(args=new_args)


class SwapElements(Mutator[cst.Tuple]):
    """Two values of a returned or assigned tuple change places: `return fpr, tpr` becomes
    `return tpr, fpr`, `exc_info = failure.type, failure.value, tb` becomes `failure.value,
    failure.type, tb`.

    Realistic: the order of a tuple is a convention the caller unpacks blind, and two values
    of one kind go either way without complaint (BugsInPy: scrapy 4). The same rules as
    `beyond/swap-arguments` (values of one kind, the most similar adjacent pair of each tuple),
    for names and attributes only: a computed value has its place written into its expression.
    """

    name = "beyond/swap-elements"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the values are packed in the wrong order"
    matcher = m.Tuple(elements=[m.Element(), m.Element(), m.ZeroOrMore(m.Element())])
    examples = (
        Example(
            before="def f(failure, fps, tps):\n    exc_info = failure.type, failure.value, failure.tb()\n"
                   "    return fps, tps\n",
            after=(
                "def f(failure, fps, tps):\n    exc_info = failure.value, failure.type, failure.tb()\n"
                "    return fps, tps\n",
                "def f(failure, fps, tps):\n    exc_info = failure.type, failure.value, failure.tb()\n"
                "    return tps, fps\n",
            ),
        ),
        # a value and a constant, two constants, one value twice, an argument, a swap idiom's targets, a star
        Example(
            before="def f(a, b, n):\n    x = a, 0\n    y = 'a', 'b'\n    z = a, a\n    g((a, b))\n"
                   "    a, b = n, n\n    return (*a, b)\n",
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._usage = UsageCache()

    def mutate(self, node: cst.Tuple, ctx: Context) -> Iterator[cst.CSTNode]:
        parent = ctx.parent(node)
        packed = isinstance(parent, cst.Return) or (isinstance(parent, cst.Assign) and parent.value is node)
        function = ctx.function(node)
        if not packed or function is None or any(isinstance(e, cst.StarredElement) for e in node.elements):
            return
        facts = self._usage.get(function)
        pairs = [
            (i, ctx.code(a.value).strip(), ctx.code(b.value).strip())
            for i, (a, b) in enumerate(zip(node.elements, node.elements[1:]))
            if _swappable(a.value, b.value, ctx) and _named(a.value) and _named(b.value)
            and _same_kind([_kind(a.value, facts), _kind(b.value, facts)])
        ]
        if not pairs:
            return
        i, _, _ = max(pairs, key=lambda pair: (similarity(pair[1], pair[2]), -pair[0]))
        elements = list(node.elements)
        elements[i] = node.elements[i].with_changes(value=node.elements[i + 1].value)
        elements[i + 1] = node.elements[i + 1].with_changes(value=node.elements[i].value)
        yield node.with_changes(elements=elements)


def _named(value: cst.BaseExpression) -> bool:
    """`fpr`, `failure.type`: a value known by its name."""
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, cst.Name)


def _kind(value: cst.BaseExpression, facts: Usage | None) -> str | None:
    """What `value` holds, from its syntax or, for a local name, from what was bound to it."""
    if isinstance(value, cst.Name) and facts is not None:
        return facts.kind(value.value)
    return value_kind(value)


def _last_name(node: cst.BaseExpression) -> str | None:
    """`axis` for `axis` and `self.axis`: the name that says what an argument is."""
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else None


def _same_kind(kinds: list[str | None]) -> bool:
    return len(kinds) < 2 or None in kinds or kinds[0] == kinds[1]


def _parameter_kinds(call: cst.Call, ctx: Context) -> list[str | None]:
    """For a call of a function defined in this module, the annotated kind of each positional
    parameter (`Request`, `number`, ...), so that `fits(request, budget)` is not swapped."""
    definition = _local_definition(call, ctx)
    if definition is None:
        return [None] * len(call.args)
    params = [*definition.params.posonly_params, *definition.params.params]
    if isinstance(call.func, cst.Attribute):
        params = params[1:]  # `self`
    kinds = [annotation_kind(p.annotation.annotation) if p.annotation else None for p in params]
    return kinds + [None] * (len(call.args) - len(kinds))


def _local_definition(call: cst.Call, ctx: Context) -> cst.FunctionDef | None:
    """The module-level function `f` of `f(...)`, or the method `m` of `self.m(...)`."""
    body: Sequence[cst.CSTNode]
    if isinstance(call.func, cst.Name):
        body = ctx.module.body
    elif m.matches(call.func, m.Attribute(value=m.Name("self"))):
        cls = next((a for a in ctx.ancestors(call) if isinstance(a, cst.ClassDef)), None)
        body = cls.body.body if cls is not None else ()
    else:
        return None
    name = callee(call)
    return next((d for d in body if isinstance(d, cst.FunctionDef) and d.name.value == name), None)


def _swappable(a: cst.BaseExpression, b: cst.BaseExpression, ctx: Context) -> bool:
    if ctx.code(a).strip() == ctx.code(b).strip() or isinstance(a, cst.Lambda) or isinstance(b, cst.Lambda):
        return False
    if _last_name(a) in _NOT_DATA or _last_name(b) in _NOT_DATA:
        return False
    if is_literal(a) != is_literal(b):
        return False
    numeric = (cst.Integer, cst.Float, cst.UnaryOperation)
    return not is_literal(a) or (isinstance(a, numeric) and isinstance(b, numeric))
