"""Beyond-classic bugs of a keyword added with its trap value: counts, samples and splits.

The rows are the beyond family's in the one table of keyword traps
(`bugsmith.mutators.analysis.keyword_traps`); a keyword dropped is `beyond/drop-keyword`, and a
flag flipped is `classic/true-false`.
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


class BeyondKeywordTrap(Mutator[cst.Call]):
    """A pandas, numpy or scikit-learn call gains a keyword with its trap value:
    `value_counts(normalize=True)`, `sample(n, replace=True)`, `rng.choice(n, k, replace=False)`,
    `train_test_split(X, y, shuffle=False)`.

    Realistic: each keyword's default is what most code wants, and the other value is one
    copied from another context (an exploratory notebook, a bootstrap, a time-series split);
    the call still returns a result of the right type.
    """

    name = "beyond/keyword-trap"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the call now does something else than its default"
    matcher = m.Call()
    examples = (
        Example(
            before="import numpy as np\n\ndef f(rng, n):\n    return rng.choice(n, size=n)\n",
            after=("import numpy as np\n\ndef f(rng, n):\n    return rng.choice(n, size=n, replace=False)\n",),
        ),
        Example(
            before="import pandas as pd\n\ndef f(s):\n    return s.value_counts()\n",
            after=(
                "import pandas as pd\n\ndef f(s):\n    return s.value_counts(normalize=True)\n",
                "import pandas as pd\n\ndef f(s):\n    return s.value_counts(sort=False)\n",
                "import pandas as pd\n\ndef f(s):\n    return s.value_counts(dropna=False)\n",
            ),
        ),
        # one draw of the standard library, keywords written, a module function named `choice`
        Example(
            before="import random\n\ndef f(xs, df):\n    return random.choice(xs), df.sample(3, replace=False), "
                   "rng.choice(xs)\n",
            after=(),
        ),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        yield from trap_rewrites(node, ctx, self.family)
