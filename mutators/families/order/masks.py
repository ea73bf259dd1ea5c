"""A filter or mask applied after the reduction or normalisation it should precede."""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.base import Example
from bugsmith.mutators.families.order.effects import Methods, meets
from bugsmith.mutators.families.order.roles import filtered, reduced
from bugsmith.mutators.families.order.swap import NeighbourSwap
from bugsmith.mutators.family import Family


class FilterAfterReduction(NeighbourSwap):
    """A filter or mask (`x = x[x > 0]`, `np.where(mask, x, -inf)`, `.dropna()`, `x[~m] = 0`)
    moved after the reduction or normalisation of the same values (`.sum()`, `np.mean`,
    `x / total`, `np.exp`, `softmax`).

    Realistic: attention masked after the softmax, a mean taken before the missing values are
    dropped, a total counted before the invalid rows are removed. The code runs, the shapes
    agree, and the numbers are only a little off until a masked value is large.
    """

    name = "order/filter-after-reduction"
    family = Family.ORDER
    explanation = "a filter or mask now runs after the reduction it should precede"
    why = ("`{moved}` now runs after `{other}`: the reduction or normalisation sees the values the filter or mask "
           "should have removed first")
    moves_later = True
    examples = (
        Example(
            before="import numpy as np\n\ndef attend(scores, mask):\n"
            "    scores = np.where(mask, scores, -np.inf)\n    weights = softmax(scores)\n    return weights\n",
            after=("import numpy as np\n\ndef attend(scores, mask):\n    weights = softmax(scores)\n"
                   "    scores = np.where(mask, scores, -np.inf)\n    return weights\n",),
        ),
        Example(
            before="def mean(x):\n    # drop the gaps first\n    x = x.dropna()\n\n    total = x.sum()\n"
            "    return total / len(x)\n",
            after=("def mean(x):\n    total = x.sum()\n\n    # drop the gaps first\n    x = x.dropna()\n"
                   "    return total / len(x)\n",),
        ),
        Example(
            before="def f(x, mask):\n    if mask is not None:\n        keep = mask > 0\n        x = x[keep & (x > 0)]\n"
            "    return x / x.sum()\n",
            after=(),  # the reduction is returned: moving the filter after a `return` is dead code
        ),
        Example(  # a reordering is not a filter: the sum is the same either way
            before="def f(x, order):\n    x = x[order]\n    total = x.sum()\n    return x, total\n", after=()),
        Example(  # a mask that keeps every row does not change a count
            before="import numpy as np\n\ndef f(x):\n    x = np.where(x > 0, x, 0)\n    n = len(x)\n    return x, n\n",
            after=(),
        ),
    )

    def moves(self, node: cst.SimpleStatementLine | cst.If) -> bool:
        return filtered(node) is not None

    def bug(self, first: cst.BaseStatement, second: cst.BaseStatement, methods: Methods) -> bool:
        mask = filtered(first)
        return mask is not None and meets({mask.chain}, reduced(second, methods, counts=mask.drops))
