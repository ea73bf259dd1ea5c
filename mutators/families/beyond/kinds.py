"""What kind of value a name or an expression holds, and how alike two names are.

All are guesses from syntax alone (annotations, literals, a few builtin calls, the words of a
name), used to keep the beyond-classic mutants plausible: a list does not stand in for a count,
a constant does not swap with a variable, and `fps` is a likelier slip for `tps` than `order` is.
"""

from __future__ import annotations

import difflib
import re

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee

_CONSTANTS = frozenset({"nan", "NaN", "inf", "Inf", "pi", "e", "newaxis", "NA", "NaT"})
_LITERALS = (
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.List, cst.Tuple, cst.Set, cst.Dict,
)
# Names that swap for each other in real bugs although they share no letters.
_OPPOSITES = {
    frozenset(pair)
    for pair in (
        ("lo", "hi"), ("low", "high"), ("lower", "upper"), ("min", "max"), ("start", "end"),
        ("start", "stop"), ("begin", "end"), ("left", "right"), ("first", "last"),
        ("head", "tail"), ("prev", "next"), ("before", "after"), ("old", "new"),
        ("src", "dst"), ("x", "y"), ("i", "j"), ("j", "k"), ("row", "col"), ("rows", "cols"),
        ("width", "height"), ("train", "test"), ("true", "pred"), ("pos", "neg"),
        ("num", "den"), ("in", "out"), ("inner", "outer"), ("top", "bottom"),
        ("n", "m"), ("a", "b"), ("u", "v"), ("key", "value"), ("keys", "values"),
    )
}
_WORDS = re.compile(r"[A-Za-z]+|\d+")


def similarity(a: str, b: str) -> float:
    """How likely `a` is mistyped or misremembered as `b`: 1.0 for opposites like lo/hi."""
    words_a, words_b = _WORDS.findall(a.lower()), _WORDS.findall(b.lower())
    if len(words_a) == len(words_b):
        differing = [(x, y) for x, y in zip(words_a, words_b) if x != y]
        if len(differing) == 1 and frozenset(differing[0]) in _OPPOSITES:
            return 1.0
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


_TYPE_KINDS = {
    "int": "number", "float": "number", "complex": "number", "bool": "bool", "str": "str",
    "bytes": "bytes", "list": "sequence", "tuple": "sequence", "deque": "sequence",
    "Sequence": "sequence", "MutableSequence": "sequence", "dict": "mapping",
    "defaultdict": "mapping", "Counter": "mapping", "OrderedDict": "mapping",
    "Mapping": "mapping", "MutableMapping": "mapping", "set": "set", "frozenset": "set",
}
_LITERAL_KINDS = (
    (cst.Integer, "number"), (cst.Float, "number"), (cst.BaseString, "str"),
    (cst.List, "sequence"), (cst.ListComp, "sequence"), (cst.Tuple, "sequence"),
    (cst.Dict, "mapping"), (cst.DictComp, "mapping"), (cst.Set, "set"), (cst.SetComp, "set"),
    (cst.Comparison, "bool"),
)
_CALL_KINDS = {
    "len": "number", "int": "number", "float": "number", "round": "number", "str": "str",
    "sorted": "sequence",
}


def annotation_kind(annotation: cst.BaseExpression) -> str | None:
    """`int` -> number, `list[int]` -> sequence, `Request | None` -> Request."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        kinds = {annotation_kind(side) for side in (annotation.left, annotation.right)} - {"None"}
        return next(iter(kinds)) if len(kinds) == 1 else None
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    if isinstance(annotation, cst.Attribute):
        annotation = annotation.attr
    if isinstance(annotation, cst.Name):
        return _TYPE_KINDS.get(annotation.value, annotation.value)
    return None


def value_kind(value: cst.BaseExpression) -> str | None:
    """The kind of value an expression makes, when its syntax tells: `[]`, `0`, `len(x)`."""
    for node_type, kind in _LITERAL_KINDS:
        if isinstance(value, node_type):
            return kind
    if m.matches(value, m.Name("True") | m.Name("False")):
        return "bool"
    if m.matches(value, m.UnaryOperation(operator=m.Not())):
        return "bool"
    if isinstance(value, cst.Call):
        name = callee(value)
        return None if name is None else _CALL_KINDS.get(name) or _TYPE_KINDS.get(name)
    return None


def is_literal(node: cst.BaseExpression) -> bool:
    """A constant: `1`, `-1.5`, `'a'`, `(0, 1)`, `None`, `np.nan`, `math.pi`."""
    if m.matches(node, m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())):
        return True
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.attr.value in _CONSTANTS:
        return True
    return isinstance(node, _LITERALS) or m.matches(node, m.Name("None") | m.Name("True") | m.Name("False"))
