"""Explanations that quote whole expressions where the engine's quote would read badly.

The engine quotes the changed token run of a mutant, which is empty on one side when the edit
is a pure insertion or deletion next to a bracket, or cuts brackets in half. `spelled_out`
fills such explanations in with the code of the whole target and replacement instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import libcst as cst

from bugsmith.mutators.base import Mutator, Proposal, Rewrite, as_rewrites
from bugsmith.mutators.context import Context
from bugsmith.mutators.splice import balanced

MutatorT = TypeVar("MutatorT", bound=Mutator[Any])
NodeT = TypeVar("NodeT", bound=cst.CSTNode)


def spelled_out(
    mutate: Callable[[MutatorT, NodeT, Context], Iterable[Proposal]],
) -> Callable[[MutatorT, NodeT, Context], Iterator[Rewrite]]:
    """Give each rewrite that only inserts or deletes text an explanation quoting whole expressions.

    The engine quotes the changed token run, which is empty on one side when the edit is a pure
    insertion or deletion next to a bracket (`len(x)` → `len(x) - 1` reads "`` became ` - 1`"),
    or cuts brackets in half (`.cumsum(` → `.transform("sum"`). Such rewrites get the
    explanation filled in with the target's and the replacement's code.
    """

    @functools.wraps(mutate)
    def wrapper(self: MutatorT, node: NodeT, ctx: Context) -> Iterator[Rewrite]:
        for rewrite in as_rewrites(mutate(self, node, ctx)):
            target = rewrite.target or node
            if isinstance(rewrite.replacement, cst.RemovalSentinel):
                yield rewrite
                continue
            old, new = ctx.code(target), ctx.code(rewrite.replacement)
            if not _quotable(old, new):
                old, new = _excerpts(old, new)
                text = (rewrite.explanation or self.explanation).format(original=old, mutated=new)
                rewrite = Rewrite(
                    replacement=rewrite.replacement,
                    target=rewrite.target,
                    explanation=text.replace("{", "{{").replace("}", "}}"),
                )
            yield rewrite

    return wrapper


def whole_change(old: str, new: str, why: str) -> str:
    """An explanation quoting two whole expressions, `old` and `new`, for a change the engine would
    quote as one token (`!=` -> `>`); the braces of the code are kept from the engine's format."""
    old, new = _excerpts(old, new)
    return f"`{old}` became `{new}`: {why}".replace("{", "{{").replace("}", "}}")


def _common_prefix(a: str, b: str) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return size


def _quotable(old: str, new: str) -> bool:
    """Whether the changed runs of `old` and `new` read well alone: non-empty, brackets balanced."""
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    return all(_reads_alone(text[prefix : len(text) - suffix]) for text in (old, new))


def _reads_alone(text: str) -> bool:
    """Non-empty, and no bracket or quote left open or closed that the text did not open."""
    return bool(text) and balanced(text) and text.count('"') % 2 == 0 and text.count("'") % 2 == 0


def _excerpts(old: str, new: str, width: int = 60, context: int = 15) -> tuple[str, str]:
    """Both texts on one line; when long, only the part around the change, marked with "..."."""
    old, new = " ".join(old.split()), " ".join(new.split())
    if max(len(old), len(new)) <= width:
        return old, new
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    # Cut at spaces so that no quoted word is split: `...entity).rolling(w, ...` not `...olling(w`.
    start = old.rfind(" ", 0, max(0, prefix - context)) + 1
    end = old.find(" ", len(old) - max(0, suffix - context))
    cut = 0 if end < 0 else len(old) - end

    def excerpt(text: str) -> str:
        return ("..." if start else "") + text[start : len(text) - cut] + ("..." if cut else "")

    return excerpt(old), excerpt(new)
