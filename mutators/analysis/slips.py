"""Where the line lies between a slip made in one of two twins and an edit no person makes.

A realistic asymmetric slip is one a person makes while editing one of two twins (`twins`): the
twin keeps the old form, and the edited one takes a form the code already has or that one small
edit leaves. That is the other twin's name or operator copied (the copy-paste slip: `right_sum
-= x` written `right_sum += x` beside `left_sum += x`), one side of a symmetric update changed, a
sign flipped in one of two mirrored updates, one branch given the other's constant, a part both
twins had left out of one (a keyword, a `+ 1`: a consistent edit applied to one twin only), a name
the function already uses, or a bound moved by one (`>=` for `>`, a number one off). An edit is
*generated* when no earlier form explains it: it brings into the twin an operator, a name or a
literal that neither its twin nor the code around it (its function, or its class for a method)
uses anywhere, such as `(n_left >= k) & (n_right != k)` in a function with no `!=`, or a name that
appears nowhere near. `unexplained` draws that line on the code's tokens; the exercises' trace
rule reads it, and the twin operators make only edits on the realistic side of it.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize

# The operators an edit can bring in (brackets, commas and dots are layout).
_OPERATOR_TOKENS = frozenset({
    "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "~", "<<", ">>",
    "==", "!=", "<", "<=", ">", ">=",
})
# Augmented operators stand for their binary ones: `-=` is the `-` a function already uses.
_AUGMENTED = {f"{op}=": op for op in ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>")}
# One off-by-one edit: the bound moved by one.
_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}


def tokens(code: str) -> set[tuple[str, object]] | None:
    """The names, keywords, literals and operators of `code` (a fragment of Python), or None when
    it cannot be read as tokens."""
    found: set[tuple[str, object]] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(textwrap.dedent(code)).readline):
            text = token.string
            if token.type == tokenize.NAME:
                found.add(("name", text))
            elif token.type == tokenize.NUMBER:
                found.add(("number", _number(text)))
            elif token.type == tokenize.STRING:
                found.add(("string", _string(text)))
            elif token.type == tokenize.OP and _AUGMENTED.get(text, text) in _OPERATOR_TOKENS:
                found.add(("op", _AUGMENTED.get(text, text)))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return found


def _number(text: str) -> object:
    """The number's value with its type, so that `1` and `1.0` stay two tokens."""
    try:
        value = ast.literal_eval(text.replace("_", ""))
    except (ValueError, SyntaxError):
        return text
    return type(value).__name__, value


def _string(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _neighbours(token: tuple[str, object]) -> set[tuple[str, object]]:
    """The forms one off-by-one edit makes of `token`: a bound moved by one, a number one off."""
    kind, value = token
    if kind == "op" and value in _BOUNDARY:
        return {("op", _BOUNDARY[str(value)])}
    if kind == "number" and isinstance(value, tuple) and isinstance(value[1], (int, float)):
        name, number = value
        return {("number", (name, number - 1)), ("number", (name, number + 1))}
    return set()


def unexplained(before: str, after: str, near: str) -> str | None:
    """The token that an edit of one twin from `before` to `after` brings in from nowhere: used by
    neither `near` (the code around it, its twin included) nor one off-by-one edit away from what
    it replaced. None when every new token is explained, or when the code cannot be read."""
    old, new, around = tokens(before), tokens(after), tokens(near)
    if old is None or new is None or around is None:
        return None
    removed = old - new
    allowed = around.union(*(_neighbours(token) for token in removed))
    brought = sorted((new - old) - allowed, key=repr)
    if not brought:
        return None
    kind, value = brought[0]
    return str(value[1]) if kind == "number" and isinstance(value, tuple) else str(value)
