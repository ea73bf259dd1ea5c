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

import difflib
import io
import re
import tokenize
from collections.abc import Sequence

import libcst as cst

STRIPPED_AT = ("medium", "hard")
# Text in a file that says its docstrings may be read at run time.
_PROSE_READ = re.compile(r"__doc__|getdoc|>>>|^\s*(?:from|import)\s+(?:click|typer|docopt|fire|argh|plac|invoke)\b",
                         re.MULTILINE)


def told_code(source: str, level: str) -> str:
    """`source` as a handout of `level` shows it: without comments and docstrings unless easy."""
    if level not in STRIPPED_AT or _PROSE_READ.search(source):
        return source
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source
    return module.visit(_Unprosed()).code


def _is_prose(statement: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    """A statement that is a string literal alone (a docstring, or an attribute's)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        statement = statement.body[0]
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

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        header = [line for line in updated_node.header if line.comment is None]
        if len(header) != len(updated_node.header):
            header = []  # a licence or note gone from the top leaves no blank lines there
        return updated_node.with_changes(header=header, body=_code_of(updated_node.body),
                                         footer=_lines_left(updated_node.footer))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        footer = [line for line in updated_node.footer if line.comment is None]
        body = _code_of(updated_node.body) or [cst.SimpleStatementLine(body=[cst.Pass()])]
        return updated_node.with_changes(body=body, footer=footer)


def _code_of(body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """`body` without its string statements; the first statement left starts the block with no
    blank line above it (the line a docstring or a comment stood on is not marked)."""
    kept = [statement for statement in body if not _is_prose(statement)]
    if kept and getattr(kept[0], "leading_lines", None):
        kept[0] = kept[0].with_changes(leading_lines=[])
    return kept


def told_line(source: str, level: str, line: int) -> int:
    """Where line `line` of `source` (1-based) stands in `told_code(source, level)`: the hints,
    the solution and the answer key point into the file as handed out. A line that is not code
    (a comment or docstring line) stands where the next code line does."""
    told = told_code(source, level)
    if told == source:
        return line
    before = [_code_part(text) for text in source.splitlines()]
    after = [text.rstrip() for text in told.splitlines()]
    blocks = difflib.SequenceMatcher(None, before, after, autojunk=False).get_matching_blocks()
    for start, told_start, size in blocks:
        if line - 1 < start + size:  # the block holding the line, or the first one after it
            return told_start + max(0, line - 1 - start) + 1
    return len(after)


def _code_part(text: str) -> str:
    """A line without its trailing comment, as told_code leaves it (a `#` inside a string stays)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text.rstrip()
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    return text[:comment.start[1]].rstrip() if comment is not None else text.rstrip()
