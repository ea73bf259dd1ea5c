"""What a mutator may ask about the tree around a site, without walking it itself."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property

import libcst as cst
from libcst.metadata import (
    CodeRange,
    MetadataWrapper,
    ParentNodeProvider,
    ScopeProvider,
    WhitespaceInclusivePositionProvider,
)
from libcst.metadata.scope_provider import Scope


class Context:
    """Read-only facts about one parsed module, shared by every mutator during one visit."""

    def __init__(self, wrapper: MetadataWrapper) -> None:
        self._wrapper = wrapper
        self.module: cst.Module = wrapper.module
        self._parents = wrapper.resolve(ParentNodeProvider)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The innermost function whose body holds `node`."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, cst.FunctionDef):
                return ancestor
        return None

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def expression(self, code: str) -> cst.BaseExpression:
        """Parse an expression with this module's configuration."""
        return cst.parse_expression(code, config=self.module.config_for_parsing)

    def statement(self, code: str) -> cst.BaseStatement:
        return cst.parse_statement(code, config=self.module.config_for_parsing)

    def spans_line(self, node: cst.CSTNode, lines: Sequence[int]) -> bool:
        """Whether `node`'s code (its leading whitespace included) reaches one of the sorted `lines`."""
        where = self._positions[node]
        return overlaps(lines, where.start.line, where.end.line)

    @cached_property
    def _positions(self) -> Mapping[cst.CSTNode, CodeRange]:  # the engine resolves them anyway: no extra pass
        return self._wrapper.resolve(WhitespaceInclusivePositionProvider)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        """libcst's scope of `node` (resolved lazily: most files never need it)."""
        return self._scopes.get(node)

    @cached_property
    def _scopes(self) -> dict[cst.CSTNode, Scope | None]:
        return dict(self._wrapper.resolve(ScopeProvider))


def overlaps(lines: Sequence[int], first: int, last: int) -> bool:
    """Whether the sorted `lines` hold one from `first` to `last`."""
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= last
