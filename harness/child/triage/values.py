"""Summarise and spell out the values that triage replays and searches.

Runs inside the forked children (the values come from untrusted code): `short` is what a report
shows, and `literal` writes a value back as Python source for a suggested test, or refuses when
it cannot do so faithfully. Whether two values differ is harness.child.triage.observable's.
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
    kind = type(value)
    # Exact types only: a list subclass written as `[...]` (a BoxList as a plain list) or an
    # IntEnum as its repr would be another value, or no source at all.
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind is float:
        return _float(value)
    if isinstance(value, np.generic):
        return _scalar(value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, pd.Series):
        return _series(value)
    if isinstance(value, pd.DataFrame):
        return _frame(value)
    if kind is list:
        return "[" + ", ".join(literal(v, depth + 1) for v in value) + "]"
    if kind is tuple:
        items = [literal(v, depth + 1) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if kind is dict:
        return "{" + ", ".join(f"{literal(k, depth + 1)}: {literal(v, depth + 1)}" for k, v in value.items()) + "}"
    raise NotLiteral(f"no source form for {kind.__name__}")


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
