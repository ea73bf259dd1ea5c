"""Drop from a handout the comments and docstring sentences that give its bug away.

A medium or hard exercise must not hand the candidate the answer in prose: "Grow
`n_estimators` trees" above `range(self.n_estimators + 1)` is read, compared and fixed in a
minute. Every sentence `harness.exercises.measure.intent` finds near the bug (above it, on its
lines, below it, anywhere in its function) is removed from the handed-out file only (the
reference, the grader's copy and every other comment stay as they are), and leaves no trace: a
block of whole-line comments goes with its lines and with a blank line its removal would leave
at the top of a block or doubled, a trailing comment leaves its code, a docstring loses that
sentence (and the blank lines it would leave) or goes if nothing is left of it. libcst rewrites
the tree, so the rest of the file keeps its formatting. An easy exercise keeps its clues: a
sentence that says what the line should do is what makes it easy (harness.exercises.measure.levels).
A name that contradicts the bug (`entity = ordered[time]`, intent's `named_against`) is no
sentence: it is the code, and it stays in every handout.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from bugsmith.harness.exercises.measure.intent import Intent, stated_intents
from bugsmith.mutators.mutant import Mutant


@dataclass(frozen=True, slots=True, kw_only=True)
class Clue:
    """A sentence to drop: where its comment block or docstring starts (and ends) in the
    handout, its text, and whether it is a comment."""

    line: int
    text: str  # as harness.exercises.measure.intent reports it (whitespace collapsed)
    comment: bool
    end_line: int = 0  # the last line of its comment block; 0: `line` alone


def clues_of(reference: str, mutants: Sequence[Mutant], bug: Mutant) -> tuple[Clue, ...]:
    """Every sentence near `bug` that states what it contradicts, placed in the handout with all
    `mutants` applied (an earlier edit in the file that adds or removes lines moves it); a name
    that does is code, not a clue to drop."""
    return tuple(_placed(intent, mutants, bug) for intent in stated_intents(reference, bug) if not intent.in_code)


def clue_of(reference: str, mutants: Sequence[Mutant], bug: Mutant) -> Clue | None:
    """The first of `clues_of`, or None."""
    found = clues_of(reference, mutants, bug)
    return found[0] if found else None


def _placed(intent: Intent, mutants: Sequence[Mutant], bug: Mutant) -> Clue:
    shift = sum(m.mutated.count("\n") - m.original.count("\n") for m in mutants
                if m.file == bug.file and m.span.line < intent.line)
    return Clue(line=intent.line + shift, text=intent.text, comment=intent.comment,
                end_line=(intent.end_line or intent.line) + shift)


def relocated(line: int, before: str, after: str) -> int:
    """Where line `line` of `before` is in `after`, which lost or gained lines around it."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, a0, a1, b0, _ in matcher.get_opcodes():
        if a0 < line <= a1:
            return b0 + (line - a0) if tag == "equal" else b0 + 1
    return line


def code_shape(source: str) -> str | None:
    """The code of `source` as a comparison with the reference should see it: its syntax tree
    without comments, formatting or string statements (a handout may have lost a docstring
    sentence, or every docstring and attribute docstring, and a fix that restores the code is
    still the reference's); None if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                kept = [s for s in statements if not _is_string_statement(s)]
                # A module of only prose is an empty file once told; a block needs a statement.
                setattr(node, field, kept or ([] if isinstance(node, ast.Module) else [ast.Pass()]))
    return ast.dump(tree)


def _is_string_statement(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def drop_clues(source: str, clues: Sequence[Clue]) -> str:
    """`source` without `clues`; a clue not found where it is said to be is left alone."""
    if not clues:
        return source
    wrapper = MetadataWrapper(cst.parse_module(source))
    return wrapper.visit(_DropClues(clues)).code


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _blank(line: cst.EmptyLine) -> bool:
    return line.comment is None


class _DropClues(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, clues: Sequence[Clue]) -> None:
        super().__init__()
        self.comments = {n: c for c in clues if c.comment for n in range(c.line, max(c.line, c.end_line) + 1)}
        self.docstrings: dict[int, list[str]] = {}
        for clue in clues:
            if not clue.comment:
                self.docstrings.setdefault(clue.line, []).append(clue.text)

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _is_clue(self, node: cst.CSTNode, comment: cst.Comment | None) -> bool:
        """A comment on a clue's lines (a one-line clue's comment must hold its sentence)."""
        if comment is None:
            return False
        where = self._line(node)
        clue = self.comments.get(where)
        if clue is None:
            return False
        return clue.end_line > clue.line or _collapsed(clue.text) in _collapsed(comment.value.lstrip("#"))

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode  # type: ignore[override]
                 ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        result = super().on_leave(original_node, updated_node)
        leading: Sequence[cst.EmptyLine] | None = getattr(original_node, "leading_lines", None)
        if isinstance(result, cst.CSTNode) and isinstance(leading, tuple | list):
            now: Sequence[cst.EmptyLine] = getattr(result, "leading_lines", ())
            tidied = self._without_clues(leading, now) if len(leading) == len(now) else None
            if tidied is not None:
                return result.with_changes(leading_lines=tidied)
        if isinstance(result, cst.IndentedBlock) and isinstance(original_node, cst.IndentedBlock):
            footer = self._without_clues(original_node.footer, result.footer)
            if footer is not None:
                return result.with_changes(footer=footer)
        return result

    def _without_clues(self, original: Sequence[cst.EmptyLine], updated: Sequence[cst.EmptyLine]
                       ) -> list[cst.EmptyLine] | None:
        """`updated` without the clue lines, and without the blank lines that would stand alone
        where a clue block began a run of lines or sat between two blank lines; None: no clue."""
        drop = [self._is_clue(old, old.comment) for old in original]
        if not any(drop):
            return None
        kept: list[cst.EmptyLine] = []
        swallow = False  # blank lines after a dropped block that began the run or followed a blank
        for index, line in enumerate(updated):
            if drop[index]:
                if not (index > 0 and drop[index - 1]):
                    swallow = not kept or _blank(kept[-1])
                continue
            if swallow and _blank(line):
                continue
            swallow = False
            kept.append(line)
        return kept

    def leave_TrailingWhitespace(self, original_node: cst.TrailingWhitespace,
                                 updated_node: cst.TrailingWhitespace) -> cst.TrailingWhitespace:
        if self._is_clue(original_node, original_node.comment):
            return updated_node.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
        return updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
                            ) -> cst.IndentedBlock:
        # A docstring that was the whole body stays: libcst would write a `pass` in its place.
        return updated_node if updated_node.body else original_node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine
                                  ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        body = updated_node.body
        if not (len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.SimpleString)):
            return updated_node
        sentences = self.docstrings.get(self._line(original_node.body[0]))
        if not sentences:
            return updated_node
        string = body[0].value
        quote, prefix = string.quote, string.prefix
        inner = string.value[len(prefix) + len(quote):-len(quote)]
        left = inner
        for sentence in sentences:
            pattern = r"\s+".join(re.escape(word) for word in sentence.split()) + r"[ \t]*"
            left = re.sub(pattern, "", left, count=1)
        if left == inner:
            return updated_node
        if not left.strip():
            return cst.RemoveFromParent()
        tail = inner[len(inner.rstrip()):]  # the closing quotes stay where they were
        return updated_node.with_changes(body=[body[0].with_changes(
            value=string.with_changes(value=f"{prefix}{quote}{_tidied(left)}{tail}{quote}"))])


def _tidied(text: str) -> str:
    """A docstring's text after a sentence went: no blank line doubled, none at either end, the
    first line on the line of the opening quotes."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    kept: list[str] = []
    for line in lines:
        if not line.strip() and (not kept or not kept[-1].strip()):
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    if kept:
        kept[0] = kept[0].strip()
    return "\n".join(kept)
