"""Shape bugs in how an array is flattened, squeezed or reshaped.

A (n, 1) column that should have become a (n,) vector does not crash: it broadcasts against
every vector it meets into an (n, n) matrix, or hands a model one sample of n features.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, method_of, positional, replaced_arg, without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import in_place_of, int_value
from bugsmith.mutators.analysis.receivers import is_module_call
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


class DropSqueeze(Mutator[cst.Call]):
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
            yield in_place_of(node, method_of(node).value, ctx)
        elif (array := positional(node, 0)) is not None:
            yield in_place_of(node, array.value, ctx)


class SqueezeAllAxes(Mutator[cst.Call]):
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


class DropFlatten(Mutator[cst.Call]):
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
                after=("def f(a, b):\n    return a - np.ravel(b)\n",
                       "def f(a, b):\n    return np.reshape(a, (-1,)) - b\n")),
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
            yield in_place_of(node, method_of(node).value, ctx)


class TransposeReshape(Mutator[cst.Call]):
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
        Example(before="def f(x):\n    return x.reshape((n, 1))\n",
                after=("def f(x):\n    return x.reshape((1, n))\n",)),
        Example(before="def f(x):\n    return x.reshape(-1, 3), x.reshape(1, 1), x.reshape(-1)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.Call]:
        if is_module_call(node, ctx):
            shape = keyword(node, "newshape") or keyword(node, "shape") or positional(node, 1)
        else:
            shape = node.args[0] if len(node.args) == 1 else None
        if shape is not None and isinstance(shape.value, cst.Tuple):
            swapped = _row_column_swapped(shape.value.elements)
            if swapped is not None:
                yield replaced_arg(node, shape, shape.value.with_changes(elements=swapped))
        elif not is_module_call(node, ctx) and all(arg.keyword is None for arg in node.args):
            swapped = _row_column_swapped(node.args)
            if swapped is not None:
                yield node.with_changes(args=swapped)


def _row_column_swapped(items: Sequence[cst.Arg] | Sequence[cst.BaseElement]) -> list | None:
    """Two shape entries, exactly one of them the literal 1, exchanged (separators kept)."""
    starred = any(isinstance(item, cst.StarredElement) or getattr(item, "star", "") for item in items)
    if len(items) != 2 or starred:
        return None
    first, second = items
    if (int_value(first.value) == 1) == (int_value(second.value) == 1):
        return None
    return [first.with_changes(value=second.value), second.with_changes(value=first.value)]
