"""Leakage bugs in a lag: the shift dropped, or turned from a lag into a lead.

The shift is the one line that makes a lag feature a lag; without it, or with its sign flipped,
each row sees its own value or a future one, and every metric gets better.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import keyword, method_of, positional
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import in_place_of, int_value
from bugsmith.mutators.analysis.receivers import method_receiver
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.leakage.row_order import groupby_of
from bugsmith.mutators.family import Family


def _shift_periods(node: cst.Call) -> cst.Arg | None:
    return keyword(node, "periods") or positional(node, 0)


class DropShift(Mutator[cst.Call]):
    """`s.shift(k)` becomes `s`: each row now sees the value it is meant to predict.

    Realistic: the shift is the one line that makes a lag feature a lag; it is easy to drop
    while refactoring a feature pipeline, and every metric gets better when it is gone.
    """

    name = "leakage/drop-shift"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: each row now sees its own current value instead of a "
        "past one (future-data leakage)"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("shift")))
    examples = (
        Example(before="def f(s):\n    return s.shift(1).rolling(3).mean()\n",
                after=("def f(s):\n    return s.rolling(3).mean()\n",)),
        Example(before="def f(df):\n    return df.groupby('id')['y'].shift(periods=2, fill_value=0)\n",
                after=("def f(df):\n    return df['y']\n",)),
        Example(before="from scipy import ndimage\n\ndef f(s, image):\n"
                       "    return s.rolling(3).mean(), ndimage.shift(image, 1), self.shift(2)\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.BaseExpression]:
        receiver = method_receiver(node, ctx)
        if receiver is None or len([arg for arg in node.args if arg.keyword is None]) > 1:
            return
        group = groupby_of(receiver)
        if group is not None:  # the unshifted column, not a bare GroupBy object
            frame = method_of(group).value
            receiver = frame if receiver is group else receiver.with_changes(value=frame)
        yield in_place_of(node, receiver, ctx)


class FlipShift(Mutator[cst.Call]):
    """`s.shift(1)` becomes `s.shift(-1)` (or the reverse): the lag becomes a lead.

    Realistic: the sign convention of `shift` is remembered the wrong way round about half the
    time (`shift(-1)` builds next-step targets, `shift(1)` lags), and both run without a warning.
    """

    name = "leakage/flip-shift"
    family = Family.LEAKAGE
    explanation = (
        "`{original}` became `{mutated}`: the shift now runs the other way, so each row sees a "
        "future value instead of a past one"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("shift")))
    examples = (
        Example(before="def f(s, lag):\n    return s.shift(1) - s.shift(periods=lag)\n",
                after=("def f(s, lag):\n    return s.shift(-1) - s.shift(periods=lag)\n",
                       "def f(s, lag):\n    return s.shift(1) - s.shift(periods=-lag)\n")),
        Example(before="def f(df):\n    df['target'] = df['y'].shift(-1)\n    return df['y'].shift()\n",
                after=("def f(df):\n    df['target'] = df['y'].shift(1)\n    return df['y'].shift()\n",
                       "def f(df):\n    df['target'] = df['y'].shift(-1)\n    return df['y'].shift(-1)\n")),
        Example(before="def f(s, a, b):\n    return s.shift(0), s.shift(a + b), self.shift(1)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if method_receiver(node, ctx) is None:
            return
        periods = _shift_periods(node)
        if periods is None:
            if not node.args:
                yield Rewrite(replacement=node.with_changes(args=[cst.Arg(value=ctx.expression("-1"))]))
            return
        value, number = periods.value, int_value(periods.value)
        if number is not None:
            flipped = ctx.expression(str(-number)) if number else None
        elif isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            flipped = value.expression
        elif isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            flipped = cst.UnaryOperation(operator=cst.Minus(), expression=value)
        else:
            flipped = None
        if flipped is None:
            return
        if (number is not None and number < 0) or isinstance(value, cst.UnaryOperation):
            yield Rewrite(
                replacement=flipped,
                target=value,
                explanation=(
                    "`{original}` became `{mutated}`: a lead became a lag, so the value meant "
                    "to come from the next step (a target) now comes from the previous one"
                ),
            )
        else:
            yield Rewrite(replacement=flipped, target=value)
