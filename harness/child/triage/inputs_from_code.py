"""Candidate inputs from what the code says, nearest to the mutated site first.

A survivor that the suite's own arguments, perturbed at random, do not show is most often a
boundary the suite never stood on: `len(items) > 3` made `>= 3`, a default of 1 made 2. The
mutated lines name the constants and the parameters that decide it, so the inputs that stand on
c - 1, c and c + 1 of those constants, in those parameters, are tried first; then the recorded
calls as they were (for a public caller that reaches a private helper), then the type's edge
values (0, -1, empty, None where the default is None), then the function's other constants.

Pure: this module reads source text and builds argument tuples; it never calls the code.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import math
import os
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

Call = tuple[tuple[Any, ...], dict[str, Any]]

NEAR = "the mutated site's constants"
AS_RECORDED = "the recorded calls as they were"
EDGES = "edge values of each parameter's type"
OTHERS = "the function's other constants"
DEFAULTS = "type hints and defaults"
_PLAIN = (bool, int, float, str, list, tuple, dict, type(None))


@dataclass(frozen=True, slots=True, kw_only=True)
class Site:
    """What the mutated lines say: their constants (both versions), the names they read, and
    the other constants of the file near them."""

    constants: tuple[Any, ...] = ()
    names: frozenset[str] = frozenset()
    others: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One input to try: the call, and the source it came from (for the evidence)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    source: str


def site_of(original: str, mutated: str) -> Site:
    """The constants and names on the lines where `mutated` differs from `original`, and the
    constants of the function around them."""
    before, after = original.splitlines(), mutated.splitlines()
    changed_before: set[int] = set()
    changed_after: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag != "equal":
            changed_before.update(range(i1 + 1, max(i2, i1 + 1) + 1))
            changed_after.update(range(j1 + 1, max(j2, j1 + 1) + 1))
    constants: list[Any] = []
    names: set[str] = set()
    around: list[Any] = []
    for text, lines in ((original, changed_before), (mutated, changed_after)):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            line = getattr(node, "lineno", None)
            if line in lines:
                if isinstance(node, ast.Constant):
                    constants.append(node.value)
                elif isinstance(node, ast.Name):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute):
                    names.add(node.attr)
        function = _enclosing(tree, lines)
        if function is not None:
            around += [n.value for n in ast.walk(function) if isinstance(n, ast.Constant)]
    near = _unique(c for c in constants if _usable(c))
    return Site(constants=near, names=frozenset(names),
                others=tuple(c for c in _unique(c for c in around if _usable(c)) if not _in(c, near)))


def _enclosing(tree: ast.AST, lines: set[int]) -> ast.AST | None:
    """The innermost function whose lines hold the first changed line."""
    if not lines:
        return None
    first = min(lines)
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.lineno <= first <= (node.end_lineno or node.lineno)):
            if found is None or node.lineno >= found.lineno:
                found = node
    return found


def _usable(value: Any) -> bool:
    return value is None or (type(value) in (int, float, str, bool) and not (
        isinstance(value, str) and len(value) > 40))


def _unique(values: Any) -> tuple[Any, ...]:
    seen: list[Any] = []
    for value in values:
        if not _in(value, seen):
            seen.append(value)
    return tuple(seen)


def _in(value: Any, values: Sequence[Any]) -> bool:
    """Membership by type and value: 1, 1.0 and True are three constants."""
    return any(type(v) is type(value) and (v == value or v != v and value != value) for v in values)


def boundary(constants: Sequence[Any]) -> list[Any]:
    """c, c - 1 and c + 1 for each number, the string, its neighbours and "", None as is."""
    values: list[Any] = []
    for c in constants:
        if type(c) is int:
            values += [c, c - 1, c + 1]
        elif type(c) is float:
            values += [c, c - 1.0, c + 1.0] + ([math.nextafter(c, math.inf), math.nextafter(c, -math.inf)]
                                               if math.isfinite(c) else [])
        elif type(c) is str:
            values += [c, c[:-1], c + c[-1:]]
        elif type(c) is bool:
            values += [c, not c]
        elif c is None:
            values.append(None)
    return list(_unique(values))


def edges(value: Any) -> list[Any]:
    """The values at which code of `value`'s type most often breaks."""
    kind = type(value)
    if kind is bool:
        return [not value]
    if kind is int:
        return [0, -1, 1]
    if kind is float:
        return [0.0, -1.0, 1.0, math.inf, -math.inf, math.nan]
    if kind is str:
        return ["", " ", value[:1]]
    if kind is list:
        return [[], value[:1]]
    if kind is tuple:
        return [(), value[:1]]
    if kind is dict:
        return [{}]
    return []


def fitting(value: Any, candidates: Sequence[Any]) -> list[Any]:
    """The candidates that can stand where `value` stood: numbers for a number, strings for a
    string, a list of that length for a list (a `len(x) > c` boundary); None where it was None."""
    kind = type(value)
    out: list[Any] = []
    for c in candidates:
        if kind in (int, float) and type(c) in (int, float) and not (kind is int and type(c) is float):
            out.append(kind(c) if kind is float else c)
        elif kind is str and type(c) is str:
            out.append(c)
        elif kind in (list, tuple) and type(c) in (int, float):
            out += _with_item(value, c)
            if type(c) is int and 0 <= c <= max(len(value) + 8, 16):
                out.append(_resized(value, c))
        elif value is None and c is not None and type(c) in (int, float, str):
            out.append(c)
    return list(_unique(v for v in out if not _same(v, value)))


def _with_item(value: list[Any] | tuple[Any, ...], c: int | float) -> list[Any]:
    """`value` with one of its first few numbers put on `c` (a boundary each item is checked at)."""
    out = []
    for position, item in enumerate(list(value)[:3]):
        if type(item) in (int, float) and not (type(item) is int and type(c) is float):
            changed = list(value)
            changed[position] = type(item)(c)
            out.append(type(value)(changed))
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ that raises
        return False


def _resized(value: list[Any] | tuple[Any, ...], size: int) -> Any:
    """`value` cut or grown (its items repeated; zeros for an empty one) to `size` items."""
    items = list(value) or [0]
    grown = (items * (size // len(items) + 1))[:size]
    return type(value)(grown)


def parameters(function: Any) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []


def from_hints(function: Any) -> Call | None:
    """A call built from the defaults and the simplest value of each hinted type, or None."""
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # noqa: BLE001 - unresolvable hints
        hints = {}
    args: list[Any] = []
    for parameter in parameters(function):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.KEYWORD_ONLY):
            continue
        if parameter.name in ("self", "cls") and not args:
            return None  # a method needs an instance the suite built
        if parameter.default is not parameter.empty:
            args.append(parameter.default)
            continue
        simplest = _simplest(hints.get(parameter.name))
        if simplest is _NONE:
            return None
        args.append(simplest)
    return tuple(args), {}


_NONE = object()


def _simplest(hint: Any) -> Any:
    if hint is None:
        return _NONE
    origin = typing.get_origin(hint) or hint
    for kind, value in ((bool, False), (int, 0), (float, 0.0), (str, ""), (list, []), (tuple, ()), (dict, {})):
        if origin is kind:
            return value
    if origin is typing.Union or str(origin) == "types.UnionType":
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _simplest(options[0]) if options else None
    return _NONE


def candidates(function: Any, bases: Sequence[Call], site: Site, *, as_recorded: bool,
               from_code: bool = True) -> Iterator[Candidate]:
    """Inputs to try, nearest the mutated site first: each base call with one argument moved to
    a boundary of the site's constants (the parameters the mutated lines read first), the bases
    themselves (`as_recorded`), edge values, then the function's other constants."""
    listed = parameters(function)
    names = [p.name for p in listed if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    defaults = {p.name: p.default for p in listed}
    near, others = boundary(site.constants), boundary(site.others)
    seen: list[Call] = []

    def fresh(args: tuple[Any, ...], kwargs: dict[str, Any], source: str) -> Iterator[Candidate]:
        call = (args, kwargs)
        if not any(_calls_alike(call, s) for s in seen):
            seen.append(call)
            yield Candidate(args=args, kwargs=kwargs, source=source)

    for base in bases:  # the recorded calls themselves are not tried again; they are in `seen`
        seen.append(base)
    tiers: list[tuple[str, bool | None, Any]] = []
    if from_code:
        tiers = [(NEAR, True, lambda v, n: fitting(v, near)),
                 (EDGES, True, lambda v, n: edges(v) + ([None] if defaults.get(n, 0) is None else [])),
                 (NEAR, False, lambda v, n: fitting(v, near)),
                 (EDGES, False, lambda v, n: edges(v) + ([None] if defaults.get(n, 0) is None else [])),
                 (OTHERS, None, lambda v, n: fitting(v, others))]
    if as_recorded:
        for args, kwargs in bases:
            yield Candidate(args=args, kwargs=kwargs, source=AS_RECORDED)
    for source, on_site, values in tiers:
        for args, kwargs in bases:
            for slot, name, value in _slots(names, args, kwargs):
                if on_site is not None and (name in site.names) is not on_site:
                    continue
                if type(value) not in _PLAIN or (slot == 0 and name in ("self", "cls")):
                    continue  # an object the suite built stays as it is
                for new in values(value, name):
                    yield from fresh(*_replaced(args, kwargs, slot, new), source)


def _slots(names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[tuple[Any, str, Any]]:
    for position, value in enumerate(args):
        yield position, names[position] if position < len(names) else "", value
    for key, value in kwargs.items():
        yield key, key, value


def _replaced(args: tuple[Any, ...], kwargs: dict[str, Any], slot: Any, value: Any) -> Call:
    if isinstance(slot, int):
        return args[:slot] + (value,) + args[slot + 1:], dict(kwargs)
    return args, {**kwargs, slot: value}


def _calls_alike(a: Call, b: Call) -> bool:
    try:
        return len(a[0]) == len(b[0]) and all(type(x) is type(y) and x is y or _same(x, y)
                                              for x, y in zip(a[0], b[0])) and a[1].keys() == b[1].keys() and all(
            _same(a[1][k], b[1][k]) or a[1][k] is b[1][k] for k in a[1])
    except Exception:  # noqa: BLE001
        return False


def _path_like(text: str) -> bool:
    """A file's name (the suite built it from where its files are): cut short, it names another."""
    return "/" in text or "\\" in text or os.path.exists(text)


def simpler(value: Any) -> list[Any]:
    """Smaller values to try in place of `value` while shrinking a witness, smallest first."""
    kind = type(value)
    if kind is int and value:
        return list(_unique([0, 1, -1, value // 2, value - 1 if value > 0 else value + 1]))
    if kind is float and value and math.isfinite(value):
        return [0.0, 1.0, float(int(value))]
    if kind is str and value and not _path_like(value):
        return ["", value[:1]]
    if kind in (list, tuple) and value:
        return [type(value)(), *(value[:i] + value[i + 1:] for i in range(min(len(value), 8)))]
    if kind is dict and value:
        return [{}, *({k: v for k, v in value.items() if k != key} for key in list(value)[:8])]
    return []
