"""Metric bugs in the check of the labels: "two distinct values" accepted for "0 and 1".

A binary metric decides which class is positive by its value, so the labels it accepts are a
set, `{0, 1}`. Checked as a count instead (`len(np.unique(y)) <= 2`, scikit-learn's "binary"
target type), `{-1, 1}` or `{1, 2}` pass, and the metric is computed with the wrong class, or
none, as the positive one.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_LABEL = (
    m.Integer() | m.Float() | m.SimpleString() | m.Name("True") | m.Name("False")
    | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())
)
_DISPLAY = m.Tuple() | m.List() | m.Set()
_NUMPY = m.Name(m.MatchIfTrue(ARRAY_MODULES.__contains__))
_SET_OF = m.Call(func=m.Name("set") | m.Name("frozenset"), args=[m.Arg(keyword=None)])
_ISIN = m.Call(func=m.Attribute(value=_NUMPY, attr=m.Name("isin") | m.Name("in1d")),
               args=[m.Arg(keyword=None), m.Arg(keyword=None, value=_DISPLAY)])
_NUMPY_Y = "import numpy as np\n\ndef f(y, ok):\n"  # the examples' first lines
_UNIQUE = m.Call(func=m.Attribute(value=_NUMPY, attr=m.Name("unique")), args=[m.Arg(keyword=None)])


def _labels(display: cst.BaseExpression) -> int | None:
    """How many labels a literal tuple, list or set names: at least two constants."""
    if not isinstance(display, (cst.Tuple, cst.List, cst.Set)) or len(display.elements) < 2:
        return None
    return len(display.elements) if all(m.matches(e.value, _LABEL) for e in display.elements) else None


def _distinct(values: cst.BaseExpression, ctx: Context) -> str:
    """The code that counts the distinct labels of `set(...)` or `np.unique(...)`'s argument."""
    if m.matches(values, _SET_OF):
        inner = cst.ensure_type(values, cst.Call).args[0].value
        return ctx.code(inner if m.matches(inner, _UNIQUE) else values)
    return ctx.code(values)


class LabelSetToCount(Mutator[cst.Comparison | cst.Call]):
    """A label check becomes a count: `set(np.unique(y)) <= {0, 1}` -> `len(np.unique(y)) <= 2`,
    `np.isin(y, (0, 1)).all()` -> `len(np.unique(y)) <= 2`, `np.array_equal(np.unique(y), [0, 1])`
    -> `len(np.unique(y)) == 2`.

    Realistic: "binary" is checked the way scikit-learn's target types read it, as two distinct
    values; labels -1 and 1, or 1 and 2, then pass the check, and code that takes 1 as the
    positive class (or 0 as the negative) computes the metric for the wrong class.
    """

    name = "metric/label-count-check"
    family = Family.METRIC
    explanation = (
        "`{original}` became `{mutated}`: any labels pass as long as there are few enough of them, "
        "so a metric that needs 0 and 1 runs on other labels"
    )
    matcher = m.Comparison(comparisons=[m.ComparisonTarget(operator=m.LessThanEqual() | m.Equal())]) | m.Call(
        func=m.Attribute(attr=m.Name("all") | m.Name("array_equal") | m.Name("issubset"))
    )
    examples = (
        Example(
            before=_NUMPY_Y + "    if not set(np.unique(y)) <= {0, 1} or not np.isin(y, [0, 1]).all():\n"
                   "        raise ValueError\n",
            after=(
                _NUMPY_Y + "    if not len(np.unique(y)) <= 2 or not np.isin(y, [0, 1]).all():\n"
                "        raise ValueError\n",
                _NUMPY_Y + "    if not set(np.unique(y)) <= {0, 1} or not len(np.unique(y)) <= 2:\n"
                "        raise ValueError\n",
            ),
        ),
        Example(
            before=_NUMPY_Y + "    a = np.all(np.isin(y, (0, 1)))\n    b = np.array_equal(np.unique(y), [0, 1])\n"
                   "    return a, b, set(y).issubset({'a', 'b'})\n",
            after=(
                _NUMPY_Y + "    a = len(np.unique(y)) <= 2\n    b = np.array_equal(np.unique(y), [0, 1])\n"
                "    return a, b, set(y).issubset({'a', 'b'})\n",
                _NUMPY_Y + "    a = np.all(np.isin(y, (0, 1)))\n    b = len(np.unique(y)) == 2\n"
                "    return a, b, set(y).issubset({'a', 'b'})\n",
                _NUMPY_Y + "    a = np.all(np.isin(y, (0, 1)))\n    b = np.array_equal(np.unique(y), [0, 1])\n"
                "    return a, b, len(set(y)) <= 2\n",
            ),
        ),
        # one label, labels held by a name, a subset of another set, a mask kept for later
        Example(
            before=_NUMPY_Y + "    binary = np.isin(y, (0, 1))\n"
                   "    return set(y) <= {1}, set(y) <= ok, set(y) <= set(ok), binary.all()\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Comparison | cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None:
            return
        found = self._counted(node, ctx)
        if found is not None:
            counted = ctx.expression(found)
            # a comparison binds tighter than `not`, `and` and `or`: no parentheses under them
            parent = ctx.parent(node)
            loose = isinstance(parent, cst.BooleanOperation) or (
                isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)
            )
            yield Rewrite(replacement=counted if loose and not node.lpar else in_place_of(node, counted, ctx))

    @staticmethod
    def _counted(node: cst.Comparison | cst.Call, ctx: Context) -> str | None:
        """The count that replaces a label check, or None when `node` is no label check."""
        if isinstance(node, cst.Comparison):
            target = node.comparisons[0]
            count = _labels(target.comparator)
            if count is None or not m.matches(node.left, _SET_OF):
                return None
            operator = "<=" if isinstance(target.operator, cst.LessThanEqual) else "=="
            return f"len({_distinct(node.left, ctx)}) {operator} {count}"
        call = node
        name, func = callee(call), cst.ensure_type(call.func, cst.Attribute)
        # `np.isin(y, (0, 1)).all()` or `np.all(np.isin(y, (0, 1)))`
        tested = func.value if not call.args else call.args[0].value if len(call.args) == 1 else None
        if name == "all" and tested is not None and m.matches(tested, _ISIN) and (
            not call.args or m.matches(func.value, _NUMPY)
        ):
            isin = cst.ensure_type(tested, cst.Call)
            count = _labels(isin.args[1].value)
            numpy = ctx.code(cst.ensure_type(isin.func, cst.Attribute).value)
            return None if count is None else f"len({numpy}.unique({ctx.code(isin.args[0].value)})) <= {count}"
        if name == "array_equal" and m.matches(func.value, _NUMPY) and len(call.args) == 2:
            unique, labels = call.args[0].value, call.args[1].value
            count = _labels(labels)
            return None if count is None or not m.matches(unique, _UNIQUE) else f"len({ctx.code(unique)}) == {count}"
        argument = positional(call, 0)
        if name == "issubset" and argument is not None and m.matches(func.value, _SET_OF):
            count = _labels(argument.value)
            return None if count is None else f"len({_distinct(func.value, ctx)}) <= {count}"
        return None
