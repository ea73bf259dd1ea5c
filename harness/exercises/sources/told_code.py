"""How much prose a handout's code keeps, by the exercise's level: a medium or hard one keeps none.

Blind solve trials (benchmarks/solve-trials/) found hard exercises read off the code's own prose:
a public function's docstring stating the formula its helper breaks, a module docstring's "never
contain a later row" against `center=True`, a comment one screen away; and a medium one off its
function's docstring ("drop zero-weight samples" above `keep = weights >= 0`), which the check for
sentences that state a bug's intent (harness.exercises.measure.intent) did not recognise. Dropping
the sentences found near a bug (harness.exercises.measure.clues) leaves the rest of the file's
prose, and any of it may state what the bug contradicts. A medium or hard handout's code files
therefore carry no comments and no docstrings at all: the rules are in the problem text (medium)
or in the tests alone (hard, told_statement), and finding which one the code breaks is the
debugging. Because every file loses all of its prose, no gap marks where a sentence stood. An
easy handout keeps every word: a sentence that says what the line should do is what makes it easy.

The code is the same code: comments are not code, a docstring becomes `pass` only where it was a
body's sole statement, and the blank lines a removal would leave at the top of a block or doubled
go with it. A file whose behaviour could depend on its prose is handed out as it is: one that
reads `__doc__` or `getdoc`, holds doctests, or imports a library that turns docstrings into
behaviour (a CLI's help text, docopt's usage), since its tests could then see the change.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Sequence

import libcst as cst

STRIPPED_AT = ("medium", "hard")
# Text in a file that says its docstrings may be read at run time.
_PROSE_READ = re.compile(r"__doc__|getdoc|>>>|^\s*(?:from|import)\s+(?:click|typer|docopt|fire|argh|plac|invoke)\b",
                         re.MULTILINE)
# What the first lines of a file may hold for the interpreter rather than the reader.
_DIRECTIVE = re.compile(r"^#!|^#.*coding[:=]")
_LAYOUT = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                     tokenize.ENCODING, tokenize.ENDMARKER})


@functools.lru_cache(maxsize=64)
def told_code(source: str, level: str) -> str:
    """`source` as a handout of `level` shows it: without comments and docstrings unless easy."""
    if level not in STRIPPED_AT or _PROSE_READ.search(source):
        return source
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source
    return module.visit(_Unprosed()).code


def _is_prose(statement: cst.BaseSmallStatement) -> bool:
    """A string literal alone as a statement (a docstring, or an attribute's)."""
    return isinstance(statement, cst.Expr) and _plain_string(statement.value)


def _plain_string(value: cst.BaseExpression) -> bool:
    # An f-string runs what it holds: a statement of one is code, not prose.
    if isinstance(value, cst.ConcatenatedString):
        return _plain_string(value.left) and _plain_string(value.right)
    return isinstance(value, cst.SimpleString)


def _lines_left(lines: Sequence[cst.EmptyLine]) -> Sequence[cst.EmptyLine]:
    """`lines` without comments; blank runs a comment kept apart become one, the longest."""
    runs: list[int] = [0]
    for line in lines:
        if line.comment is not None:
            runs.append(0)
        else:
            runs[-1] += 1
    if len(runs) == 1:
        return lines
    blank = next((line for line in lines if line.comment is None), cst.EmptyLine(indent=False))
    return [blank] * max(runs)


_PASS = cst.SimpleStatementLine(body=[cst.Pass()])


class _Unprosed(cst.CSTTransformer):
    """Every comment and docstring out of a module, with the code untouched."""

    def on_leave(self, original_node: cst.CSTNodeT,
                 updated_node: cst.CSTNodeT) -> cst.CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNodeT]:
        left = super().on_leave(original_node, updated_node)
        lines = getattr(left, "leading_lines", None)
        if isinstance(left, cst.CSTNode) and lines is not None:
            return left.with_changes(leading_lines=_lines_left(lines))
        return left

    def leave_TrailingWhitespace(self, original_node: cst.TrailingWhitespace,
                                 updated_node: cst.TrailingWhitespace) -> cst.TrailingWhitespace:
        if updated_node.comment is None:
            return updated_node
        return updated_node.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)

    def leave_ParenthesizedWhitespace(self, original_node: cst.ParenthesizedWhitespace,
                                      updated_node: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
        return updated_node.with_changes(empty_lines=[line for line in updated_node.empty_lines
                                                      if line.comment is None])

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite,
                                   updated_node: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        # `def f(): """doc"""` keeps its one line: `def f(): pass`.
        body = [small for small in updated_node.body if not _is_prose(small)] or [cst.Pass()]
        return updated_node.with_changes(body=_unsemicoloned(body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        directives = [line for line in updated_node.header[:2]
                      if line.comment is not None and _DIRECTIVE.match(line.comment.value)]
        header = [line for line in updated_node.header if line.comment is None]
        if len(header) != len(updated_node.header):
            header = directives  # a licence or note gone from the top leaves no blank lines there
        body = _code_of(updated_node.body)
        return updated_node.with_changes(header=header, body=body, footer=_lines_left(updated_node.footer),
                                         has_trailing_newline=bool(body or header))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        # Blank lines that ended a block before a comment would stand beside the next statement's.
        footer = [] if any(line.comment is not None for line in updated_node.footer) else updated_node.footer
        return updated_node.with_changes(body=_code_of(updated_node.body) or [_PASS], footer=footer)


def _unsemicoloned(body: Sequence[cst.BaseSmallStatement]) -> list[cst.BaseSmallStatement]:
    """`body` with the last statement's semicolon gone (`x = 1;` once the docstring after it went)."""
    if not body:
        return []
    return [*body[:-1], body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]


def _code_of(body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """`body` without its string statements (a line of nothing else goes whole); the first
    statement left starts the block with no blank line above it (the line a docstring or a
    comment stood on is not marked)."""
    kept: list[cst.BaseStatement] = []
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            small = [part for part in statement.body if not _is_prose(part)]
            if not small:
                continue
            if len(small) != len(statement.body):
                statement = statement.with_changes(body=_unsemicoloned(small))
        kept.append(statement)
    if kept and getattr(kept[0], "leading_lines", None):
        kept[0] = kept[0].with_changes(leading_lines=[])
    return kept


def told_line(source: str, level: str, line: int) -> int:
    """Where line `line` of `source` (1-based) stands in `told_code(source, level)`: the hints,
    the solution and the answer key point into the file as handed out. The two files hold the
    same code tokens in the same order, less the string statements and plus the `pass` that
    stands for a body that was only prose; a line is mapped by its first code token (a line
    with none, a comment or docstring line, by the next code token after it)."""
    lines = _line_map(source, level)
    if lines is None:
        return line
    return next((told_at for at, told_at in lines if at >= line), lines[-1][1] if lines else 1)


@functools.lru_cache(maxsize=32)
def _line_map(source: str, level: str) -> tuple[tuple[int, int], ...] | None:
    """(line in `source`, line in the told code) of every code token; None when the code is
    told as it is, or the two do not hold the same code."""
    told = told_code(source, level)
    if told == source:
        return None
    try:
        spans = _prose_spans(source)
        before = [t for t in _code_tokens(source) if not _in_prose(t, spans)]
        after = _code_tokens(told)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    lines: list[tuple[int, int]] = []
    j = 0
    for token in before:
        while j < len(after) and after[j].string != token.string and after[j].string == "pass":
            j += 1  # a `pass` told_code put in for a body of prose
        if j == len(after) or after[j].string != token.string:
            return None
        lines.append((token.start[0], after[j].start[0]))
        j += 1
    return tuple(lines)


def _code_tokens(source: str) -> list[tokenize.TokenInfo]:
    return [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _LAYOUT]


def _prose_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where every string statement of `source` starts and ends, (line, column) each."""
    return [((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)]


def _in_prose(token: tokenize.TokenInfo, spans: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    return any(start <= token.start and token.end <= end for start, end in spans)
