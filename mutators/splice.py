"""Turn one proposal into the text of a mutated file without regenerating the whole module.

libcst would regenerate the whole module for every mutant, at the cost of printing every node
of it; instead we render
only the replaced node, with the indentation of the blocks around it, and splice it into the
source at the node's whitespace-inclusive position. The result is then narrowed to the span a
person would point at: the changed token run on one line, or the changed lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange

from bugsmith.mutators.context import Context
from bugsmith.mutators.mutant import Span

_WORD = re.compile(r"[\w.+\-*/%<>=!&|^~@]")


@dataclass(frozen=True, slots=True)
class Splice:
    text: str  # the whole mutated file
    span: Span  # narrowed, in the original file
    original: str
    mutated: str


def _indents(ctx: Context, node: cst.CSTNode) -> list[str]:
    """The indentation tokens that the blocks around `node` emit before each of its lines.

    A `match` statement indents its cases itself (not through an IndentedBlock), so it counts.
    """
    indents = [
        ancestor.indent if ancestor.indent is not None else ctx.module.default_indent
        for ancestor in ctx.ancestors(node)
        if isinstance(ancestor, (cst.IndentedBlock, cst.Match))
    ]
    return indents[::-1]


def render(ctx: Context, node: cst.CSTNode, indents: list[str]) -> str:
    state = CodegenState(
        default_indent=ctx.module.default_indent,
        default_newline=ctx.module.default_newline,
        indent_tokens=list(indents),
    )
    node._codegen(state)
    return "".join(state.tokens)


def replacement_text(
    ctx: Context,
    target: cst.CSTNode,
    replacement: cst.CSTNode | cst.RemovalSentinel,
    indents: list[str],
) -> str:
    """The new text for `target`; a deleted statement keeps its comments, or becomes `pass`."""
    if not isinstance(replacement, cst.RemovalSentinel):
        return render(ctx, replacement, indents)
    leading = tuple(getattr(target, "leading_lines", ()))
    siblings = getattr(ctx.parent(target), "body", ())
    if isinstance(siblings, (list, tuple)) and len(siblings) > 1:
        return "".join(render(ctx, line, indents) for line in leading)
    stub = cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=leading)
    return render(ctx, stub, indents)


def splice(
    ctx: Context,
    source: str,
    line_starts: Sequence[int],
    target: cst.CSTNode,
    position: CodeRange,
    replacement: cst.CSTNode | cst.RemovalSentinel,
    renders_back: dict[int, bool] | None = None,
) -> Splice | None:
    """The mutated file, or None when the node cannot be rendered back to its own text;
    `renders_back` keeps that answer per target for the next proposal at the same node."""
    start = line_starts[position.start.line - 1] + position.start.column
    end = line_starts[position.end.line - 1] + position.end.column
    indents = _indents(ctx, target)
    known = renders_back if renders_back is not None else {}
    if id(target) not in known:
        known[id(target)] = render(ctx, target, indents) == source[start:end]
    if not known[id(target)]:
        return None
    new = replacement_text(ctx, target, replacement, indents)
    text = source[:start] + new + source[end:]
    return _narrow(source, text, start, end, line_starts)


def _narrow(source: str, text: str, start: int, end: int, line_starts: Sequence[int]) -> Splice:
    old_mid, new_mid = source[start:end], text[start : len(text) - (len(source) - end)]
    prefix = 0
    limit = min(len(old_mid), len(new_mid))
    while prefix < limit and old_mid[prefix] == new_mid[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old_mid[-1 - suffix] == new_mid[-1 - suffix]:
        suffix += 1
    lo, hi = start + prefix, end - suffix  # the changed region in `source`
    new_hi = len(text) - (len(source) - hi)
    single_line = "\n" not in source[lo:hi] and "\n" not in text[lo:new_hi]
    if single_line:
        while lo > 0 and _WORD.match(source[lo - 1]):
            lo -= 1
        while hi < len(source) and _WORD.match(source[hi]):
            hi += 1
        new_hi = len(text) - (len(source) - hi)
        if not _readable(source[lo:hi], text[lo:new_hi]) and "\n" not in source[start:end].strip():
            # An insertion or a cut through brackets reads badly: show the whole node.
            node = source[start:end]
            lo = start + len(node) - len(node.lstrip())
            hi = end - (len(node) - len(node.rstrip()))
    else:
        lo = source.rfind("\n", 0, lo) + 1
        newline = source.find("\n", max(hi - 1, lo))
        hi = len(source) if newline < 0 else newline + 1
    new_hi = len(text) - (len(source) - hi)
    return Splice(
        text=text,
        span=_span(lo, hi, line_starts),
        original=source[lo:hi],
        mutated=text[lo:new_hi],
    )


def balanced(text: str) -> bool:
    """Whether every bracket in `text` closes one opened before it, and all are closed."""
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _readable(original: str, mutated: str) -> bool:
    return bool(original.strip()) and bool(mutated.strip()) and balanced(original) and balanced(mutated)


def _span(lo: int, hi: int, line_starts: Sequence[int]) -> Span:
    line = bisect.bisect_right(line_starts, lo)
    end_line = bisect.bisect_right(line_starts, hi)
    return Span(
        line=line,
        column=lo - line_starts[line - 1],
        end_line=end_line,
        end_column=hi - line_starts[end_line - 1],
    )
