"""Metric bugs of a keyword: the statistic normalised by the other count, ties ranked another
way, classes averaged another way.

The rows are the metric family's in the one table of keyword traps
(`bugsmith.mutators.analysis.keyword_traps`); ordinal ranks are `metric/ordinal-ranks`, and a
`ddof` one off is `classic/number`.
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


class MetricKeywordTrap(Mutator[cst.Call]):
    """A statistic's keyword set to the other library's or another school's value: `ddof` added
    to `np.std` (1) or to a pandas `.std()` (0), `rank(method="average")` -> `"min"`,
    `f1_score(..., average="macro")` -> `"micro"` or `"weighted"`.

    Realistic: numpy and pandas disagree on the standard deviation's divisor, rank statistics
    need the average rank of ties, and scikit-learn's averages each answer another question;
    every variant returns a plausible number, only slightly off.
    """

    name = "metric/keyword-trap"
    family = Family.METRIC
    explanation = "`{original}` became `{mutated}`: the statistic is computed the other library's way"
    matcher = m.Call()
    examples = (
        Example(
            before="import numpy as np\n\ndef f(x):\n    return np.std(x), x.var(axis=0)\n",
            after=(
                "import numpy as np\n\ndef f(x):\n    return np.std(x, ddof=1), x.var(axis=0)\n",
                "import numpy as np\n\ndef f(x):\n    return np.std(x), x.var(axis=0, ddof=1)\n",
            ),
        ),
        Example(
            before="import pandas as pd\n\ndef f(df):\n"
                   "    return df['y'].rolling(3).std(), df['s'].rank(method='average')\n",
            after=(
                "import pandas as pd\n\ndef f(df):\n"
                "    return df['y'].rolling(3).std(ddof=0), df['s'].rank(method='average')\n",
                "import pandas as pd\n\ndef f(df):\n"
                "    return df['y'].rolling(3).std(), df['s'].rank(method='min')\n",
            ),
        ),
        Example(
            before="from sklearn.metrics import f1_score\n\ndef f(y, p):\n    return f1_score(y, p, average='macro')\n",
            after=(
                "from sklearn.metrics import f1_score\n\ndef f(y, p):\n    return f1_score(y, p, average='micro')\n",
                "from sklearn.metrics import f1_score\n\ndef f(y, p):\n    return f1_score(y, p, average='weighted')\n",
            ),
        ),
        # `ddof` written, a pandas module's array (`.to_numpy()`), a local `f1_score`, an array's
        # `std` where pandas may own the method
        Example(
            before="import pandas as pd\n\ndef f1_score(y, p):\n    return 0.0\n\n"
                   "def g(s, x, y):\n    return s.std(ddof=1), s.to_numpy().std(), f1_score(y, x), np.std(x, ddof=0)\n",
            after=(),
        ),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        yield from trap_rewrites(node, ctx, self.family)
