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

