"""Nodes found by a matcher, typed as the class that the matcher matches.

libcst's `m.findall` returns plain `CSTNode`s, so a mutator that reads a field of what it found
would need a cast at each use; `find_all` checks the class once, where the nodes are found.
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
import libcst.matchers as m

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


def find_all(
    tree: cst.CSTNode, kind: type[NodeT] | tuple[type[NodeT], ...], matcher: m.BaseMatcherNode
) -> list[NodeT]:
    """The nodes of `tree` (itself included) that `matcher`, a matcher of `kind` (a class or a
    tuple of them, as for `isinstance`), matches; in source order, as `m.findall` finds them."""
    return [node for node in m.findall(tree, matcher) if isinstance(node, kind)]


def dotted(node: cst.CSTNode | None) -> str | None:
    """`self.queue` for `self.queue`, None for anything that is not a plain name chain."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = dotted(node.value)
        return None if owner is None else f"{owner}.{node.attr.value}"
    return None
