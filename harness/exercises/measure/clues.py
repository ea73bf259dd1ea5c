"""Drop from a handout the comment or docstring sentence that gives its bug away.

A hard exercise must not hand the candidate the answer in prose: "Grow `n_estimators` trees"
above `range(self.n_estimators + 1)` is read, compared and fixed in a minute. The sentence
`harness.exercises.measure.intent` found is removed from the handed-out file only (the reference, the
grader's copy and every other comment stay as they are): a whole-line comment goes with its
line, a trailing comment leaves its code, a docstring loses that sentence (and goes if nothing
is left of it). libcst rewrites the tree, so the rest of the file keeps its formatting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from bugsmith.harness.exercises.measure.intent import stated_intent
from bugsmith.mutators.mutant import Mutant


@dataclass(frozen=True, slots=True, kw_only=True)
class Clue:
    """A sentence to drop: where it starts in the handout, its text, and whether it is a comment."""

    line: int
    text: str  # as harness.exercises.measure.intent reports it (whitespace collapsed)
    comment: bool


def clue_of(reference: str, mutants: Sequence[Mutant], bug: Mutant) -> Clue | None:
    """The sentence near `bug` that states what it contradicts, placed in the handout with all
    `mutants` applied (an earlier edit in the file that adds or removes lines moves it)."""
    intent = stated_intent(reference, bug)
    if not intent.stated:
        return None
    shift = sum(m.mutated.count("\n") - m.original.count("\n") for m in mutants
                if m.file == bug.file and m.span.line < intent.line)
    return Clue(line=intent.line + shift, text=intent.text, comment=intent.comment)


def drop_clues(source: str, clues: Sequence[Clue]) -> str:
    """`source` without `clues`; a clue not found where it is said to be is left alone."""
    if not clues:
        return source
    wrapper = MetadataWrapper(cst.parse_module(source))
    return wrapper.visit(_DropClues(clues)).code


def _collapsed(text: str) -> str:
    return " ".join(text.split())


class _DropClues(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, clues: Sequence[Clue]) -> None:
        super().__init__()
        self.comments = {(c.line, c.text) for c in clues if c.comment}
        self.docstrings = {c.line: c.text for c in clues if not c.comment}

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _is_clue(self, node: cst.CSTNode, comment: cst.Comment | None) -> bool:
        return comment is not None and (self._line(node), _collapsed(comment.value.lstrip("#"))) in self.comments

    def leave_EmptyLine(self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine
                        ) -> cst.EmptyLine | cst.RemovalSentinel:
        if self._is_clue(original_node, original_node.comment):
            return cst.RemoveFromParent()
        return updated_node

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
        sentence = self.docstrings.get(self._line(original_node.body[0]))
        if sentence is None:
            return updated_node
        string = body[0].value
        quote = string.quote
        prefix = string.prefix
        inner = string.value[len(prefix) + len(quote):-len(quote)]
        pattern = r"\s+".join(re.escape(word) for word in sentence.split()) + r"\s*"
        left = re.sub(pattern, "", inner, count=1)
        if left == inner:
            return updated_node
        if not left.strip():
            return cst.RemoveFromParent()
        tail = inner[len(inner.rstrip()):]  # the closing quotes stay where they were
        return updated_node.with_changes(body=[body[0].with_changes(
            value=string.with_changes(value=f"{prefix}{quote}{left.strip()}{tail}{quote}"))])
