"""What every undo edit shares: where it may act, and the places in code where a value stands.

An undo edit is a `Mutator` the mutation runs never use: it proposes the edit that would take a
bug of one operator back, read off the buggy program alone (its names, its literals, idioms any
reader of such code knows), never from the reference or from the bug's record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import libcst as cst

from bugsmith.mutators.analysis.receivers import is_namespace
from bugsmith.mutators.base import Mutator, NodeT
from bugsmith.mutators.context import Context

# Tiers order a repair search's tries on equally suspicious lines: one token first, then one
# argument or one moved statement, then code written anew (a wrapper, an inserted statement).
TOKEN, PART, WRITTEN = 1, 2, 3

# Expressions that need no parentheses as a receiver (`x.f()`, `x[i]`) or an operand.
ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
         cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp)


class Undo(Mutator[NodeT]):
    """An undo edit, limited to the functions a repair search looks at (all, when none are named)."""

    tier: ClassVar[int] = TOKEN
    explanation = "`{original}` became `{mutated}`: a repair the search tries"

    def __init__(self, functions: frozenset[str] | None = None, lines: Sequence[int] | None = None) -> None:
        self.functions = functions
        self.lines = lines  # sorted

    def here(self, node: cst.CSTNode, ctx: Context) -> bool:
        """Whether `node` is inside a function the search looks at, and on a line it looks at."""
        function = ctx.function(node)
        return (function is not None and (self.functions is None or function.name.value in self.functions)
                and (self.lines is None or ctx.spans_line(node, self.lines)))


def names_read(node: cst.CSTNode) -> list[str]:
    """The plain names `node` reads, in order, each once (attribute names and keywords aside)."""
    found: dict[str, None] = {}

    class _Reader(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

        def visit_Name(self, name: cst.Name) -> None:
            if name.value not in ("True", "False", "None", "self"):
                found[name.value] = None

    node.visit(_Reader())
    return list(found)


def parameters(function: cst.FunctionDef) -> list[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return [p.name.value for p in every if p.name.value not in ("self", "cls")]


def unused_names(function: cst.FunctionDef) -> list[str]:
    """Parameters and locals the function binds and never reads: a deleted statement read them."""
    bound: dict[str, None] = dict.fromkeys(parameters(function))
    read: set[str] = set()

    class _Uses(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> bool:
            if isinstance(target.target, cst.Name):
                bound.setdefault(target.target.value, None)
                return False
            return True

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

        def visit_Param(self, param: cst.Param) -> bool:
            return False

        def visit_Name(self, name: cst.Name) -> None:
            read.add(name.value)

    function.body.visit(_Uses())
    return [name for name in bound if name not in read]


def is_value(node: cst.BaseExpression, ctx: Context) -> bool:
    """Whether `node` is a value a computation reads: an operand, an argument, an element, a
    returned or assigned value, a subscripted or called-on object; not a target, a callee, a
    module or `self`."""
    if isinstance(node, cst.Name) and (node.value in ("True", "False", "None") or is_namespace(node, ctx)):
        return False
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute):
        # the object of `x.mean()` or `x.shape`; not `np` of `np.mean`, checked above
        return parent.value is node
    if isinstance(parent, cst.Call):
        return False  # the callee
    if isinstance(parent, (cst.Arg, cst.Element, cst.Index, cst.Return, cst.ComparisonTarget)):
        return getattr(parent, "value", getattr(parent, "comparator", None)) is node
    if isinstance(parent, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        return parent.value is node
    if isinstance(parent, cst.Subscript):
        return parent.value is node
    return isinstance(parent, (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation, cst.IfExp))


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=(), rpar=()) if node.lpar else node


def as_receiver(code: str, node: cst.BaseExpression) -> str:
    """`code` (of `node`) ready to take `.f()` or `[i]`: parenthesised unless an atom."""
    return code if isinstance(bare(node), ATOMS) else f"({code})"


def _literal(node: cst.BaseExpression) -> bool:
    """A number, a string or a negated number: a constant, not a value to reshape or wrap."""
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.BaseString))


# Where an operation stands whole without parentheses: a whole argument, element or value.
_WHOLE = (cst.Arg, cst.Element, cst.Return, cst.Assign, cst.AugAssign)


def value_sites(node: cst.CSTNode, ctx: Context) -> Iterator[cst.BaseExpression]:
    """`node` itself when it is a value worth rewriting: a name, an attribute, a subscript, a call,
    a parenthesised expression, or an operation that is a whole argument or value."""
    if not isinstance(node, cst.BaseExpression) or not is_value(node, ctx) or _literal(bare(node)):
        return
    if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.List)) or node.lpar:
        yield node
    elif isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)) and isinstance(ctx.parent(node), _WHOLE):
        yield node
