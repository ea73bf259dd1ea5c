"""Rewrite a function body in one pass, replacing chosen nodes and deleting chosen lines.

Some metric bugs change several places of one function at once (every use of a tie index,
every prepended origin point); nodes are chosen by identity, as the mutator found them.
"""

from __future__ import annotations

import libcst as cst


class Replace(cst.CSTTransformer):
    """Replace nodes (by identity) with what `make` builds from their updated version."""

    def __init__(self, targets: dict[int, object], drop: set[int] = frozenset()) -> None:
        super().__init__()
        self._targets, self._drop = targets, drop

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        if id(original) in self._drop:
            return cst.RemovalSentinel.REMOVE
        make = self._targets.get(id(original))
        return make(updated) if make else updated
