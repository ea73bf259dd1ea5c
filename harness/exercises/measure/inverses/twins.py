"""Undo edits of an edit made in one of two twins: the part one twin holds and the other lacks,
written back from the twin (`depth` -> `depth + 1` beside `queue.append((rows[~go_left], depth +
1))`). The buggy program still holds the part in the twin, so the search reads it there, as a
reader comparing the two lines would; where the slip copied the twin's name over the only
spelling of the right one, nothing is left to read and no edit is proposed.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import PART, Undo
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.twins import all_pairs, missing_parts
from bugsmith.mutators.base import Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


class PartFromTwin(Undo[cst.Module]):
    """A part one of two twins holds written back into the other: `depth` -> `depth + 1`."""

    name = "undo/part-from-twin"
    family = Family.BEYOND
    tier = PART
    matcher = m.Module()

    def mutate(self, node: cst.Module, ctx: Context) -> Iterator[Rewrite]:
        for first, second, _ in all_pairs(node):
            if not self.here(first, ctx):
                continue
            for lacking, part in missing_parts(first, second):
                if isinstance(lacking, cst.BaseExpression) and isinstance(part, cst.BaseExpression):
                    bare = part.with_changes(lpar=[], rpar=[])
                    yield Rewrite(target=lacking, replacement=in_place_of(lacking, bare, ctx))
