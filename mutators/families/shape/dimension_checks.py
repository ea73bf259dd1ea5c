"""Shape bugs in the check of an input's dimensions: one more number of axes accepted or refused.

`if X.ndim != 2: raise` written as `if X.ndim > 2:` lets a 1-D vector through to code that
indexes its second axis; `if q.ndim < 2:` written as `!= 2` refuses the batched 3-D inputs the
contract allows. Only the comparison's operator changes; the number of axes off by one is
`classic/number`'s.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.checks import refuses_when_true
from bugsmith.mutators.analysis.explanations import whole_change
from bugsmith.mutators.analysis.expressions import int_value, respaced
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# The comparison of a number of axes with a literal, and what it becomes: in a condition that
# refuses (`if x.ndim != 2: raise`), and in one that accepts (`assert x.ndim == 2`).
_REFUSING: dict[type[cst.BaseCompOp], tuple[type[cst.BaseCompOp], ...]] = {
    cst.NotEqual: (cst.GreaterThan, cst.LessThan),
    cst.LessThan: (cst.NotEqual,),
    cst.GreaterThan: (cst.NotEqual,),
}
_ACCEPTING: dict[type[cst.BaseCompOp], tuple[type[cst.BaseCompOp], ...]] = {
    cst.Equal: (cst.GreaterThanEqual, cst.LessThanEqual),
    cst.GreaterThanEqual: (cst.Equal,),
    cst.LessThanEqual: (cst.Equal,),
}
_WHY = "the check lets another number of axes through, or refuses one the input may have"
_QK = "import numpy as np\n\ndef f(q, k):\n"  # the examples' first lines
_AXES = (
    m.Attribute(attr=m.Name("ndim"))
    | m.Call(func=m.Attribute(attr=m.Name("ndim")) | m.Name("ndim"))
    | m.Call(func=m.Name("len"), args=[m.Arg(value=m.Attribute(attr=m.Name("shape")))])
)


def _counts_axes(expr: cst.BaseExpression) -> bool:
    """`x.ndim`, `np.ndim(x)`, `len(x.shape)`, or the `min`/`max` of such counts."""
    if m.matches(expr, _AXES):
        return True
    if isinstance(expr, cst.Call) and m.matches(expr.func, m.Name("min") | m.Name("max")):
        return bool(expr.args) and all(_counts_axes(arg.value) for arg in expr.args)
    return False


class DimensionCheck(Mutator[cst.Comparison]):
    """A check of the number of axes tested on one side only, or on both: `x.ndim != 2` becomes
    `x.ndim > 2` or `x.ndim < 2`, and `x.ndim < 2` becomes `x.ndim != 2`.

    Realistic: "must be 2-D" is checked against the mistake its author had in mind (a 3-D
    batch, or a 1-D vector), and the other one passes; or "at least 2-D" is written as "exactly
    2-D" and refuses the batched inputs it should take. A vector let through fails later, far
    from the check, or broadcasts into a wrong answer.
    """

    name = "shape/dimension-check"
    family = Family.SHAPE
    explanation = "`{original}` became `{mutated}`: " + _WHY
    matcher = m.Comparison(comparisons=[m.ComparisonTarget(comparator=m.Integer())])
    examples = (
        Example(
            before="def f(X):\n    if X.ndim != 2:\n        raise ValueError('X must be 2-D')\n"
                   "    return X.shape[1]\n",
            after=(
                "def f(X):\n    if X.ndim > 2:\n        raise ValueError('X must be 2-D')\n    return X.shape[1]\n",
                "def f(X):\n    if X.ndim < 2:\n        raise ValueError('X must be 2-D')\n    return X.shape[1]\n",
            ),
        ),
        Example(
            before=_QK + "    if min(np.ndim(q), len(k.shape)) < 2:\n        raise ValueError\n"
                   "    assert q.ndim == 3\n",
            after=(
                _QK + "    if min(np.ndim(q), len(k.shape)) != 2:\n        raise ValueError\n    assert q.ndim == 3\n",
                _QK + "    if min(np.ndim(q), len(k.shape)) < 2:\n        raise ValueError\n    assert q.ndim >= 3\n",
                _QK + "    if min(np.ndim(q), len(k.shape)) < 2:\n        raise ValueError\n    assert q.ndim <= 3\n",
            ),
        ),
        # not a check (the block reshapes), a length rather than a number of axes, `==` in a
        # refusing check
        Example(
            before="def f(y, n):\n    if y.ndim == 2:\n        y = y.ravel()\n    if len(y) != 1:\n"
                   "        raise ValueError\n    if y.ndim == 0:\n        raise ValueError\n    return y\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[Rewrite]:
        target = node.comparisons[0]
        if not _counts_axes(node.left) or int_value(target.comparator) is None:
            return
        refusing = refuses_when_true(node, ctx)
        if refusing is None:
            return
        table = _REFUSING if refusing else _ACCEPTING
        for new_type in table.get(type(target.operator), ()):
            replacement = target.with_changes(operator=respaced(target.operator, new_type))
            after = ctx.code(node.with_changes(comparisons=[replacement]))
            yield Rewrite(replacement=replacement, target=target,
                          explanation=whole_change(ctx.code(node), after, _WHY))
