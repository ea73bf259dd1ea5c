"""Undo edits that write a part back around a value: the call, the reshape, the lag or the
grouping a forward operator took away (`x` -> `x.squeeze()`, `s` -> `s.shift(1)`, `x - d` ->
`max(0, x - d)`), and the two area formulas the metric operators turn into sums.

The wrappers are the idioms the forward operators remove, the same list for every program; a
wrapper whose argument is a name (`df.groupby(keys)`) takes a name the function never reads.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import WRITTEN, Undo, as_receiver, bare, unused_names, value_sites
from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.expressions import in_place_of
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES, imported_names
from bugsmith.mutators.base import Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# `{r}`: the value as a receiver (parenthesised unless an atom); `{a}`: as an argument;
# `{np}`: the module's name for numpy.
WRAPPERS = (
    # shape: a squeeze, a flatten, a new axis
    "{r}.squeeze()", "{np}.squeeze({a}, axis=1)", "{r}.ravel()", "{np}.ravel({a})", "{r}.flatten()",
    "{r}.reshape(-1)", "{np}.reshape({a}, (-1,))", "{r}[:, None]", "{r}[None, :]", "{r}[None]",
    "{r}[..., {np}.newaxis]", "{np}.expand_dims({a}, axis=1)",
    # leakage: a lag
    "{r}.shift(1)",
    # a transforming call (beyond/unwrap-call, unwrap-argument) and a reversal (metric/flip-sort-order)
    "abs({a})", "{np}.abs({a})", "{np}.sqrt({a})", "{r}.copy()", "max(0, {a})", "{np}.maximum({a}, 0)",
    "sorted({a})", "{np}.sort({a})", "{np}.unique({a})", "{np}.any({a})", "{np}.all({a})", "{r}[::-1]",
    # metric: a label looked up from a class index, a curve's origin
    "self.classes_[{a}]", "{np}.r_[0, {a}]",
    # a slice bound (beyond/drop-slice-bound) and an epsilon (beyond/drop-operand)
    "{r}[1:]", "{r}[:-1]", "({a} + 1e-9)", "({a} + 1e-12)",
)


def numpy_name(ctx: Context) -> str:
    """What the module calls numpy: its import's name, else `np`."""
    imported = imported_names(ctx.module)
    return next((name for name in ("np", "numpy", "jnp", "xp") if name in imported), "np")


class Rewrap(Undo[cst.CSTNode]):
    """A value wrapped again in what a forward operator took off it."""

    name = "undo/rewrap"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = (m.Name() | m.Attribute() | m.Subscript() | m.Call() | m.BinaryOperation() | m.UnaryOperation()
               | m.Comparison() | m.BooleanOperation())

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        for site in value_sites(node, ctx):
            code = ctx.code(bare(site))
            receiver = as_receiver(code, site)
            names = dict(r=receiver, a=code, np=numpy_name(ctx))
            function = ctx.function(site)
            in_method = function is not None and m.matches(function, m.FunctionDef(params=m.Parameters(
                params=[m.Param(name=m.Name("self")), m.ZeroOrMore()])))
            for template in WRAPPERS:
                if template.startswith("self.") and not in_method:
                    continue
                yield Rewrite(target=site, replacement=in_place_of(site, ctx.expression(template.format(**names)), ctx))
            yield from self._with_names(site, ctx, receiver, code)

    def _with_names(self, site: cst.BaseExpression, ctx: Context, receiver: str, code: str) -> Iterator[Rewrite]:
        """`max(total, x)` for `total = x`; `df.groupby(keys)` for a `keys` the function never reads."""
        parent = ctx.parent(site)
        targets = parent.targets if isinstance(parent, cst.Assign) else ()
        if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
            target = targets[0].target.value
            for clamp in ("max", "min"):
                yield Rewrite(target=site, replacement=ctx.expression(f"{clamp}({target}, {code})"))
        function = ctx.function(site)
        if function is None:
            return
        for unused in unused_names(function):
            yield Rewrite(target=site, replacement=in_place_of(
                site, ctx.expression(f"{receiver}.groupby({unused})"), ctx))


_WINDOW_STATISTICS = frozenset("mean sum std var min max median count".split())


class StatisticBack(Undo[cst.Call]):
    """A statistic over all rows back to a running one: `s.mean()` -> `s.expanding().mean()`,
    `g.transform("mean")` -> `g.expanding().mean()`, `g.transform("sum")` -> `g.cumsum()`."""

    name = "undo/statistic-back"
    family = Family.LEAKAGE
    tier = WRITTEN
    matcher = m.Call(func=m.Attribute())

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        func = node.func
        assert isinstance(func, cst.Attribute)
        name = func.attr.value
        receiver = ctx.code(func.value)
        if isinstance(func.value, cst.Name) and func.value.value in ARRAY_MODULES | {"pd", "pandas"}:
            return
        if name in _WINDOW_STATISTICS:
            for window in ("expanding()", "expanding(2)", "expanding(3)"):
                yield Rewrite(target=node, replacement=node.with_changes(
                    func=func.with_changes(value=ctx.expression(f"{as_receiver(receiver, func.value)}.{window}"))))
        first = positional(node, 0)
        if name == "transform" and first is not None and isinstance(first.value, cst.SimpleString):
            statistic = first.value.raw_value
            running = {"sum": "cumsum()", "max": "cummax()", "min": "cummin()", "prod": "cumprod()"}.get(statistic)
            if running is not None:
                yield Rewrite(target=node, replacement=ctx.expression(f"{receiver}.{running}"))
            if statistic in _WINDOW_STATISTICS:
                yield Rewrite(target=node, replacement=ctx.expression(f"{receiver}.expanding().{statistic}()"))


def _step_slice(node: cst.CSTNode) -> bool:
    """`y[1:]` or `y[:-1]`: one end of each step of a curve."""
    return m.matches(node, m.Subscript(slice=[m.SubscriptElement(slice=m.Slice(
        lower=m.Integer("1"), upper=None, step=None) | m.Slice(
        lower=None, upper=m.UnaryOperation(operator=m.Minus(), expression=m.Integer("1")), step=None))]))


class AreaBack(Undo[cst.Call]):
    """A sum of rectangles back to trapezoids: `np.sum(np.diff(x) * y[1:])` ->
    `np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2`, or to `np.trapezoid(y, x)`."""

    name = "undo/area-back"
    family = Family.METRIC
    tier = WRITTEN
    matcher = m.Call()

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx) or callee(node) not in ("sum", "nansum"):
            return
        heights = m.findall(node, m.Subscript())
        for height in (h for h in heights if _step_slice(h)):
            assert isinstance(height, cst.Subscript)
            curve = ctx.code(height.value)
            pair = ctx.expression(f"({curve}[1:] + {curve}[:-1])")
            halved = ctx.expression(f"{ctx.code(node.deep_replace(height, pair))} / 2")
            yield Rewrite(target=node, replacement=in_place_of(node, halved, ctx))
        first = positional(node, 0)
        product = bare(first.value) if first is not None and len(node.args) == 1 else None
        if isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply):
            for height, steps in ((product.left, product.right), (product.right, product.left)):
                if _step_slice(height) and isinstance(steps, cst.Call) and callee(steps) == "diff":
                    x = positional(steps, 0)
                    if x is None:
                        continue
                    y = ctx.code(cst.ensure_type(height, cst.Subscript).value)
                    for rule in ("trapezoid", "trapz"):
                        yield Rewrite(target=node, replacement=ctx.expression(
                            f"{numpy_name(ctx)}.{rule}({y}, {ctx.code(x.value)})"))


_KEY_LIST_CALLS = frozenset({"groupby", "sort_values", "drop_duplicates", "duplicated", "merge", "set_index",
                             "pivot_table", "sort_index"})


class KeyBack(Undo[cst.Call]):
    """A key put back in a key list: `groupby(["day"])` -> `groupby(["user", "day"])`, the key
    read from another key list of the function."""

    name = "undo/key-back"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = m.Call(func=m.Attribute())

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx) or callee(node) not in _KEY_LIST_CALLS:
            return
        function = ctx.function(node)
        assert function is not None
        keys: dict[str, None] = {}
        for found in m.findall(function, m.List() | m.Tuple()):
            elements = found.elements if isinstance(found, (cst.List, cst.Tuple)) else ()
            for element in elements:
                if isinstance(element.value, cst.SimpleString):
                    keys[ctx.code(element.value)] = None
        for arg in node.args:
            if not isinstance(arg.value, cst.List):
                continue
            held = {ctx.code(e.value) for e in arg.value.elements}
            for key in (k for k in keys if k not in held):
                inner = [ctx.code(e.value) for e in arg.value.elements]
                for place in range(len(inner) + 1):
                    listed = ", ".join([*inner[:place], key, *inner[place:]])
                    yield Rewrite(target=arg.value, replacement=ctx.expression(f"[{listed}]"))


class PartBack(Undo[cst.CSTNode]):
    """An operand or a clause put back, of a name the function never reads: `k` -> `k - n`,
    `rest` -> `rest + [x]`, `b is None` -> `a is None or b is None`, `ok` -> `x > 0 and ok`."""

    name = "undo/part-back"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = m.Name() | m.Attribute() | m.Subscript() | m.Call() | m.BinaryOperation() | m.Comparison() | m.List()

    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        function = ctx.function(node)
        if not self.here(node, ctx) or function is None:
            return
        unused = unused_names(function)
        if not unused:
            return
        sites = list(value_sites(node, ctx))
        if isinstance(node, cst.Comparison) and not sites:
            sites = [node]
        for site in sites:
            code = ctx.code(bare(site))
            for name in unused:
                operators = ("+", "-", "*", "/", "and", "or")
                texts = [f"{code} {op} {name}" for op in operators] + [f"{name} {op} {code}" for op in operators]
                texts += [f"{code} + [{name}]", f"[{name}] + {code}"]
                texts += [f"{name} > 0 and {code}", f"{code} / ({name} + 1e-9)"]
                if isinstance(site, cst.Comparison):
                    renamed = _renamed(site, name, ctx)
                    texts += [f"{other} {op} {code}" for other in renamed for op in ("or", "and")]
                    texts += [f"{code} {op} {other}" for other in renamed for op in ("or", "and")]
                for text in texts:
                    yield Rewrite(target=site, replacement=ctx.expression(f"({text})"))


def _renamed(comparison: cst.Comparison, name: str, ctx: Context) -> list[str]:
    """`comparison` with one of its plain names read as `name` instead: the same test of another value."""
    found = []
    for each in m.findall(comparison, m.Name()):
        assert isinstance(each, cst.Name)
        if each.value not in ("None", "True", "False"):
            found.append(ctx.code(comparison.deep_replace(each, cst.Name(name))))
    return found
