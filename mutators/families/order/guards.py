"""A check moved after the state change it guards: the card's "capacity check after insertion"."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.nodes import dotted, find_all
from bugsmith.mutators.base import Example
from bugsmith.mutators.families.order.effects import Methods, meets, reads, writes
from bugsmith.mutators.families.order.roles import changed, check_test
from bugsmith.mutators.families.order.swap import NeighbourSwap
from bugsmith.mutators.family import Family


class CheckAfterChange(NeighbourSwap):
    """A check (`if ...: raise`, an early `return`, `break` or `continue`, an `assert`) moved
    after the state change it guards: an append, an assignment, a `+=`, a `pop` or a `del` of
    something the check reads.

    Realistic: "add, then check" reads as naturally as "check, then add", and both agree until
    the limit is reached; then one item too many gets in, a budget goes negative before the loop
    stops, or a call that raises has already changed the object it promised to leave alone.
    """

    name = "order/check-after-change"
    family = Family.ORDER
    explanation = "a check now runs after the state change it guards"
    why = ("the check `{moved}` now runs after `{other}`, the change it guards: by the time it "
           "fires, the change it should have refused is made")
    moves_later = True
    examples = (
        Example(
            before="def add(batch, item, cap):\n    if len(batch) >= cap:\n        raise ValueError('full')\n"
            "    batch.append(item)\n",
            after=("def add(batch, item, cap):\n    batch.append(item)\n    if len(batch) >= cap:\n"
                   "        raise ValueError('full')\n",),
        ),
        Example(
            before="def spend(self, cost):\n    while True:\n        if self.left < cost:\n            break\n"
            "        self.left -= cost\n",
            after=("def spend(self, cost):\n    while True:\n        self.left -= cost\n"
                   "        if self.left < cost:\n            break\n",),
        ),
        Example(  # the change touches nothing the check reads: the two commute
            before="def f(xs, n, out):\n    if n < 0:\n        raise ValueError(n)\n    out.append(xs)\n",
            after=(),
        ),
        Example(  # a membership guard after the insertion would always fire: nobody ships that
            before="def f(seen, x):\n    if x in seen:\n        return\n    seen.add(x)\n", after=()),
        Example(  # a conversion of the checked name is not a change of state
            before="def f(x):\n    if x is None:\n        raise TypeError\n    x = float(x)\n    return x\n",
            after=(),
        ),
    )

    def moves(self, node: cst.SimpleStatementLine | cst.If) -> bool:
        return check_test(node) is not None

    def bug(self, first: cst.BaseStatement, second: cst.BaseStatement, methods: Methods) -> bool:
        test = check_test(first)
        changes = changed(second, methods) if test is not None else None
        if test is None or not changes or writes(test, methods):
            return False
        return meets(changes, reads(test, methods)) and not _membership(test, changes)


def _membership(test: cst.BaseExpression, changes: set[str]) -> bool:
    """Does the check ask whether something is in a container the change fills (`x in seen`)?"""
    asks = m.ComparisonTarget(operator=m.In() | m.NotIn())
    return any(dotted(t.comparator) in changes for t in find_all(test, cst.ComparisonTarget, asks))
