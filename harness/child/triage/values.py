"""Compare, summarise and spell out the values that triage replays and searches.

Runs inside the forked children (the values come from untrusted code): `same` decides whether
the original and the mutant agree, `short` is what a report shows, and `literal` writes a value
back as Python source for a suggested test, or refuses when it cannot do so faithfully.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

RTOL = 1e-9  # float noise below this is not a behaviour difference a test should pin
ATOL = 1e-12
_MAX_DEPTH = 8


class _Never:
    """A class nothing is an instance of."""


class LazyModule:
    """numpy or pandas as the code under triage sees them: the module if it was imported, else a
    stand-in whose every attribute is `_Never`, so that `isinstance` checks fail cheaply.

    A forked child that imported pandas just to learn that a value is not a DataFrame would
    spend seconds on it; a value can only be an ndarray if numpy is already loaded.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module = sys.modules.get(self._name)
        return _Never if module is None else getattr(module, attribute)


if TYPE_CHECKING:  # the checker sees the real modules; at run time they are only looked up
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")


class NotLiteral(Exception):
    """The value has no faithful source form (an arbitrary object, a lambda, a huge array)."""


def same(a: Any, b: Any) -> bool:
    """Whether two results agree: same types and shapes, floats equal within RTOL/ATOL."""
    return first_difference(a, b) is None


def first_difference(a: Any, b: Any) -> str | None:
    """Where two results first disagree, as a short path and both values, or None if they agree.

    Values compare by their structure, never by `repr`, which holds addresses: two deep copies
    of the same slice or object print differently and are the same result.
    """
    return _differ(a, b, "", 0, set())


def _differ(a: Any, b: Any, path: str, depth: int, seen: set[tuple[int, int]]) -> str | None:
    if depth > _MAX_DEPTH or (id(a), id(b)) in seen:
        return None  # deep enough, or a cycle already being compared
    if isinstance(a, pd.DataFrame | pd.Series | pd.Index):
        return None if type(a) is type(b) and _same_pandas(a, b) else _shown(a, b, path)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return None if _same_array(a, b) else _shown(a, b, path)
    if isinstance(a, float | np.floating) and isinstance(b, float | np.floating):
        return None if _close(float(a), float(b)) and type(a) is type(b) else _shown(a, b, path)
    if type(a) is not type(b):
        return _shown(a, b, path, f"{type(a).__name__} != {type(b).__name__}")
    if isinstance(a, set | frozenset | str | bytes | int | bool | complex | type(None) | np.generic):
        return None if bool(a == b) else _shown(a, b, path)
    seen, depth = seen | {(id(a), id(b))}, depth + 1
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return _shown(a, b, path, f"{len(a)} != {len(b)} items")
        return next((found for i, (x, y) in enumerate(zip(a, b))
                     if (found := _differ(x, y, f"{path}[{i}]", depth, seen)) is not None), None)
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return _shown(a, b, path, f"keys {short(sorted(map(repr, a.keys() ^ b.keys())), 120)} in one only")
        return next((found for k in a
                     if (found := _differ(a[k], b[k], f"{path}[{short(k, 40)}]", depth, seen)) is not None), None)
    state_a: dict[str, Any] | None
    state_b: dict[str, Any] | None
    if isinstance(a, slice | range):
        state_a, state_b = _bounds(a), _bounds(b)
    else:
        state_a, state_b = _state(a), _state(b)
    if state_a is None or state_b is None:
        return _by_equality(a, b, path, depth)
    for name in dict.fromkeys([*state_a, *state_b]):
        if name not in state_a or name not in state_b:
            return _shown(a, b, path, f"attribute {name!r} in one only")
        found = _differ(state_a[name], state_b[name], f"{path}.{name}", depth, seen)
        if found is not None:
            return found
    return None


def _bounds(value: slice | range) -> dict[str, Any]:
    return {"start": value.start, "stop": value.stop, "step": value.step}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _state(obj: Any) -> dict[str, Any] | None:
    """An object's attributes (its `__dict__` and `__slots__`, a dataclass's fields), so that two
    schedulers or two trees compare by content; None for an object that keeps none."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
    state: dict[str, Any] = {}
    found = False
    if hasattr(obj, "__dict__"):
        state.update(vars(obj))
        found = True
    for klass in type(obj).__mro__:
        slots = getattr(klass, "__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            found = True
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                state[slot] = getattr(obj, slot)
    return state if found else None


def _by_equality(a: Any, b: Any, path: str, depth: int) -> str | None:
    """A value that keeps no attributes (a C type: Decimal, datetime, a compiled pattern) agrees
    by its own `==`, or else by what it hands to pickle; one without either has nothing to see."""
    if type(a).__eq__ is not object.__eq__:
        try:
            return None if bool(a == b) else _shown(a, b, path)
        except Exception:  # noqa: BLE001 - a broken __eq__: try what pickle sees
            pass
    try:
        reduced = a.__reduce_ex__(4), b.__reduce_ex__(4)
    except Exception:  # noqa: BLE001
        return None
    if not all(isinstance(r, tuple) for r in reduced):
        return None
    return _differ(reduced[0][1:3], reduced[1][1:3], path, depth, set())


def _shown(a: Any, b: Any, path: str, what: str = "") -> str:
    """`at <path>: <a> != <b>`; strings that print alike (Unicode normalisation, invisible
    characters) are shown escaped, so that the difference can be seen."""
    first, second = short(a, 120), short(b, 120)
    if isinstance(a, str) and isinstance(b, str) and (first == second or not (a.isascii() and b.isascii())):
        first, second = _cut(ascii(a), 120), _cut(ascii(b), 120)
        if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
            what = "the same text in another Unicode normalisation"
    where = f"at {path}: " if path else ""
    return f"{where}{first} != {second}" + (f" ({what})" if what else "")


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= ATOL + RTOL * abs(b)


def _same_array(a: Any, b: Any) -> bool:
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))
    if a.dtype.kind == "O":
        return all(same(x, y) for x, y in zip(a.ravel(), b.ravel()))
    return bool(np.array_equal(a, b))


def _same_pandas(a: Any, b: Any) -> bool:
    try:
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=RTOL, atol=ATOL)
        elif isinstance(a, pd.Series):
            pd.testing.assert_series_equal(a, b, check_exact=False, rtol=RTOL, atol=ATOL)
        else:
            pd.testing.assert_index_equal(a, b, exact=True)
    except (AssertionError, TypeError, ValueError):
        return False
    return True


def short(value: Any, limit: int = 300) -> str:
    """A one-line description for reports: arrays and frames by shape, dtype and values."""
    if isinstance(value, np.ndarray):
        body = np.array2string(value, threshold=20, max_line_width=10**6, separator=", ")
        text = f"array(shape={value.shape}, dtype={value.dtype}, {body})"
    elif isinstance(value, pd.DataFrame):
        text = f"DataFrame(shape={value.shape}, columns={list(value.columns)}, {value.to_dict('list')})"
    else:
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a mutant may break __repr__
            text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def literal(value: Any, depth: int = 0) -> str:
    """Python source that rebuilds `value` (with `np`, `pd` and `math` imported)."""
    if depth > _MAX_DEPTH:
        raise NotLiteral("nested too deeply")
    if value is None or isinstance(value, bool | int | str | bytes):
        return repr(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, np.generic):
        return _scalar(value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, pd.Series):
        return _series(value)
    if isinstance(value, pd.DataFrame):
        return _frame(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, depth + 1) for v in value) + "]"
    if isinstance(value, tuple):
        items = [literal(v, depth + 1) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k, depth + 1)}: {literal(v, depth + 1)}" for k, v in value.items()) + "}"
    raise NotLiteral(f"no source form for {type(value).__name__}")


def _float(value: float) -> str:
    if math.isnan(value):
        return "math.nan"
    if math.isinf(value):
        return "math.inf" if value > 0 else "-math.inf"
    return repr(value)


def _scalar(value: np.generic) -> str:
    if isinstance(value, np.bool_):
        return f"np.bool_({bool(value)})"
    if isinstance(value, np.floating | np.integer):
        inner = _float(float(value)) if isinstance(value, np.floating) else repr(int(value))
        return f"np.{value.dtype.name}({inner})"
    raise NotLiteral(f"no source form for {type(value).__name__}")


def _array(value: np.ndarray) -> str:
    if value.size > 200 or value.dtype.kind not in "biuf":
        raise NotLiteral(f"array of {value.size} {value.dtype} values")
    dtype = f"np.{value.dtype.name}"
    if value.size == 0:
        return f"np.empty({value.shape!r}, dtype={dtype})"
    return f"np.array({literal(value.tolist())}, dtype={dtype})"


def _series(value: pd.Series) -> str:
    if len(value) > 200 or value.dtype.kind not in "biuf":
        raise NotLiteral(f"series of {len(value)} {value.dtype} values")
    return (f"pd.Series({literal(value.tolist())}, index={_index(value.index)}, "
            f"name={literal(value.name)}, dtype={value.dtype.name!r})")


def _frame(value: pd.DataFrame) -> str:
    if value.size > 400 or not all(str(c).isidentifier() or isinstance(c, str) for c in value.columns):
        raise NotLiteral("frame too large or with unusual columns")
    columns = []
    for name in value.columns:
        column = value[name]
        if column.dtype.kind not in "biufO" or (column.dtype.kind == "O" and not all(
                isinstance(v, str) for v in column)):
            raise NotLiteral(f"column {name!r} of dtype {column.dtype}")
        columns.append(f"{name!r}: pd.Series({literal(column.tolist())}, dtype={column.dtype.name!r})")
    data = "{" + ", ".join(columns) + "}"
    return f"pd.DataFrame({data}).set_axis({_index(value.index)})"


def _index(index: pd.Index) -> str:
    if isinstance(index, pd.RangeIndex):
        return f"pd.RangeIndex({index.start}, {index.stop}, {index.step})"
    if index.dtype.kind not in "biuf" and not all(isinstance(v, str) for v in index):
        raise NotLiteral(f"index of dtype {index.dtype}")
    return f"pd.Index({literal(index.tolist())})"
