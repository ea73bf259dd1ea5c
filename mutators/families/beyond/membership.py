"""Beyond-classic bugs of membership: the wrong collection checked with `in`.

`if node in visited:` written as `if node in stack:`, `if key in train_ids:` as `if key in
test_ids:`: both collections exist, both hold the same kind of item, nothing crashes, and the
answer is wrong for exactly the items the two disagree on (Islam et al. 2019 and the notebook
leakage study name it among data bugs; ManySStuBs4J counts it as a changed identifier).
`wrong-variable` proposes only names that look alike, so it rarely finds this pair.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import similarity
from bugsmith.mutators.families.beyond.wrong_names import WrongVariable
from bugsmith.mutators.family import Family

_MEMBERSHIP = m.ComparisonTarget(operator=m.In() | m.NotIn(), comparator=m.Name())
_COLLECTION_KINDS = frozenset({"set", "mapping", "sequence"})
_MAX_CANDIDATES = 2


def _containers(function: cst.FunctionDef) -> set[str]:
    """Names the function tests membership in (`x in seen`, `k not in cache`)."""
    targets = find_all(function, cst.ComparisonTarget, _MEMBERSHIP)
    return {cst.ensure_type(target.comparator, cst.Name).value for target in targets}


class WrongContainer(Mutator[cst.ComparisonTarget]):
    """`x in a` becomes `x in b`, where `b` is another local collection of the same function.

    Only locals bound before the test and known to be collections: tested for membership
    elsewhere in the function, or bound to a set, dict or list (a set may stand for a list:
    both answer `in`). Never where the site holds a string (a substring test). At most
    two per site, those tested for membership first, then the most alike, then the nearest.
    """

    name = "beyond/wrong-container"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: membership is checked in the wrong collection"
    matcher = _MEMBERSHIP
    examples = (
        Example(
            before=(
                "def walk(graph, start):\n    seen = set()\n    stack = [start]\n"
                "    order = []\n    while stack:\n        node = stack.pop()\n"
                "        if node in seen:\n            continue\n"
                "        seen.add(node)\n        order.append(node)\n"
                "        stack.extend(graph[node])\n    return order\n"
            ),
            after=(
                (
                    "def walk(graph, start):\n    seen = set()\n    stack = [start]\n"
                    "    order = []\n    while stack:\n        node = stack.pop()\n"
                    "        if node in stack:\n            continue\n"
                    "        seen.add(node)\n        order.append(node)\n"
                    "        stack.extend(graph[node])\n    return order\n"
                ),
                (
                    "def walk(graph, start):\n    seen = set()\n    stack = [start]\n"
                    "    order = []\n    while stack:\n        node = stack.pop()\n"
                    "        if node in order:\n            continue\n"
                    "        seen.add(node)\n        order.append(node)\n"
                    "        stack.extend(graph[node])\n    return order\n"
                ),
            ),
        ),
        # not candidates: a number (`limit`), a name of unknown kind never tested for
        # membership (`other`), a global (`KNOWN`), a local bound after the test (`late`)
        Example(
            before=(
                "KNOWN = {1, 2}\n\n\ndef f(x, other, limit: int):\n    seen = {0}\n"
                "    if x in seen or x in KNOWN:\n        return limit\n    late = [x]\n"
                "    return other, late\n"
            ),
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._names = WrongVariable()

    def mutate(self, node: cst.ComparisonTarget, ctx: Context) -> Iterator[Rewrite]:
        site = cst.ensure_type(node.comparator, cst.Name)
        function = ctx.function(node)
        # A set, a list and a dict answer `in` alike, so the kinds checked are collection or not.
        found = self._names.locals_before(site, ctx, same_kind=False)
        if function is None or found is None:
            return
        distances, facts = found
        if facts.kind(site.value) not in (None, *_COLLECTION_KINDS):
            return  # a substring test (`"a" in name`), or a range
        tested = _containers(function)
        collections = [name for name in distances
                       if name in tested or facts.kind(name) in _COLLECTION_KINDS]
        ranked = sorted(collections, key=lambda name: (
            name not in tested, -similarity(site.value, name), distances[name], name))
        for candidate in ranked[:_MAX_CANDIDATES]:
            yield Rewrite(
                replacement=site.with_changes(value=candidate),
                target=site,
                explanation=(f"`{site.value}` became `{candidate}`: membership is checked in the "
                             "wrong collection"),
            )
