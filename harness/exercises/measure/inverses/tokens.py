"""Undo edits of one token: a negation put back, an operator, a method, a string or a sentinel
turned back into what the forward operators turn into it, a `± 1` put back.

The engine's own operators already undo each other where a swap goes both ways (`<` and `<=`,
`any` and `all`); these are the other way of the one-way ones (`popleft` became `pop`, `not`
was dropped, `+ 1` left out).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import TOKEN, Undo, bare, is_value, unused_names
from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.expressions import in_place_of, read_for_truth, respaced
from bugsmith.mutators.analysis.receivers import is_namespace
from bugsmith.mutators.base import Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_SPACE = cst.SimpleWhitespace(" ")
_BOOLEAN_HOLDERS = m.If() | m.While() | m.IfExp() | m.Assert() | m.BooleanOperation()


class InsertNot(Undo[cst.CSTNode]):
    """A condition negated: `if self._fits(r):` becomes `if not self._fits(r):`."""

    name = "undo/insert-not"
    family = Family.CLASSIC
    matcher = _BOOLEAN_HOLDERS

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        if isinstance(node, cst.BooleanOperation):
            tests = [node.left, node.right]
        elif isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)):
            tests = [node.test]
        else:
            return
        for test in tests:
            if m.matches(test, m.UnaryOperation(operator=m.Not())):
                continue
            operand = test
            if isinstance(bare(test), (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)) and not test.lpar:
                operand = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            yield Rewrite(target=test, replacement=cst.UnaryOperation(operator=cst.Not(whitespace_after=_SPACE),
                                                                       expression=operand))


def _negated(node: cst.BaseExpression, operator: cst.BaseUnaryOp) -> cst.UnaryOperation:
    """`node` under `operator`, parenthesised unless an atom (and unwrapped of needless parentheses)."""
    operand = node
    if not isinstance(bare(node), (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not node.lpar:
        operand = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    elif node.lpar and isinstance(bare(node), (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        operand = bare(node)
    return cst.UnaryOperation(operator=operator, expression=operand)


class InsertInvert(Undo[cst.CSTNode]):
    """A mask inverted: `df[seen]` becomes `df[~seen]`, `a & b` becomes `a & ~b`."""

    name = "undo/insert-invert"
    family = Family.CLASSIC
    matcher = m.Index() | m.BinaryOperation(operator=m.BitAnd() | m.BitOr()) | m.Call()

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        if isinstance(node, cst.Index):
            operands = [node.value]
        elif isinstance(node, cst.BinaryOperation):
            operands = [node.left, node.right]
        elif isinstance(node, cst.Call) and callee(node) == "where":
            first = positional(node, 0)
            operands = [first.value] if first is not None else []
        else:
            return
        for operand in operands:
            if isinstance(bare(operand), (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Comparison)) and not (
                    isinstance(operand, cst.Name) and is_namespace(operand, ctx)):
                yield Rewrite(target=operand, replacement=_negated(operand, cst.BitInvert()))


class InsertMinus(Undo[cst.CSTNode]):
    """A value's sign put back: `return g` becomes `return -g`, `argsort(s)` becomes `argsort(-s)`."""

    name = "undo/insert-minus"
    family = Family.CLASSIC
    tier = TOKEN + 1  # any value may take a sign: after the edits of one marked token
    matcher = m.Name() | m.Attribute() | m.Subscript() | m.Call()

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx) or not isinstance(node, cst.BaseExpression):
            return
        parent = ctx.parent(node)
        if not is_value(node, ctx) or isinstance(parent, (cst.Attribute, cst.Subscript, cst.UnaryOperation)):
            return
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Power) and parent.left is node:
            return
        if isinstance(parent, (cst.Index,)) or m.matches(node, m.Name("self")):
            return
        yield Rewrite(target=node, replacement=_negated(node, cst.Minus()))


# The other way of each one-way operator swap of classic/arithmetic-swap and augmented-swap.
_BINARY_BACK: dict[type, tuple[type, ...]] = {
    cst.Multiply: (cst.Power, cst.MatrixMultiply), cst.FloorDivide: (cst.Modulo,),
    cst.BitAnd: (cst.BitXor,), cst.BitOr: (cst.BitXor,),
}
_AUGMENTED_BACK: dict[type, tuple[type, ...]] = {
    cst.DivideAssign: (cst.FloorDivideAssign,), cst.FloorDivideAssign: (cst.ModuloAssign,),
    cst.MultiplyAssign: (cst.PowerAssign,),
}


class OperatorBack(Undo[cst.CSTNode]):
    """`a * b` becomes `a @ b` or `a ** b`, `//` becomes `%`: the one-way swaps, taken back."""

    name = "undo/operator-back"
    family = Family.CLASSIC
    matcher = m.BinaryOperation() | m.AugAssign()

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[cst.CSTNode]:
        if not self.here(node, ctx):
            return
        if isinstance(node, cst.BinaryOperation):
            for new_type in _BINARY_BACK.get(type(node.operator), ()):
                yield node.with_changes(operator=respaced(node.operator, new_type))
        elif isinstance(node, cst.AugAssign):
            for new_type in _AUGMENTED_BACK.get(type(node.operator), ()):
                yield node.with_changes(operator=respaced(node.operator, new_type))


# A method back to what a forward operator turned into it (sibling-call's one-way pairs, the
# pop of pop-wrong-end, a total back to its running form, a backward fill back to a forward one).
_METHODS_BACK: dict[str, tuple[str, ...]] = {
    "pop": ("popleft",), "append": ("appendleft",), "mean": ("sum",),
    "sum": ("cumsum",), "prod": ("cumprod",), "max": ("cummax",), "min": ("cummin",),
    "bfill": ("ffill",), "backfill": ("pad",),
}
# What a bare squeeze was before shape/squeeze-all-axes: a flatten, or a squeeze of one axis.
_SQUEEZED_METHOD = ("{r}.ravel()", "{r}.flatten()", "{r}.reshape(-1)", "{r}.squeeze(axis=1)")
_SQUEEZED_FUNCTION = ("{m}.ravel({a})", "{m}.squeeze({a}, 1)", "{m}.squeeze({a}, axis=1)")


class MethodBack(Undo[cst.Call]):
    """`q.pop()` becomes `q.popleft()` (or `q.pop(0)`), `s.sum()` becomes `s.cumsum()`, `.bfill()` `.ffill()`."""

    name = "undo/method-back"
    family = Family.BEYOND
    matcher = m.Call(func=m.Attribute())

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if not self.here(node, ctx):
            return
        func = node.func
        assert isinstance(func, cst.Attribute)
        name = func.attr.value
        for other in _METHODS_BACK.get(name, ()):
            yield node.with_changes(func=func.with_changes(attr=cst.Name(other)))
        if name == "pop" and not node.args:
            yield node.with_changes(args=[cst.Arg(value=cst.Integer("0"))])
        if name == "squeeze" and not node.args:
            for template in _SQUEEZED_METHOD:
                yield cst.ensure_type(ctx.expression(template.format(r=ctx.code(func.value))), cst.Call)
        elif name == "squeeze" and len(node.args) == 1 and is_namespace(func.value, ctx):
            for template in _SQUEEZED_FUNCTION:
                yield cst.ensure_type(ctx.expression(template.format(m=ctx.code(func.value),
                                                                     a=ctx.code(node.args[0].value))), cst.Call)


# String arguments back: a fill direction, an as-of direction, a closed side.
_STRINGS_BACK: dict[str, tuple[str, ...]] = {
    "backfill": ("pad",), "bfill": ("ffill",), "forward": ("backward",), "nearest": ("backward",),
    "both": ("left",), "last": ("first",), "first": ("last",), "index": ("columns",),
}


class StringBack(Undo[cst.SimpleString]):
    """`method="bfill"` becomes `"ffill"`, `direction="forward"` becomes `"backward"`."""

    name = "undo/string-back"
    family = Family.LEAKAGE
    matcher = m.SimpleString()

    def mutate(self, node: cst.SimpleString, ctx: Context) -> Iterator[cst.SimpleString]:
        if not self.here(node, ctx) or not isinstance(ctx.parent(node), cst.Arg):
            return
        text = node.raw_value
        for other in _STRINGS_BACK.get(text, ()):
            yield node.with_changes(value=node.prefix + node.quote + other + node.quote)


_NUMPY = m.Name("np") | m.Name("numpy") | m.Name("math")


class SentinelBack(Undo[cst.CSTNode]):
    """A sentinel back: `0` becomes `np.inf` or `np.nan`, `inf` and `-inf` trade places."""

    name = "undo/sentinel-back"
    family = Family.BEYOND
    matcher = (m.Integer("0") | m.Float("0.0") | m.Attribute(value=_NUMPY, attr=m.Name("inf"))
               | m.Call(func=m.Name("float"), args=[m.Arg(value=m.SimpleString())]))

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx) or not isinstance(node, cst.BaseExpression) or not is_value(node, ctx):
            return
        if isinstance(ctx.parent(node), cst.Index):
            return  # `x[0]` is a position, not a sentinel
        module = "np"
        if isinstance(node, cst.Attribute):
            assert isinstance(node.value, cst.Name)
            module = node.value.value
            parent = ctx.parent(node)
            if isinstance(parent, cst.UnaryOperation):
                return  # `-np.inf` back to `np.inf` is drop-unary's
            yield Rewrite(target=node, replacement=in_place_of(node, ctx.expression(f"-{module}.inf"), ctx))
            return
        if isinstance(node, cst.Call):
            text = cst.ensure_type(node.args[0].value, cst.SimpleString).raw_value
            flipped = {"inf": "-inf", "-inf": "inf", "+inf": "-inf"}.get(text)
            if flipped is not None:
                string = cst.ensure_type(node.args[0].value, cst.SimpleString)
                yield Rewrite(target=string, replacement=string.with_changes(
                    value=string.prefix + string.quote + flipped + string.quote))
            return
        for text in (f"{module}.inf", f"-{module}.inf", f"{module}.nan", "float('inf')", "float('-inf')"):
            yield Rewrite(target=node, replacement=in_place_of(node, ctx.expression(text), ctx))


_ORDERING = m.LessThan() | m.LessThanEqual() | m.GreaterThan() | m.GreaterThanEqual()


class OneBack(Undo[cst.CSTNode]):
    """`+ 1` or `- 1` put back on an index, a bound or an assigned name: `x[i]` -> `x[i + 1]`,
    `k < n` -> `k < n - 1`, `lo = mid` -> `lo = mid + 1`."""

    name = "undo/one-back"
    family = Family.BEYOND
    matcher = m.Index(value=m.Name()) | m.Comparison(comparisons=[m.ComparisonTarget(operator=_ORDERING)]) | m.Assign(
        value=m.Name())

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        if isinstance(node, cst.Comparison):
            values = [node.left, node.comparisons[0].comparator]
        elif isinstance(node, (cst.Index, cst.Assign)):
            values = [node.value]
        else:
            return
        for value in values:
            if not isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
                continue
            for sign in ("+", "-"):
                code = f"{ctx.code(value)} {sign} 1"
                yield Rewrite(target=value, replacement=in_place_of(value, ctx.expression(code), ctx))


class NumberBack(Undo[cst.Integer]):
    """An index `0` back to `-1`: classic/number turns the last element into the first."""

    name = "undo/number-back"
    family = Family.CLASSIC
    matcher = m.Integer("0")

    def mutate(self, node: cst.Integer, ctx: Context) -> Iterator[cst.BaseExpression]:
        if self.here(node, ctx) and isinstance(ctx.parent(node), cst.Index):
            yield ctx.expression("-1")


class ColumnBack(Undo[cst.Subscript]):
    """A row back to a column: `X[j]` becomes `X[:, j]` (shape/column-to-row)."""

    name = "undo/column-back"
    family = Family.SHAPE
    tier = TOKEN + 1  # any subscript could be a column: after the edits of a marked token
    matcher = m.Subscript(slice=[m.SubscriptElement(slice=m.Index())])

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.Subscript]:
        if self.here(node, ctx):
            every = cst.SubscriptElement(slice=cst.Slice(lower=None, upper=None),
                                         comma=cst.Comma(whitespace_after=_SPACE))
            yield node.with_changes(slice=[every, *node.slice])


class SliceBack(Undo[cst.Slice]):
    """A bound back on a slice: `x[:]` -> `x[:-1]`, `x[a:]` -> `x[a:b]` with a `b` the
    function never reads."""

    name = "undo/slice-back"
    family = Family.WINDOW
    matcher = m.Slice(step=None)

    def mutate(self, node: cst.Slice, ctx: Context) -> Iterator[cst.Slice]:
        function = ctx.function(node)
        if not self.here(node, ctx) or function is None:
            return
        unused = unused_names(function)
        if node.lower is None:
            for value in ("1", *unused):
                yield node.with_changes(lower=ctx.expression(value))
        if node.upper is None:
            for value in ("-1", *unused):
                yield node.with_changes(upper=ctx.expression(value))


class AttributeBack(Undo[cst.Attribute]):
    """`self.a` back to `self.b`, another attribute the class sets (beyond/wrong-attribute)."""

    name = "undo/attribute-back"
    family = Family.BEYOND
    matcher = m.Attribute(value=m.Name("self"))

    def mutate(self, node: cst.Attribute, ctx: Context) -> Iterator[cst.Attribute]:
        parent = ctx.parent(node)
        if not self.here(node, ctx) or isinstance(parent, cst.AssignTarget) or (
                isinstance(parent, cst.Call) and parent.func is node):
            return
        owner = next((a for a in ctx.ancestors(node) if isinstance(a, cst.ClassDef)), None)
        if owner is None:
            return
        names: dict[str, None] = {}
        for target in m.findall(owner, m.AssignTarget(target=m.Attribute(value=m.Name("self")))):
            attribute = cst.ensure_type(cst.ensure_type(target, cst.AssignTarget).target, cst.Attribute)
            names[attribute.attr.value] = None
        if node.attr.value not in names:
            return  # a method, or an attribute of a base class: nothing to trade it for
        for name in names:
            if name != node.attr.value:
                yield node.with_changes(attr=cst.Name(name))


class CallBack(Undo[cst.Attribute]):
    """A method tested uncalled, called again: `if queue.full:` becomes `if queue.full():`
    (beyond/uncalled). Only where the attribute's truth is all that is read."""

    name = "undo/call-back"
    family = Family.BEYOND
    tier = TOKEN + 1  # any attribute in a test could be a method: after the edits of a marked token
    matcher = m.Attribute()

    def mutate(self, node: cst.Attribute, ctx: Context) -> Iterator[cst.Call]:
        if self.here(node, ctx) and read_for_truth(node, ctx):
            yield cst.Call(func=node.with_changes(lpar=[], rpar=[]), lpar=node.lpar, rpar=node.rpar)


class PositionBack(Undo[cst.Subscript]):
    """A label back to a position: `s[i]` becomes `s.iloc[i]` (beyond/position-to-label), in a
    module that imports pandas."""

    name = "undo/position-back"
    family = Family.BEYOND
    tier = TOKEN + 1  # any subscript could be a position: after the edits of a marked token
    matcher = m.Subscript(value=m.Name() | m.Attribute(), slice=[m.SubscriptElement(slice=m.Index())])

    def __init__(self, functions: frozenset[str] | None = None, lines: Sequence[int] | None = None) -> None:
        super().__init__(functions, lines)
        self._read: tuple[cst.Module, bool] | None = None  # the module last asked about, and its answer

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.Subscript]:
        index = cst.ensure_type(node.slice[0].slice, cst.Index).value  # as matched
        if not self.here(node, ctx) or isinstance(index, cst.BaseString) or not self._pandas(ctx.module):
            return
        if not m.matches(node.value, m.Attribute(attr=m.Name("iloc") | m.Name("loc"))):
            yield node.with_changes(value=cst.Attribute(value=node.value, attr=cst.Name("iloc")))


    def _pandas(self, module: cst.Module) -> bool:
        """Whether `module` imports pandas at its top (asked once per module)."""
        if self._read is None or self._read[0] is not module:
            imports = m.SimpleStatementLine(body=[m.Import() | m.ImportFrom()])
            text = (module.code_for_node(line) for line in module.body if m.matches(line, imports))
            self._read = (module, any("pandas" in each for each in text))
        return self._read[1]
