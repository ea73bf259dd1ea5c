"""Rewrite a function body in one pass, replacing chosen nodes and deleting chosen lines.

Some metric bugs change several places of one function at once (every use of a tie index,
every prepended origin point); nodes are chosen by identity, as the mutator found them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set

import libcst as cst

# Builds a node's replacement from its updated version (its children already replaced).
Make = Callable[[cst.CSTNode], cst.CSTNode]


class Replace(cst.CSTTransformer):
    """Replace nodes (by identity) with what `make` builds from their updated version."""

    def __init__(self, targets: Mapping[int, Make], drop: Set[int] = frozenset()) -> None:
        super().__init__()
        self._targets, self._drop = targets, drop

    # libcst types `on_leave` as returning the class it was given; a replacement here may be
    # another expression (`x[last]` becomes `x`), which libcst accepts wherever the field does.
    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel:
        if id(original_node) in self._drop:
            return cst.RemovalSentinel.REMOVE
        make = self._targets.get(id(original_node))
        return make(updated_node) if make else updated_node


def replaced(body: cst.BaseSuite, targets: Mapping[int, Make], drop: Set[int]) -> cst.BaseSuite:
    """`body` with the `targets` replaced and the lines in `drop` deleted."""
    new = body.visit(Replace(targets, drop))
    if not isinstance(new, cst.BaseSuite):  # `drop` holds lines of the body, never the body
        raise TypeError(f"a function body became {new!r}")
    return new
