"""Server-side syntax colouring of Python source with the standard `tokenize` module.

The report must open from disk with no script library, so colouring happens here: each line
becomes escaped HTML with short class names that the report's stylesheet colours. Mutated
sites are marked in the same pass, so a site and a token can share one character.
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import tokenize
from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

# CSS classes: k keyword, c constant, b builtin, s string, n number, m comment,
# d name being defined, a decorator.
_CONSTANTS = frozenset({"True", "False", "None", "Ellipsis", "NotImplemented"})
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_")) - _CONSTANTS
_STRING_TYPES = frozenset(
    getattr(tokenize, name)
    for name in ("STRING", "FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")  # 3.12+ f-strings
    if hasattr(tokenize, name)
)
# libcst and tokenize count lines on these; str.splitlines would also split on \f and others.
_NEWLINE = re.compile(r"\r\n|\r|\n")

Site = tuple[int, int, str]  # start column, end column (exclusive), CSS class


def source_lines(source: str) -> list[str]:
    """The lines of `source` as Python numbers them (no trailing empty line after the last)."""
    lines = _NEWLINE.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def highlight(source: str, sites: Mapping[int, Sequence[Site]] | None = None) -> list[Markup]:
    """One escaped, coloured HTML fragment per line; `sites` maps 1-based lines to marked ranges."""
    lines = source_lines(source)
    classes = [[""] * len(line) for line in lines]
    for row, start, end, css in _token_ranges(source, lines):
        classes[row][start:end] = [css] * (end - start)
    marks = [[""] * len(line) for line in lines]
    for number, ranges in (sites or {}).items():
        if 1 <= number <= len(lines):
            row = marks[number - 1]
            for start, end, css in ranges:
                end = min(end, len(row))
                row[start:end] = [css] * max(0, end - start)
    return [_render(line, classes[i], marks[i]) for i, line in enumerate(lines)]


def _token_ranges(source: str, lines: list[str]):
    """(row, start column, end column, class) for every coloured piece of every token."""
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            css = _token_class(token, previous)
            if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                previous = token
            if not css:
                continue
            (first, start), (last, end) = token.start, token.end
            for row in range(first - 1, min(last, len(lines))):
                yield (
                    row,
                    start if row == first - 1 else 0,
                    end if row == last - 1 else len(lines[row]),
                    css,
                )
    except (tokenize.TokenError, SyntaxError):
        return  # colour what came before the broken part; the text itself is always shown


def _token_class(token: tokenize.TokenInfo, previous: tokenize.TokenInfo | None) -> str:
    if token.type in _STRING_TYPES:
        return "s"
    if token.type == tokenize.NUMBER:
        return "n"
    if token.type == tokenize.COMMENT:
        return "m"
    if _is_decorator_at(token):
        return "a"
    if token.type != tokenize.NAME:
        return ""
    name, before = token.string, previous.string if previous else ""
    if previous is not None and _is_decorator_at(previous):
        return "a"
    if before in ("def", "class") and previous is not None and previous.type == tokenize.NAME:
        return "d"
    if name in _CONSTANTS:
        return "c"
    if keyword.iskeyword(name):
        return "k"
    if name in _BUILTINS and before != ".":
        return "b"
    return ""


def _is_decorator_at(token: tokenize.TokenInfo) -> bool:
    """An `@` that opens a line is a decorator; elsewhere it is matrix multiplication."""
    return token.type == tokenize.OP and token.string == "@" and not token.line[: token.start[1]].strip()


def _render(line: str, classes: list[str], marks: list[str]) -> Markup:
    parts: list[str] = []
    start = 0
    for index in range(1, len(line) + 1):
        if index < len(line) and classes[index] == classes[start] and marks[index] == marks[start]:
            continue
        text = escape(line[start:index])
        css = " ".join(filter(None, (classes[start], marks[start])))
        parts.append(f'<span class="{css}">{text}</span>' if css else str(text))
        start = index
    return Markup("".join(parts))
