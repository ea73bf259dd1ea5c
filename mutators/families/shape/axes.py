"""Shape bugs in which axis an operation runs along, and whether the reduced axis stays.

Which axis holds samples and which features is a convention each library picks; on a square
or 2-D array a reduction over the wrong axis still returns numbers, and a dropped `keepdims`
broadcasts row statistics across columns.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, positional, without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import int_value, with_text
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES, is_module_call, module_of
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


class DropKeepdims(Mutator[cst.Call]):
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
        keepdims = keyword(node, "keepdims")
        if keepdims is None:  # the matcher asks for it; this tells the type checker
            return
        yield without_arg(node, keepdims)


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


class SwapAxis(Mutator[cst.Call]):
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
                       "def f(x):\n    return x.sum(axis=-1) + x.std(0)\n",
                       "def f(x):\n    return x.sum(axis=-1) + x.std()\n")),
        Example(before="import pandas as pd\n\ndef f(df):\n"
                       "    return df.mean(axis=0), pd.concat(parts, axis='columns')\n",
                after=("import pandas as pd\n\ndef f(df):\n"
                       "    return df.mean(axis=1), pd.concat(parts, axis='columns')\n",
                       "import pandas as pd\n\ndef f(df):\n"
                       "    return df.mean(axis=0), pd.concat(parts, axis='index')\n",
                       "import pandas as pd\n\ndef f(df):\n    return df.mean(axis=0), pd.concat(parts)\n")),
        Example(before="import numpy as np\n\ndef f(x):\n    return x.mean(axis=0)\n",
                after=("import numpy as np\n\ndef f(x):\n    return x.mean(axis=1)\n",
                       "import numpy as np\n\ndef f(x):\n    return x.mean()\n")),
        Example(before="def f(x):\n    return np.sort(x, axis=1)\n",
                after=("def f(x):\n    return np.sort(x, axis=0)\n",)),
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
    module = module_of(node, ctx)
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


class TransposeEinsumOutput(Mutator[cst.Call]):
    """`np.einsum("...qd,...kd->...qk", q, k)` becomes `"...qd,...kd->...kq"`: the result of the
    contraction comes out transposed.

    Realistic: an einsum spec is a string no checker reads, and its output letters are typed
    from memory; for square operands (queries as many as keys, a square batch) the transposed
    result has the expected shape, so only its values are wrong.
    """

    name = "shape/einsum-transpose"
    family = Family.SHAPE
    explanation = (
        "`{original}` became `{mutated}`: the einsum's last two output axes are swapped, so the "
        "result is the transpose of what the rest of the code expects"
    )
    matcher = m.Call(func=m.Attribute(attr=m.Name("einsum")) | m.Name("einsum"),
                     args=[m.Arg(value=m.SimpleString(), keyword=None), m.ZeroOrMore()])
    examples = (
        Example(before='def f(q, k):\n    return np.einsum("...qd,...kd->...qk", q, k)\n',
                after=('def f(q, k):\n    return np.einsum("...qd,...kd->...kq", q, k)\n',)),
        Example(before="def f(a, b):\n    return einsum('ij,jk->ik', a, b)\n",
                after=("def f(a, b):\n    return einsum('ij,jk->ki', a, b)\n",)),
        # No explicit output, a single output axis, or a repeated letter: nothing to transpose.
        Example(before="def f(a, b, c):\n"
                       "    return np.einsum('ij,jk', a, b), np.einsum('ij->j', a), np.einsum('ii->ii', c)\n",
                after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        spec = node.args[0].value
        assert isinstance(spec, cst.SimpleString)
        if spec.prefix.strip("rR") or "->" not in spec.raw_value:
            return
        head, output = spec.raw_value.rsplit("->", 1)
        letters = [i for i, char in enumerate(output) if char.isalpha()]
        if len(letters) < 2 or output[letters[-1]] == output[letters[-2]]:
            return
        swapped = list(output)
        swapped[letters[-1]], swapped[letters[-2]] = output[letters[-2]], output[letters[-1]]
        text = f"{spec.prefix}{spec.quote}{head}->{''.join(swapped)}{spec.quote}"
        yield Rewrite(replacement=spec.with_changes(value=text), target=spec)
