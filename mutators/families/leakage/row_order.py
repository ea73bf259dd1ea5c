"""Which pandas calls depend on the order of rows, and on the groups they run in.

A lag, a window or a running total is causal only over rows sorted by time and split by
entity; the leakage mutators that undo a sort or a `groupby` find their sites through these.
"""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.analysis.arguments import callee

# Methods whose result depends on row order, and so on the sort and the group they run in.
ORDER_METHODS = frozenset(
    "shift rolling expanding ewm diff pct_change cumsum cumprod cummax cummin cumcount ffill bfill".split()
)


def groupby_of(expr: cst.BaseExpression) -> cst.Call | None:
    """The `X.groupby(...)` call in `X.groupby(k)`, `X.groupby(k)[c]` or `X.groupby(k).c`."""
    if isinstance(expr, (cst.Subscript, cst.Attribute)) and not expr.lpar:
        expr = expr.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and callee(expr) == "groupby":
        return expr
    return None
