"""The roles a statement plays in an order bug, recognised by its shape, never by its names.

A check (`if cond: raise`, `assert cond`), a state change (an item appended, an attribute or an
item assigned, a counter bumped, a `del`), a filter or mask (`x = x[x > 0]`, `np.where(m, x, 0)`,
`.dropna()`, `x[~m] = 0`), a reduction or normalisation (`.sum()`, `np.mean(x)`, `x / total`,
`np.exp(x)`, `softmax(x)`), a removal (`.pop()`, `.remove(v)`, `del d[k]`, a release), and a state
transition (a flag or state attribute set to a constant, an item moved into a collection). Each
function returns the chains the role is about, or None when the statement plays no such role.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, leading_positional
from bugsmith.mutators.analysis.nodes import dotted, find_all
from bugsmith.mutators.families.order.effects import Methods, reads, writes

EXITS = (cst.Return, cst.Raise, cst.Break, cst.Continue)

# Calls that reduce an array or a sequence to a summary, or normalise it: what a filter must precede.
_REDUCTIONS = frozenset({
    "sum", "mean", "nansum", "nanmean", "average", "median", "nanmedian", "std", "nanstd", "var",
    "nanvar", "max", "min", "amax", "amin", "nanmax", "nanmin", "prod", "count_nonzero", "norm",
    "logsumexp", "softmax", "log_softmax", "normalize", "normalise", "exp", "len", "cumsum",
    "count", "nunique",
})
_COUNTS = frozenset({"len", "count", "size"})
# Python's `max(a, b)` and `min(a, b)` compare values; only their one-argument form reduces.
_PAIRWISE = frozenset({"max", "min"})
# Calls whose result is a boolean mask of their input: `np.isfinite(x)`, `s.notna()`.
_MASKS = frozenset({"isfinite", "isnan", "isinf", "isneginf", "isposinf", "isna", "isnull",
                    "notna", "notnull", "isin", "between", "logical_not", "logical_and",
                    "logical_or"})
# Methods that return their receiver without the rows a condition rejects.
_FILTER_METHODS = frozenset({"dropna", "query", "where", "mask", "compress"})
# numpy functions that filter or mask one of their arguments: the positions it may take.
_FILTER_FUNCTIONS = {"where": (1, 2), "compress": (1,), "extract": (1,), "masked_where": (1,)}
_REMOVALS = frozenset({"pop", "popleft", "popitem", "remove", "discard", "clear", "difference_update"})
# Releasing a resource hands it back: the item leaves the caller's books.
_RELEASES = frozenset({"release", "free", "evict"})
_STORES = frozenset({"append", "appendleft", "add", "insert", "put", "put_nowait"})


def single(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    """The one small statement of a one-statement line, else None."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def exits(stmt: cst.CSTNode) -> bool:
    """Is `stmt` a line that leaves its block (`return`, `raise`, `break`, `continue`)?"""
    return isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, EXITS) for s in stmt.body)


def check_test(stmt: cst.CSTNode) -> cst.BaseExpression | None:
    """The condition of a check: `if cond: raise|return|break|continue` with no `else` and nothing
    else in its body, or `assert cond`."""
    small = single(stmt)
    if isinstance(small, cst.Assert):
        return small.test
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    body: cst.BaseSuite | cst.BaseStatement = stmt.body
    if isinstance(body, cst.IndentedBlock):
        if len(body.body) != 1:
            return None
        body = body.body[0]
    inner = single(body)
    return stmt.test if isinstance(inner, EXITS) else None


def changed(stmt: cst.CSTNode, methods: Methods) -> set[str] | None:
    """What a state change changes: a container a known method mutates (`item = q.pop()` too),
    an attribute or an item assigned or deleted, a counter bumped (`n += 1`, `n = n - cost`). A
    plain rebinding such as `x = np.asarray(x)` is a conversion, not a change of state."""
    small = single(stmt)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        found = writes(small, methods)
        return found or None
    if isinstance(small, (cst.AugAssign, cst.Del)):
        return writes(small, methods) or None
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            return writes(small.targets[0], methods) or None
        taken = writes(small.value, methods)
        if taken:
            return taken
        name = dotted(target)
        arithmetic = m.BinaryOperation(operator=m.Add() | m.Subtract() | m.Multiply())
        if name is not None and m.matches(small.value, arithmetic) and name in reads(small.value, methods):
            return {name}
    return None


def _is_mask(index: cst.BaseExpression) -> bool:
    """An index that selects by a condition: `x > 0`, `~m`, `a & b`, `np.isfinite(x)`."""
    if isinstance(index, cst.Comparison):
        return True
    if isinstance(index, cst.UnaryOperation):
        return isinstance(index.operator, (cst.BitInvert, cst.Not))
    if isinstance(index, cst.BinaryOperation):
        return isinstance(index.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
    return isinstance(index, cst.Call) and callee(index) in _MASKS


@dataclass(frozen=True, slots=True, kw_only=True)
class Filter:
    """What a filter or mask changes, and whether it drops rows or only hides values in place."""

    chain: str
    drops: bool  # `x[x > 0]`, `.dropna()`: fewer rows; `np.where(m, x, 0)`, `x[~m] = 0`: as many


def _masked(subscript: cst.BaseExpression) -> str | None:
    """`x` for `x[mask]` or `x.loc[mask]`, where the index is a condition."""
    if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
        return None
    index = subscript.slice[0].slice
    if not isinstance(index, cst.Index) or not _is_mask(index.value):
        return None
    owner = subscript.value
    if isinstance(owner, cst.Attribute) and owner.attr.value == "loc":
        owner = owner.value
    return dotted(owner)


def _filter_sources(value: cst.BaseExpression) -> Iterator[Filter]:
    """The chains `value` returns filtered or masked."""
    masked = _masked(value)
    if masked is not None:
        yield Filter(chain=masked, drops=True)
    if isinstance(value, cst.Call):
        name, func = callee(value), value.func
        if isinstance(func, cst.Attribute) and name in _FILTER_METHODS:
            owner = dotted(func.value)
            if owner is not None and owner.rpartition(".")[2] not in ("np", "numpy"):
                yield Filter(chain=owner, drops=name not in ("where", "mask"))
        for position in _FILTER_FUNCTIONS.get(name or "", ()):
            args = leading_positional(value)
            if position < len(args) and (chain := dotted(args[position].value)) is not None:
                yield Filter(chain=chain, drops=name in ("compress", "extract"))
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        comp = value.for_in
        plain = comp.inner_for_in is None and comp.ifs and isinstance(value.elt, cst.Name)
        if plain and m.matches(comp.target, m.Name(cst.ensure_type(value.elt, cst.Name).value)):
            chain = dotted(comp.iter)
            if chain is not None:
                yield Filter(chain=chain, drops=True)


def filtered(stmt: cst.CSTNode) -> Filter | None:
    """What a filter or mask changes: `x = x[x > 0]`, `x = np.where(m, x, 0)`, `x = x.dropna()`,
    `x = [v for v in x if v]`, `x[~m] = 0`; or an `if` without `else` whose body binds names and
    then does one of those (a mask applied only when one is given)."""
    if isinstance(stmt, cst.If):
        return _conditional_filter(stmt)
    small = single(stmt)
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    in_place = _masked(target)
    if in_place is not None:
        return Filter(chain=in_place, drops=False)
    chain = dotted(target)
    return next((f for f in _filter_sources(small.value) if f.chain == chain), None)


def _conditional_filter(stmt: cst.If) -> Filter | None:
    if stmt.orelse is not None or not isinstance(stmt.body, cst.IndentedBlock):
        return None
    *before, last = stmt.body.body
    plain = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(target=m.Name() | m.Tuple())])])
    if not all(m.matches(s, plain) for s in before):
        return None
    return filtered(last)


def reduced(stmt: cst.CSTNode, methods: Methods, *, counts: bool = True) -> set[str]:
    """The chains a statement reduces or normalises: `x` in `total = x.sum()`, `np.mean(x)`,
    `softmax(x)`, `np.exp(x - peak)` (and `peak`), `x / total` (and `total`). Without `counts`,
    `len(x)` and `x.count()` are left out: a mask that keeps every row does not change them."""
    small = single(stmt)
    if not isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)) or small.value is None:
        return set()
    found: set[str] = set()
    for call in find_all(small.value, cst.Call, m.Call()):
        name = callee(call)
        if name not in _REDUCTIONS or (not counts and name in _COUNTS):
            continue
        args = leading_positional(call)
        if name in _PAIRWISE and isinstance(call.func, cst.Name) and len(args) != 1:
            continue
        if isinstance(call.func, cst.Attribute) and not args:
            found |= reads(call.func.value, methods)  # `x.sum()`, `x[m].mean()`
        elif args:
            found |= reads(args[0].value, methods)  # `np.sum(x)`, `len(x)`, `np.exp(x - peak)`
    divisions = m.BinaryOperation(operator=m.Divide() | m.FloorDivide())
    for division in find_all(small.value, cst.BinaryOperation, divisions):
        found |= reads(division.left, methods) | reads(division.right, methods)
    return found


def removed(stmt: cst.CSTNode, methods: Methods) -> set[str] | None:
    """What a removal takes something out of: `q.pop()`, `x = q.popleft()`, `s.discard(v)`,
    `heappop(h)`, `del d[k]`, `pool.release(b)` (for `self._release(b)`, what `_release` changes),
    or an object's collection filtered in place of the old one (`self.running = [r for r in
    self.running if not r.done]`; a local array filtered is a filter, not a removal)."""
    mask = filtered(stmt)
    if mask is not None and mask.drops and "." in mask.chain:
        return {mask.chain}
    small = single(stmt)
    if isinstance(small, cst.Del):
        owners = writes(small, methods)
        return owners or None
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not isinstance(value, cst.Call):
        return None
    name = (callee(value) or "").lstrip("_")
    if name == "heappop":
        return writes(value, methods) or None
    if isinstance(value.func, cst.Attribute) and (name in _REMOVALS or name in _RELEASES):
        found = writes(value, methods)
        owner = dotted(value.func.value)
        if not found and name in _RELEASES and owner not in (None, "self", "cls"):
            found = {owner}  # a pool's own method: it changes the pool
        return found or None
    return None


def removal_shaped(stmt: cst.CSTNode) -> bool:
    """Could `stmt` be a removal? Its shape alone, before any method is looked into."""
    small = single(stmt)
    if isinstance(small, cst.Del):
        return True
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    name = (callee(value) or "").lstrip("_") if isinstance(value, cst.Call) else ""
    return name in _REMOVALS or name in _RELEASES or name == "heappop" or filtered(stmt) is not None


def transition(stmt: cst.CSTNode) -> str | None:
    """The state a transition sets: `o.state` for `o.state = State.DONE` or `o.done = True`, or
    the collection an item moves into (`running.append(req)`, `heappush(ready, job)`)."""
    small = single(stmt)
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        chain = dotted(target)
        if isinstance(target, cst.Attribute) and chain is not None and _state_value(small.value):
            return chain
        return None
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return None
    call, name = small.value, callee(small.value)
    args = leading_positional(call)
    if isinstance(call.func, cst.Attribute) and name in _STORES and args and isinstance(args[-1].value, cst.Name):
        return dotted(call.func.value)
    if name == "heappush" and len(args) == 2 and isinstance(args[1].value, cst.Name):
        return dotted(args[0].value)
    return None


def _state_value(value: cst.BaseExpression) -> bool:
    """A constant or an enum member: `True`, `None`, `"done"`, `3`, `State.DONE`, `DONE`."""
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None") or value.value.isupper()
    chain = dotted(value)
    if chain is None or "." not in chain:
        return False
    owner, _, member = chain.rpartition(".")
    return member.isupper() or owner.rpartition(".")[2][:1].isupper()
