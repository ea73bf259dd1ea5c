"""Shape bugs: an array keeps, gains or loses an axis, and numpy broadcasting hides the mistake.

The bugs people write in numpy and pandas code rarely crash: a (n, 1) column meets a (n,)
vector and silently becomes an (n, n) matrix, a reduction runs over the wrong axis and still
returns numbers. Each mutator matches a call or indexing pattern, never a file or a name of ours.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families._calls import (
    ARRAY_MODULES,
    callee,
    in_place_of,
    int_value,
    is_module_call,
    keyword,
    positional,
    replaced_arg,
    spelled_out,
    with_text,
    without_arg,
)
from bugsmith.mutators.mutant import Family


def _is_newaxis(expr: cst.BaseExpression) -> bool:
    return m.matches(expr, m.Name("None") | m.Attribute(attr=m.Name("newaxis")))


def _is_full_slice(element: cst.SubscriptElement) -> bool:
    return m.matches(element.slice, m.Slice(lower=None, upper=None, step=None))


class DropSqueeze(Mutator):
    """`x.squeeze()` becomes `x`: a (n, 1) column stays 2-D where a (n,) vector was meant.

    Realistic: squeeze is the quiet fix after `predict`, `reshape` or `df[["a"]]`; forgetting
    it does not crash, the column broadcasts against every vector it meets.
    """

    name = "shape/drop-squeeze"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: a (n, 1) column is no longer flattened, so it "
        "broadcasts against a (n,) vector into an (n, n) matrix"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("squeeze")))
    examples = (
        Example(before="def f(p, y):\n    return (p.squeeze() - y) ** 2\n",
                after=("def f(p, y):\n    return (p - y) ** 2\n",)),
        Example(before="def f(p, y):\n    return np.squeeze(p + 0.5, axis=1) * y\n",
                after=("def f(p, y):\n    return (p + 0.5) * y\n",)),
        Example(before="def f(p):\n    return np.squeeze\n", after=()),  # not called
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.BaseExpression]:
        if not is_module_call(node, ctx):
            yield in_place_of(node, node.func.value, ctx)
        elif (array := positional(node, 0)) is not None:
            yield in_place_of(node, array.value, ctx)


class SqueezeAllAxes(Mutator):
    """`x.ravel()` or `x.squeeze(axis=1)` becomes `x.squeeze()`: every length-1 axis goes.

    Realistic: `.squeeze()` is the popular way to flatten a column, and it works until a batch of
    one sample arrives, when the sample axis disappears too and a (1,) vector becomes a scalar.
    """

    name = "shape/squeeze-all-axes"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: a bare squeeze also drops the sample axis when there "
        "is one sample, turning a (1, 1) array into a 0-d scalar instead of a (1,) vector"
    )
    matcher = m.Call(
        func=m.Attribute(attr=m.Name("ravel") | m.Name("flatten") | m.Name("squeeze") | m.Name("reshape"))
    )
    examples = (
        Example(before="def f(y):\n    return y.ravel()\n", after=("def f(y):\n    return y.squeeze()\n",)),
        Example(before="def f(y):\n    return y.reshape(-1)\n", after=("def f(y):\n    return y.squeeze()\n",)),
        Example(before="def f(y):\n    return y.squeeze(axis=1)\n", after=("def f(y):\n    return y.squeeze()\n",)),
        Example(before="def f(y):\n    return np.squeeze(y, 1)\n", after=("def f(y):\n    return np.squeeze(y)\n",)),
        Example(before="def f(y):\n    return np.ravel(y)\n", after=("def f(y):\n    return np.squeeze(y)\n",)),
        Example(before="def f(y):\n    return y.squeeze(), y.reshape(-1, 1), np.squeeze(y)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        name, func = callee(node), node.func
        if is_module_call(node, ctx):
            if name == "squeeze" and (axis := keyword(node, "axis") or positional(node, 1)):
                yield without_arg(node, axis)
            elif name == "ravel" and len(node.args) == 1:
                yield node.with_changes(func=func.with_changes(attr=cst.Name("squeeze")))
        elif name == "squeeze":
            if node.args:
                yield node.with_changes(args=())
        elif name in ("ravel", "flatten") or _flattens(node):
            yield node.with_changes(func=func.with_changes(attr=cst.Name("squeeze")), args=())


def _flattens(call: cst.Call) -> bool:
    """`x.reshape(-1)` or `x.reshape((-1,))`: a reshape to one dimension."""
    if len(call.args) != 1 or callee(call) != "reshape":
        return False
    value = call.args[0].value
    if isinstance(value, cst.Tuple) and len(value.elements) == 1:
        value = value.elements[0].value
    return int_value(value) == -1


class DropFlatten(Mutator):
    """`x.ravel()`, `x.flatten()` or `x.reshape(-1)` becomes `x`: the array keeps its 2-D shape.

    Realistic: flattening looks like a no-op on data that is already a vector, so it is dropped
    in a clean-up; the (n, 1) input then broadcasts instead of pairing element by element.
    """

    name = "shape/drop-flatten"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: the array is no longer flattened, so a (n, 1) column "
        "broadcasts against a (n,) vector into an (n, n) matrix"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("ravel") | m.Name("flatten") | m.Name("reshape")))
    examples = (
        Example(before="def f(a, b):\n    return a.ravel() == b\n", after=("def f(a, b):\n    return a == b\n",)),
        Example(before="def f(a, b):\n    return np.reshape(a, (-1,)) - np.ravel(b)\n",
                after=("def f(a, b):\n    return a - np.ravel(b)\n", "def f(a, b):\n    return np.reshape(a, (-1,)) - b\n")),
        Example(before="def f(a):\n    return a.reshape(-1, 1), a.flatten\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.BaseExpression]:
        if is_module_call(node, ctx):
            array, shape = positional(node, 0), positional(node, 1)
            if array is None:
                return
            if callee(node) in ("ravel", "flatten") or (shape and _flattens(node.with_changes(args=[shape]))):
                yield in_place_of(node, array.value, ctx)
        elif callee(node) in ("ravel", "flatten") or _flattens(node):
            yield in_place_of(node, node.func.value, ctx)


class TransposeReshape(Mutator):
    """`reshape(-1, 1)` becomes `reshape(1, -1)`: a column turns into a row.

    Realistic: the two spellings differ by the order of two small numbers; both run, and the
    row broadcasts against a column into a matrix or hands a model one sample of n features.
    """

    name = "shape/transpose-reshape"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: an (n, 1) column became a (1, n) row, so it "
        "broadcasts into an (n, n) matrix or reads as one sample with n features"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("reshape")))
    examples = (
        Example(before="def f(x):\n    return x.reshape(-1, 1)\n", after=("def f(x):\n    return x.reshape(1, -1)\n",)),
        Example(before="def f(x):\n    return np.reshape(x, (1, len(x)))\n",
                after=("def f(x):\n    return np.reshape(x, (len(x), 1))\n",)),
        Example(before="def f(x):\n    return x.reshape((n, 1))\n", after=("def f(x):\n    return x.reshape((1, n))\n",)),
        Example(before="def f(x):\n    return x.reshape(-1, 3), x.reshape(1, 1), x.reshape(-1)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if is_module_call(node, ctx):
            shape = keyword(node, "newshape") or keyword(node, "shape") or positional(node, 1)
        else:
            shape = node.args[0] if len(node.args) == 1 else None
        if shape is not None and isinstance(shape.value, cst.Tuple):
            swapped = _swapped(shape.value.elements)
            if swapped is not None:
                yield replaced_arg(node, shape, shape.value.with_changes(elements=swapped))
        elif not is_module_call(node, ctx) and all(arg.keyword is None for arg in node.args):
            swapped = _swapped(node.args)
            if swapped is not None:
                yield node.with_changes(args=swapped)


def _swapped(items: Sequence[cst.Arg] | Sequence[cst.BaseElement]) -> list | None:
    """Two shape entries, exactly one of them the literal 1, exchanged (separators kept)."""
    starred = any(isinstance(item, cst.StarredElement) or getattr(item, "star", "") for item in items)
    if len(items) != 2 or starred:
        return None
    first, second = items
    if (int_value(first.value) == 1) == (int_value(second.value) == 1):
        return None
    return [first.with_changes(value=second.value), second.with_changes(value=first.value)]


class DropKeepdims(Mutator):
    """`keepdims=True` is dropped: the reduced axis disappears instead of staying length 1.

    Realistic: `x - x.mean(axis=1, keepdims=True)` is the textbook row-centring; without the
    flag the (n,) means broadcast along the wrong axis and square inputs give no error at all.
    """

    name = "shape/drop-keepdims"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: the reduced axis is removed, so (n,) row statistics "
        "broadcast across columns instead of down rows"
    )
    matcher = m.Call(
        args=[m.ZeroOrMore(), m.Arg(keyword=m.Name("keepdims"), value=m.Name("True")), m.ZeroOrMore()]
    )
    examples = (
        Example(before="def f(x):\n    return x - x.max(axis=1, keepdims=True)\n",
                after=("def f(x):\n    return x - x.max(axis=1)\n",)),
        Example(before="def f(x):\n    return np.sum(\n        x,\n        keepdims=True,\n        axis=-1,\n    )\n",
                after=("def f(x):\n    return np.sum(\n        x,\n        axis=-1,\n    )\n",)),
        Example(before="def f(x):\n    return x.max(axis=1, keepdims=False)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        yield without_arg(node, keyword(node, "keepdims"))


# The default axis of calls that take one, in numpy (None: the whole flattened array) and in
# pandas (methods reduce over the index, axis 0). Dropping an explicit axis is proposed only when
# it changes the result under every reading of the call, so in a module that imports pandas
# `df.mean(axis=0)` is left alone.
_NUMPY_AXIS: dict[str, int | None] = {
    **dict.fromkeys(
        "mean nanmean sum nansum std nanstd var nanvar min max nanmin nanmax amin amax argmin argmax"
        " nanargmin nanargmax median nanmedian prod nanprod cumsum cumprod nancumsum any all ptp"
        " average count_nonzero percentile nanpercentile quantile nanquantile take flip norm".split()
    ),
    **dict.fromkeys("concatenate stack".split(), 0),
    **dict.fromkeys("sort argsort diff".split(), -1),
}
_PANDAS_AXIS_ZERO = frozenset(
    "mean sum std var sem skew kurt min max median prod cumsum cumprod cummax cummin any all count"
    " nunique mode quantile take diff rank idxmax idxmin argmin argmax argsort apply dropna concat"
    " sort_index sort_values".split()
)
# Reductions whose first positional parameter is the axis (`x.sum(0)`, `np.sum(x, 0)`).
_POSITIONAL_AXIS = frozenset(
    "mean sum std var min max argmin argmax median prod cumsum cumprod any all concatenate stack".split()
)


class SwapAxis(Mutator):
    """`axis=0` becomes `axis=1` (or the reverse, or `-1` becomes `0`), or the axis is dropped.

    Realistic: which axis holds samples and which features is a convention each library picks;
    on a square or 2-D array both axes run without error, and a forgotten axis reduces the whole
    array to one number that broadcasts everywhere.
    """

    name = "shape/swap-axis"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: the operation now runs along another axis (or over "
        "the whole array), mixing features where it should mix samples"
    )
    matcher = m.Call(args=[m.AtLeastN(n=1)])
    examples = (
        Example(before="def f(x):\n    return np.mean(x, axis=0)\n",
                after=("def f(x):\n    return np.mean(x, axis=1)\n", "def f(x):\n    return np.mean(x)\n")),
        Example(before="def f(x):\n    return x.sum(axis=-1) + x.std(1)\n",
                after=("def f(x):\n    return x.sum(axis=0) + x.std(1)\n", "def f(x):\n    return x.sum() + x.std(1)\n",
                       "def f(x):\n    return x.sum(axis=-1) + x.std(0)\n", "def f(x):\n    return x.sum(axis=-1) + x.std()\n")),
        Example(before="import pandas as pd\n\ndef f(df):\n    return df.mean(axis=0), pd.concat(parts, axis='columns')\n",
                after=("import pandas as pd\n\ndef f(df):\n    return df.mean(axis=1), pd.concat(parts, axis='columns')\n",
                       "import pandas as pd\n\ndef f(df):\n    return df.mean(axis=0), pd.concat(parts, axis='index')\n",
                       "import pandas as pd\n\ndef f(df):\n    return df.mean(axis=0), pd.concat(parts)\n")),
        Example(before="import numpy as np\n\ndef f(x):\n    return x.mean(axis=0)\n",
                after=("import numpy as np\n\ndef f(x):\n    return x.mean(axis=1)\n",
                       "import numpy as np\n\ndef f(x):\n    return x.mean()\n")),
        Example(before="def f(x):\n    return np.sort(x, axis=1)\n", after=("def f(x):\n    return np.sort(x, axis=0)\n",)),
        Example(before="def f(x, k):\n    return x.take(0), x.sum(axis=None), max(x, 0), g(x, axis=k)\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        name = callee(node)
        axis = keyword(node, "axis") or _positional_axis(node, name, ctx)
        if axis is None:
            return
        other = _other_axis(axis.value)
        if other is not None:
            yield Rewrite(replacement=other, target=axis.value)
        if _drop_changes_result(node, name, axis.value, ctx):
            yield Rewrite(replacement=without_arg(node, axis))


def _positional_axis(node: cst.Call, name: str | None, ctx: Context) -> cst.Arg | None:
    if name not in _POSITIONAL_AXIS or not isinstance(node.func, cst.Attribute):
        return None
    arg = positional(node, 1 if is_module_call(node, ctx) else 0)
    return arg if arg is not None and int_value(arg.value) in (0, 1, -1) else None


def _axis_number(value: cst.BaseExpression) -> int | None:
    if isinstance(value, cst.SimpleString):
        return {"index": 0, "rows": 0, "columns": 1}.get(value.raw_value)
    return int_value(value)


def _may_use_pandas(ctx: Context) -> bool:
    """Whether `x.mean(axis=0)` might be a pandas method here: only if the module imports pandas."""
    return any(
        "pandas" in ctx.code(statement)
        for statement in ctx.module.body
        if m.matches(statement, m.SimpleStatementLine(body=[m.OneOf(m.Import(), m.ImportFrom())]))
    )


def _drop_changes_result(
    node: cst.Call, name: str | None, value: cst.BaseExpression, ctx: Context
) -> bool:
    axis = _axis_number(value)
    module = node.func.value.value if is_module_call(node, ctx) else None  # type: ignore[attr-defined]
    defaults: list[int | None] = []
    if name in _NUMPY_AXIS and (module is None or module in ARRAY_MODULES):
        defaults.append(_NUMPY_AXIS[name])
    pandas_method = module is None and _may_use_pandas(ctx)
    if name in _PANDAS_AXIS_ZERO and (pandas_method or module in ("pd", "pandas")):
        defaults.append(0)
    if axis is None or not defaults:
        return False  # another library's function: its default axis is unknown
    # With a default of -1, axis 1 is the same axis on the usual 2-D data.
    return all(
        default is None or (axis == 0 if default == -1 else axis != default) for default in defaults
    )


def _other_axis(value: cst.BaseExpression) -> cst.BaseExpression | None:
    axis = int_value(value)
    if axis in (0, 1, -1) and not value.lpar:
        return cst.Integer("1" if axis == 0 else "0")
    if isinstance(value, cst.SimpleString) and value.raw_value in ("index", "columns", "rows"):
        other = "columns" if value.raw_value in ("index", "rows") else "index"
        return with_text(value, other)
    return None


class DropNewAxis(Mutator):
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
                after=("def f(a):\n    return a * a[..., np.newaxis]\n", "def f(a):\n    return np.expand_dims(a, axis=1) * a\n")),
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


class ColumnToRow(Mutator):
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
                after=("def f(X, j):\n    return X[j] > X.iloc[:, 0]\n", "def f(X, j):\n    return X[:, j] > X.iloc[0]\n")),
        Example(before="def f(X, j):\n    return X[:, None], X[:, ...], X[1:, j], X[i, j], X[:, 1:]\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.Subscript]:
        first, second = node.slice
        column = second.slice.value
        if _is_full_slice(first) and not _is_newaxis(column) and not isinstance(column, cst.Ellipsis):
            yield node.with_changes(slice=[second.with_changes(comma=cst.MaybeSentinel.DEFAULT)])


MUTATORS = (
    DropSqueeze,
    SqueezeAllAxes,
    DropFlatten,
    TransposeReshape,
    DropKeepdims,
    SwapAxis,
    DropNewAxis,
    ColumnToRow,
)
