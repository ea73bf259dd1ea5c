"""Leakage bug in row order: the sort by time dropped before lags and windows run.

Data usually arrives sorted, so the sort looks redundant and is removed; on the first unsorted
file, `shift` and rolling windows take their "previous" rows from the future.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import keyword
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.receivers import method_receiver
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.leakage.row_order import ORDER_METHODS
from bugsmith.mutators.family import Family


class DropSort(Mutator[cst.Call]):
    """`df.sort_values("time")` is dropped before order-dependent work: lags run in file order.

    Realistic: data usually arrives sorted, so the sort looks redundant and is removed; on the
    first unsorted file, `shift` and rolling windows take "previous" rows from the future.
    Proposed only where the same function uses an order-dependent method.
    """

    name = "leakage/drop-sort"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: rows are no longer in time order, so lags and "
        "windows may take their \"past\" values from later rows"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("sort_values") | m.Name("sort_index")))
    examples = (
        Example(before="def f(df):\n    df = df.sort_values('t')\n    return df['y'].shift(1)\n",
                after=("def f(df):\n    return df['y'].shift(1)\n",)),
        Example(before="def f(df):\n    df.sort_index(inplace=True)\n"
                       "    s = df.sort_values(['id', 't']).groupby('id')['y'].diff()\n    return s\n",
                after=("def f(df):\n    s = df.sort_values(['id', 't']).groupby('id')['y'].diff()\n    return s\n",
                       "def f(df):\n    df.sort_index(inplace=True)\n    s = df.groupby('id')['y'].diff()\n"
                       "    return s\n")),
        Example(before="def f(df):\n    return df.sort_values('score').head(10)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        receiver = method_receiver(node, ctx)
        if receiver is None or not _uses_order(ctx.function(node) or ctx.module, node):
            return
        parent = ctx.parent(node)
        line = ctx.parent(parent) if parent is not None else None
        whole_statement = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
        in_place = keyword(node, "inplace")
        if in_place is not None:
            if whole_statement and isinstance(parent, cst.Expr) and m.matches(in_place.value, m.Name("True")):
                yield Rewrite(replacement=cst.RemovalSentinel.REMOVE, target=line, explanation=_DELETED_SORT)
        elif whole_statement and _reassigns(parent, receiver, ctx):
            yield Rewrite(replacement=cst.RemovalSentinel.REMOVE, target=line, explanation=_DELETED_SORT)
        else:
            yield Rewrite(replacement=in_place_of(node, receiver, ctx))


_DELETED_SORT = (
    "`{original}` was deleted: rows are no longer in time order, so lags and windows may take "
    "their \"past\" values from later rows"
)


def _uses_order(scope: cst.CSTNode, sort: cst.Call) -> bool:
    names = sorted(ORDER_METHODS | {"merge_asof"})
    ordered = m.Call(func=m.Attribute(attr=m.OneOf(*(m.Name(name) for name in names))))
    return any(call is not sort for call in m.findall(scope, ordered))


def _reassigns(statement: cst.CSTNode | None, receiver: cst.BaseExpression, ctx: Context) -> bool:
    """`df = df.sort_values(...)`: deleting the line, not leaving `df = df`, is the natural bug."""
    return (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and ctx.code(statement.targets[0].target) == ctx.code(receiver)
    )
