"""Compare, summarise and spell out the values that triage replays and searches.

Runs inside the forked children (the values come from untrusted code): `same` decides whether
the original and the mutant agree, `short` is what a report shows, and `literal` writes a value
back as Python source for a suggested test, or refuses when it cannot do so faithfully.
"""

from __future__ import annotations

import math
import sys
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


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Whether two results agree: same types and shapes, floats equal within RTOL/ATOL."""
    if depth > _MAX_DEPTH:
        return True
    if isinstance(a, pd.DataFrame | pd.Series | pd.Index):
        return type(a) is type(b) and _same_pandas(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _same_array(a, b)
    if isinstance(a, float | np.floating) and isinstance(b, float | np.floating):
        return _close(float(a), float(b)) and type(a) is type(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], depth + 1) for k in a)
    if isinstance(a, set | frozenset | str | bytes | int | bool | complex | type(None) | np.generic):
        return bool(a == b)
    return same(_state(a), _state(b), depth + 1)


def _state(obj: Any) -> Any:
    """An object's attributes, so that two schedulers or two trees compare by content."""
    if hasattr(obj, "__dict__"):
        return dict(vars(obj))
    slots = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ())]
    if slots:
        return {s: getattr(obj, s, None) for s in slots}
    return repr(obj)


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
