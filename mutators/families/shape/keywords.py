"""Shape bugs of a keyword added: a reduction keeps the axis it reduced.

The rows are the shape family's in the one table of keyword traps
(`bugsmith.mutators.analysis.keyword_traps`); dropping `keepdims=True` and flipping an axis are
`shape/drop-keepdims` and `shape/swap-axis`.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.keyword_traps import trap_rewrites
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


class ShapeKeywordTrap(Mutator[cst.Call]):
    """`x.max(axis=1)` becomes `x.max(axis=1, keepdims=True)`: the result is an (n, 1) column.

    Realistic: `keepdims=True` is the habit of row-centring code (`x - x.max(axis=1,
    keepdims=True)`), carried into a reduction whose (n,) result meets other (n,) vectors; the
    column broadcasts against them into an (n, n) matrix, and a later `.mean()` or `.sum()`
    hides the shape. Only along the last axis of a numpy reduction: a kept axis 0 broadcasts
    as numpy would add it anyway, and pandas reductions have no such keyword.
    """

    name = "shape/keyword-trap"
    family = Family.SHAPE
    explanation = "`{original}` became `{mutated}`: the reduced axis is kept"
    matcher = m.Call(args=[m.AtLeastN(n=1)])
    examples = (
        Example(
            before="import numpy as np\n\ndef f(p, x):\n    return p.argmax(axis=1), np.sum(x, axis=-1) / len(x)\n",
            after=(
                "import numpy as np\n\ndef f(p, x):\n    return p.argmax(axis=1, keepdims=True), "
                "np.sum(x, axis=-1) / len(x)\n",
                "import numpy as np\n\ndef f(p, x):\n    return p.argmax(axis=1), "
                "np.sum(x, axis=-1, keepdims=True) / len(x)\n",
            ),
        ),
        # axis 0, no axis, already kept, a pandas module's method, torch's `sum(dim=...)`
        Example(
            before="import numpy as np\n\ndef f(x, t):\n    return np.sum(x, axis=0), np.max(x), "
                   "np.mean(x, axis=1, keepdims=False), t.sum(dim=1)\n",
            after=(),
        ),
        Example(before="import pandas as pd\n\ndef f(df):\n    return df.sum(axis=1)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        yield from trap_rewrites(node, ctx, self.family)
