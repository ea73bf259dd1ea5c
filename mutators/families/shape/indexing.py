"""Shape bugs in indexing: an axis no longer added, a column read as a row.

`x[:, None]` and `X[:, j]` are one-token idioms; without them a vector pairs element by element
instead of forming a grid, and a square matrix hands back a sample instead of a feature.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import positional
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.receivers import is_module_call
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


def _is_newaxis(expr: cst.BaseExpression) -> bool:
    return m.matches(expr, m.Name("None") | m.Attribute(attr=m.Name("newaxis")))


def _is_full_slice(element: cst.SubscriptElement) -> bool:
    return m.matches(element.slice, m.Slice(lower=None, upper=None, step=None))


class DropNewAxis(Mutator[cst.Subscript | cst.Call]):
    """`x[:, None]` or `np.expand_dims(x, 1)` becomes `x`: a vector is no longer made a column.

    Realistic: the `None` index is the one-token idiom behind every pairwise-difference and
    outer-product trick; without it the "matrix" is an element-wise vector of the wrong shape.
    """

    name = "shape/drop-newaxis"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: the (n,) vector no longer gains an axis, so "
        "broadcasting pairs elements instead of forming an (n, m) grid"
    )
    matcher = m.Subscript() | m.Call(func=m.Attribute(attr=m.Name("expand_dims")))
    examples = (
        Example(before="def f(a, b):\n    return a[:, None] - b[None, :]\n",
                after=("def f(a, b):\n    return a - b[None, :]\n", "def f(a, b):\n    return a[:, None] - b\n")),
        Example(before="def f(a):\n    return np.expand_dims(a, axis=1) * a[..., np.newaxis]\n",
                after=("def f(a):\n    return a * a[..., np.newaxis]\n",
                       "def f(a):\n    return np.expand_dims(a, axis=1) * a\n")),
        Example(before="def f(d):\n    return d[None] * 2\n", after=("def f(d):\n    return d * 2\n",)),
        Example(before="def f(a, i):\n    a[:, None] = 0\n    return a[:, 0], a[i, None], np.newaxis\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Subscript | cst.Call, ctx: Context) -> Iterator[cst.BaseExpression]:
        if isinstance(node, cst.Call):
            if is_module_call(node, ctx) and (array := positional(node, 0)) is not None:
                yield in_place_of(node, array.value, ctx)
            return
        new_axis = m.Index(value=m.Name("None") | m.Attribute(attr=m.Name("newaxis")))
        kept = m.Slice(lower=None, upper=None, step=None) | m.Index(value=m.Ellipsis())
        adds_axis = any(m.matches(element.slice, new_axis) for element in node.slice)
        only_adds = all(m.matches(element.slice, new_axis | kept) for element in node.slice)
        if adds_axis and only_adds and not _is_assigned(node, ctx):
            yield in_place_of(node, node.value, ctx)


def _is_assigned(node: cst.CSTNode, ctx: Context) -> bool:
    parent = ctx.parent(node)
    return isinstance(parent, cst.AssignTarget) or getattr(parent, "target", None) is node


class ColumnToRow(Mutator[cst.Subscript]):
    """`X[:, j]` becomes `X[j]`: column j (a feature over all samples) becomes row j (a sample).

    Realistic: in plain Python `X[j]` is how you pick "item j"; on a 2-D array it silently picks
    a sample, and for a square training matrix every shape downstream still matches.
    """

    name = "shape/column-to-row"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: this indexes row j (one sample's features) instead "
        "of column j (one feature across samples)"
    )
    matcher = m.Subscript(slice=[m.SubscriptElement(), m.SubscriptElement(slice=m.Index())])
    examples = (
        Example(before="def f(X, j):\n    return X[:, j] > X.iloc[:, 0]\n",
                after=("def f(X, j):\n    return X[j] > X.iloc[:, 0]\n",
                       "def f(X, j):\n    return X[:, j] > X.iloc[0]\n")),
        Example(before="def f(X, j):\n    return X[:, None], X[:, ...], X[1:, j], X[i, j], X[:, 1:]\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.Subscript]:
        first, second = node.slice
        column = cst.ensure_type(second.slice, cst.Index).value  # the matcher's `m.Index()`
        if _is_full_slice(first) and not _is_newaxis(column) and not isinstance(column, cst.Ellipsis):
            yield node.with_changes(slice=[second.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
