"""Twins: two statements or expressions written as a pair, found from their syntax alone.

Code that does one thing for two sides writes it twice: `left_sum += x` and `right_sum -= x`,
`(n_left >= k) & (n_right >= k)`, `lo = mid + 1` in one branch and `hi = mid` in the other. Two
pieces of code are *twins* when they have the same shape once the names in which they differ
are renamed consistently (each name of one stands for one name of the other, wherever it
occurs), and they differ in at most one other small part (an operator, a literal, `mid` against
`mid + 1`, two functions called). They must also share tokens, so that `a.append(b)` and
`c.append(d)` are not twins: two at the same places, or one where their places already pair
them (the two branches of an `if`) or where each renamed pair shares a word (`left_sum += x`
and `right_sum -= x`). Twins are looked for where people write them: neighbouring simple
statements of one block, the statements at the same place in the two branches of an
`if`/`else`, and neighbouring operands of `and`, `or`, `&`, `|`, `+`, `-`, of a tuple or a list,
of a call's positional arguments, and the two branches of `a if c else b`. Nothing is run.

Which edits of one twin are slips a person makes and which read as generated is `slips`' to say;
the beyond family's twin operators make the slips, the exercises' trace rule refuses the rest,
and the repair search writes back a part one twin lost (`missing_parts`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from bugsmith.mutators.analysis.names import words

# Nodes that carry layout, punctuation or types only: two twins may differ in them freely.
_SYNTAX = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
    cst.Comma, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Semicolon, cst.Colon, cst.Dot, cst.AssignEqual,
    cst.Asynchronous,
    cst.Annotation,  # types are never run: `deque[T]` beside `list[T]` is no pair of values
)
OPERATORS = (cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)
# Every operator token's own class (`Add`, `GreaterThanEqual`, `SubtractAssign`...).
OPERATOR_CLASSES = tuple(
    kind for kind in vars(cst).values()
    if isinstance(kind, type) and issubclass(kind, OPERATORS) and not kind.__name__.startswith("Base")
)
_LEAVES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.FormattedStringText)
# Simple statements that are written as pairs; a `raise`, an import or a `del` is not mutated.
_PAIRED_STATEMENTS = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return)
# Operators whose neighbouring operands are often twins: `(a >= k) & (b >= k)`, `x_left + x_right`.
_PAIRING_OPERATORS = (cst.BitAnd, cst.BitOr, cst.Add, cst.Subtract)
_MAX_RENAMES = 3  # distinct name pairs: more, and any two calls of one function would be twins
_MAX_PART = 5  # nodes in the one part in which twins may differ besides names


@dataclass(frozen=True, slots=True, kw_only=True)
class Twins:
    """Two pieces of code written as a pair; `first` comes first in the source.

    `renamed` holds every place where their names differ, as (name in first, name in second);
    `different` the one other part in which they differ, if any; `places` every pair of nodes at
    the same place in both (outside `different`), in the order they were walked.
    """

    first: cst.CSTNode
    second: cst.CSTNode
    renamed: tuple[tuple[cst.Name, cst.Name], ...]
    different: tuple[cst.CSTNode, cst.CSTNode] | None
    places: tuple[tuple[cst.CSTNode, cst.CSTNode], ...]

    def names(self) -> dict[str, str]:
        """Each differing name of `first` and the name that stands for it in `second`."""
        return {a.value: b.value for a, b in self.renamed}

    def distance(self) -> int:
        """How much code the part in which they differ holds (0: they differ in names only)."""
        return 0 if self.different is None else _part_size(*self.different)


@dataclass(slots=True)
class _Walk:
    names: list[tuple[cst.Name, cst.Name]] = field(default_factory=list)
    different: list[tuple[cst.CSTNode, cst.CSTNode]] = field(default_factory=list)
    places: list[tuple[cst.CSTNode, cst.CSTNode]] = field(default_factory=list)
    shared: int = 0  # tokens other than names that are the same at the same place


def significant(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of `node` that are code, not layout or punctuation."""
    return [child for child in node.children if not isinstance(child, _SYNTAX)]


def _size(node: cst.CSTNode) -> int:
    return 1 + sum(_size(child) for child in significant(node))


def _part_size(a: cst.CSTNode, b: cst.CSTNode) -> int:
    """How much code the part in which twins differ holds: what one side adds to the other when
    it holds it whole (`a.count(k) + 1` against `a.count(k)`: `+ 1`), else its larger side."""
    for big, small in ((a, b), (b, a)):
        if any(same_code(child, small) for child in significant(big)):
            return _size(big) - _size(small)
    return max(_size(a), _size(b))


def _leaf_value(node: cst.CSTNode) -> object:
    if isinstance(node, cst.SimpleString):
        try:
            return node.evaluated_value
        except (ValueError, SyntaxError):
            return node.value
    return getattr(node, "value", None)


def _walk(a: cst.CSTNode, b: cst.CSTNode, walk: _Walk) -> None:
    if type(a) is not type(b):
        walk.different.append((a, b))
        return
    walk.places.append((a, b))
    if isinstance(a, cst.Name) and isinstance(b, cst.Name):
        walk.names.append((a, b))
        return
    if isinstance(a, _LEAVES):
        if _leaf_value(a) == _leaf_value(b):
            walk.shared += 1
        else:
            walk.different.append((a, b))
        return
    if isinstance(a, OPERATORS):
        walk.shared += 1
        return
    if isinstance(a, cst.Call) and isinstance(b, cst.Call) and _callee(a) != _callee(b):
        # two functions called are two computations, not two sides: a part in which they differ
        walk.different.append((a.func, b.func))
        if len(a.args) != len(b.args):
            walk.different.append((a, b))
            return
        for arg, other in zip(a.args, b.args):
            _walk(arg, other, walk)
        return
    if isinstance(a, cst.Arg) and isinstance(b, cst.Arg):
        keywords = (a.keyword.value if a.keyword else None, b.keyword.value if b.keyword else None)
        if a.star != b.star or keywords[0] != keywords[1]:
            walk.different.append((a, b))
            return
        walk.shared += keywords[0] is not None
        _walk(a.value, b.value, walk)
        return
    left, right = significant(a), significant(b)
    if len(left) != len(right):
        walk.different.append((a, b))
        return
    for x, y in zip(left, right):
        _walk(x, y, walk)


def _callee(call: cst.Call) -> str | None:
    func = call.func
    return func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None


def _consistent(names: Sequence[tuple[cst.Name, cst.Name]]) -> bool:
    """Each name of one side always stands for the same name of the other, both ways."""
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    for a, b in names:
        if forward.setdefault(a.value, b.value) != b.value or backward.setdefault(b.value, a.value) != a.value:
            return False
    return True


def _tokens_of(node: cst.CSTNode) -> set[object]:
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, _LEAVES):
        return {_leaf_value(node)}
    return set().union(*(_tokens_of(child) for child in significant(node)))


def compare(first: cst.CSTNode, second: cst.CSTNode, *, paired: bool = False) -> Twins | None:
    """`first` and `second` as twins, or None when they are not. `paired` says that their places
    pair them already (the two branches of an `if`), so one shared token is enough."""
    walk = _Walk()
    _walk(first, second, walk)
    renamed = tuple((a, b) for a, b in walk.names if a.value != b.value)
    if not (renamed or walk.different) or len(walk.different) > 1 or not _consistent(walk.names):
        return None
    if len({(a.value, b.value) for a, b in renamed}) > _MAX_RENAMES:
        return None
    shared = walk.shared + sum(a.value == b.value for a, b in walk.names)
    different = walk.different[0] if walk.different else None
    if different is not None:
        if different == (first, second) or _part_size(*different) > _MAX_PART:
            return None
        shared += len(_tokens_of(different[0]) & _tokens_of(different[1]))
    if shared < 2 and not (shared == 1 and (paired or all(_mirrored(a.value, b.value) for a, b in renamed))):
        return None
    return Twins(first=first, second=second, renamed=renamed, different=different, places=tuple(walk.places))


def _mirrored(a: str, b: str) -> bool:
    """Two names for the two sides of one thing: `left_sum` and `right_sum` share a word."""
    return bool(words(a) & words(b))


def same_code(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """`a` and `b` are the same code, layout aside."""
    walk = _Walk()
    _walk(a, b, walk)
    return not walk.different and all(x.value == y.value for x, y in walk.names)


# Where twins stand ------------------------------------------------------------------------------

def _single(statement: cst.CSTNode) -> cst.BaseSmallStatement | None:
    """The one small statement of a line that could be a twin (not a docstring)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, _PAIRED_STATEMENTS):
        return None
    if isinstance(small, cst.Expr) and isinstance(small.value, (cst.BaseString, cst.Ellipsis)):
        return None
    if isinstance(small, cst.AnnAssign) and small.value is None:
        return None
    return small


def statement_pairs(body: Sequence[cst.CSTNode]) -> Iterator[tuple[cst.CSTNode, cst.CSTNode, bool]]:
    """Neighbouring simple statements of one block, as (first, second, paired by place: False)."""
    for first, second in zip(body, body[1:]):
        a, b = _single(first), _single(second)
        if a is not None and b is not None:
            yield a, b, False


def branch_pairs(node: cst.If) -> Iterator[tuple[cst.CSTNode, cst.CSTNode, bool]]:
    """The statements at the same place in an `if`'s body and in its `else` (or `elif`) body,
    when both bodies are as long, as (first, second, paired by place: True)."""
    other = node.orelse
    if other is None or not isinstance(node.body, cst.IndentedBlock):
        return
    body = other.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != len(node.body.body):
        return
    for first, second in zip(node.body.body, body.body):
        a, b = _single(first), _single(second)
        if a is not None and b is not None:
            yield a, b, True


def _operands(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The operands of `node` that could be twins, in source order."""
    if isinstance(node, cst.BooleanOperation):
        return [*_chain(node.left, type(node.operator)), node.right]
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _PAIRING_OPERATORS):
        return [*_chain(node.left, type(node.operator)), node.right]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [element.value for element in node.elements if isinstance(element, cst.Element)]
    if isinstance(node, cst.Call):
        return [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if isinstance(node, cst.IfExp):
        return [node.body, node.orelse]
    return []


def _chain(node: cst.BaseExpression, operator: type) -> list[cst.CSTNode]:
    """`a & b & c` is `(a & b) & c`: the operand next to `c` is `b`."""
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)) and type(node.operator) is operator \
            and not node.lpar:
        return [*_chain(node.left, operator), node.right]
    return [node]


def operand_pairs(node: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode, bool]]:
    """Neighbouring operands of `node` (an operation, a tuple, a list, a call, `a if c else b`),
    as (first, second, paired by place: only the two branches of `a if c else b`)."""
    operands = _operands(node)
    for first, second in zip(operands, operands[1:]):
        yield first, second, isinstance(node, cst.IfExp)


def all_pairs(module: cst.Module) -> list[tuple[cst.CSTNode, cst.CSTNode, bool]]:
    """Every place of `module` where two pieces of code could be twins, as `statement_pairs`,
    `branch_pairs` and `operand_pairs` give them."""
    found: list[tuple[cst.CSTNode, cst.CSTNode, bool]] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.IndentedBlock):
                found.extend(statement_pairs(node.body))
            if isinstance(node, cst.If):
                found.extend(branch_pairs(node))
            found.extend(operand_pairs(node))
            return True

    module.visit(Finder())
    return found


def all_twins(module: cst.Module) -> list[Twins]:
    """Every pair of twins in `module`."""
    found = (compare(first, second, paired=paired) for first, second, paired in all_pairs(module))
    return [twins for twins in found if twins is not None]


def missing_parts(first: cst.CSTNode, second: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """Where `first` and `second` are twins but for one part that one of them holds and the
    other lacks (`depth + 1` beside `depth`), (the place that lacks it, the part as it would
    stand there, its names renamed): what a reader comparing the two lines writes back."""
    walk = _Walk()
    _walk(first, second, walk)
    if not walk.different or len(walk.different) > 2 or not _consistent(walk.names):
        return
    if len({(a.value, b.value) for a, b in walk.names if a.value != b.value}) > _MAX_RENAMES:
        return
    forward = {a.value: b.value for a, b in walk.names}
    backward = {b.value: a.value for a, b in walk.names}
    for index, (a, b) in enumerate(walk.different):
        rest = walk.different[:index] + walk.different[index + 1:]
        if any((x, y) == (first, second) or _part_size(x, y) > _MAX_PART for x, y in rest):
            continue
        for big, small, names in ((a, b, forward), (b, a, backward)):
            if big is not first and big is not second and _holds(big, small):
                yield small, renamed(big, names)


def _holds(big: cst.CSTNode, small: cst.CSTNode) -> bool:
    """`big` is `small` with a little more around it: `small + 1`, `~small`, `f(small)`."""
    children = significant(big)
    return any(same_code(child, small) for child in children) and _size(big) - _size(small) <= _MAX_PART


class _Renamed(cst.CSTTransformer):
    """Code of one twin as the other would hold it: its names renamed."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self._names = names

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value=self._names.get(updated_node.value, updated_node.value))


def renamed(node: cst.CSTNode, names: dict[str, str]) -> cst.CSTNode:
    """`node` with each name in `names` replaced by the name it maps to."""
    result = node.visit(_Renamed(names))
    return result if isinstance(result, cst.CSTNode) else node
