"""Window bugs of a keyword: which end of a window, an interval, a bin or a grid is included.

The rows are the window family's in the one table of keyword traps
(`bugsmith.mutators.analysis.keyword_traps`); `min_periods` one off is `window/min-periods`, and
`side` or `closed` turned to the other side is `beyond/sibling-keyword`.
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


class WindowKeywordTrap(Mutator[cst.Call]):
    """An edge keyword set the other way: `closed="both"` or `min_periods=1` on a rolling window,
    `inclusive="left"` on `between`, `right=False` on `pd.cut`, `side="right"` on
    `searchsorted`, `endpoint=False` on `linspace`.

    Realistic: each keyword decides whether the value exactly at an edge is in or out, each
    library picks its own default, and the code runs either way; only the rows, bins or
    positions at the edges change.
    """

    name = "window/keyword-trap"
    family = Family.WINDOW
    explanation = "`{original}` became `{mutated}`: the edge of the window or interval moved"
    matcher = m.Call(args=[m.AtLeastN(n=1)])
    examples = (
        Example(
            before="import pandas as pd\n\ndef f(s, w):\n    return s.shift(1).rolling(w).mean()\n",
            after=(
                "import pandas as pd\n\ndef f(s, w):\n    return s.shift(1).rolling(w, min_periods=1).mean()\n",
                "import pandas as pd\n\ndef f(s, w):\n    return s.shift(1).rolling(w, closed=\"both\").mean()\n",
                "import pandas as pd\n\ndef f(s, w):\n    return s.shift(1).rolling(w, closed=\"left\").mean()\n",
            ),
        ),
        Example(
            before="import numpy as np\n\ndef f(edges, x):\n"
                   "    return np.searchsorted(edges, x), np.linspace(0, 1, 11)\n",
            after=(
                "import numpy as np\n\ndef f(edges, x):\n"
                "    return np.searchsorted(edges, x, side=\"right\"), np.linspace(0, 1, 11)\n",
                "import numpy as np\n\ndef f(edges, x):\n"
                "    return np.searchsorted(edges, x), np.linspace(0, 1, 11, endpoint=False)\n",
            ),
        ),
        Example(
            before="import pandas as pd\n\ndef f(s, lo, hi):\n"
                   "    return s.between(lo, hi, inclusive='both'), pd.cut(s, 4)\n",
            after=(
                "import pandas as pd\n\ndef f(s, lo, hi):\n"
                "    return s.between(lo, hi, inclusive='left'), pd.cut(s, 4)\n",
                "import pandas as pd\n\ndef f(s, lo, hi):\n"
                "    return s.between(lo, hi, inclusive='neither'), pd.cut(s, 4)\n",
                "import pandas as pd\n\ndef f(s, lo, hi):\n"
                "    return s.between(lo, hi, inclusive='both'), pd.cut(s, 4, right=False)\n",
            ),
        ),
        # `closed` written, `min_periods` given by position (and on an offset window, where it is
        # 1 already), `side` given by position, a call outside any function
        Example(
            before="import pandas as pd\n\ndef f(s, e, x):\n"
                   "    return s.rolling('7D', closed='right').sum(), s.rolling(3, 1).sum(), "
                   "e.searchsorted(x, 'left')\n\nGRID = pd.cut(range(4), 2)\n",
            after=(),
        ),
        # a module that does not import pandas: `rolling` and `between` are someone else's
        Example(before="def f(w, s):\n    return w.rolling(3), s.between(1, 2)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        yield from trap_rewrites(node, ctx, self.family)
