"""The Mutator base class: a declarative description of one realistic bug.

A mutator says *where* with a libcst matcher and *what* with `mutate`, which yields one rewrite
per variant. It never runs code and never writes a file: the engine parses each file once,
visits it once for all mutators, and builds every mutant from the proposals.

We use a `matcher` class attribute rather than libcst's `@m.visit` decorators so that a single
traversal can serve every registered mutator (a traversal per mutator would cost ~40 passes
per file).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeAlias, TypeVar

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.family import Family

if TYPE_CHECKING:
    from bugsmith.mutators.context import Context


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """A golden example: `before` is a module, `after` every mutant this mutator makes of it."""

    before: str
    after: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rewrite:
    """One proposed variant: replace `target` (default: the matched node) by `replacement`.

    `replacement` may be `cst.RemovalSentinel.REMOVE` for a statement, which the engine turns
    into a deletion (or `pass` where the block would become empty).
    """

    replacement: cst.CSTNode | cst.RemovalSentinel
    target: cst.CSTNode | None = None
    explanation: str | None = None


Proposal: TypeAlias = Rewrite | cst.CSTNode | cst.RemovalSentinel

# The node class that `matcher` matches, which `mutate` receives: `Mutator[cst.Call]`.
NodeT = TypeVar("NodeT", bound=cst.CSTNode)


class Mutator(Generic[NodeT]):
    """Subclass as `Mutator[<the node class of the matcher>]`, set the class attributes, and
    implement `mutate`."""

    name: ClassVar[str]  # "family/what-it-does", unique
    family: ClassVar[Family]
    # One plain sentence about the bug; `{original}` and `{mutated}` are the span texts.
    explanation: ClassVar[str]
    matcher: ClassVar[m.BaseMatcherNode]
    examples: ClassVar[tuple[Example, ...]] = ()

    def mutate(self, node: NodeT, ctx: Context) -> Iterable[Proposal]:
        raise NotImplementedError

    @classmethod
    def node_types(cls) -> tuple[type[cst.CSTNode], ...] | None:
        """The node classes the matcher can match, so the engine dispatches by type."""
        return _node_types(cls.matcher)


# Mutators of different node classes side by side, as the registry and the engine hold them. The
# engine calls `mutate` only with a node that `matcher` matched: a link between two attributes
# that the type checker cannot follow, so the node class is not checked there.
AnyMutator: TypeAlias = Mutator[Any]


def _node_types(matcher: object) -> tuple[type[cst.CSTNode], ...] | None:
    if isinstance(matcher, m.OneOf):
        types: list[type[cst.CSTNode]] = []
        for option in matcher.options:
            option_types = _node_types(option)
            if option_types is None:
                return None
            types.extend(option_types)
        return tuple(types)
    node_type = getattr(cst, type(matcher).__name__, None)
    if isinstance(node_type, type) and issubclass(node_type, cst.CSTNode):
        return (node_type,)
    return None


def as_rewrites(proposals: Iterable[Proposal]) -> Iterator[Rewrite]:
    for proposal in proposals:
        yield proposal if isinstance(proposal, Rewrite) else Rewrite(replacement=proposal)
