"""Values as data: the JSON form in which arguments and results are compared across processes.

Every value becomes JSON built from plain lists, strings, numbers and one-key objects that
name their kind (`{"ndarray": ...}`, `{"frame": ...}`, `{"float": "nan"}`), so the grader
compares two results without ever running code that came from the sandbox. Arrays and
frames keep their dtypes and shapes; floats are compared with a tolerance by the grader.

`encode(value)` raises NotData for anything that is not plain data (a function, an object
of the code under test); `encode(value, objects=True)` writes such an object as its type's
name instead, which is how a result that is an object is compared: by what it is, not by
its insides, which another valid implementation may lay out differently.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import sys
from collections.abc import Callable
from typing import Any

MAX_ITEMS = 200_000  # numbers and strings in one encoded value
MAX_DEPTH = 24
MAX_TEXT = 100_000  # characters of one string


class NotData(Exception):
    """The value holds something that is not plain data."""


class TooLarge(Exception):
    """The value is bigger than MAX_ITEMS (or deeper than MAX_DEPTH)."""


def encode(value: Any, *, objects: bool = False) -> Any:
    """`value` as JSON-able data (see the module docstring)."""
    return _Encoder(objects).encode(value, 0)


def observe(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """What one call did, as data: its result and its arguments afterwards, or what it raised.

    The arguments afterwards show a function that changes its input. Only `Exception`s are
    outcomes; anything else (KeyboardInterrupt, a test framework's control flow) propagates.
    """
    try:
        value = function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the exception is the behaviour
        return {"raises": [k.__name__ for k in type(error).__mro__ if k is not object]}
    return {"result": encode(value, objects=True), "after": encode([list(args), kwargs], objects=True)}


class _Encoder:
    def __init__(self, objects: bool) -> None:
        self.objects = objects
        self.items = 0

    def _count(self, n: int = 1) -> None:
        self.items += n
        if self.items > MAX_ITEMS:
            raise TooLarge(f"more than {MAX_ITEMS} items")

    def encode(self, value: Any, depth: int) -> Any:  # noqa: C901 - one branch per kind of value
        if depth > MAX_DEPTH:
            raise TooLarge(f"nested deeper than {MAX_DEPTH}")
        self._count()
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, enum.Enum):  # before int: an IntEnum is an int too
            return {"enum": _name(type(value)), "name": value.name}
        if isinstance(value, int):
            return value if abs(value) < 2**53 else {"int": str(value)}
        if isinstance(value, float):
            return _float(value)
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise TooLarge("a string longer than MAX_TEXT")
            return value
        if isinstance(value, complex):
            return {"complex": [_float(value.real), _float(value.imag)]}
        if isinstance(value, bytes):
            return {"bytes": value.hex()}
        if isinstance(value, list | tuple):
            kind = "list" if isinstance(value, list) else "tuple"
            return {kind: [self.encode(v, depth + 1) for v in value]}
        if isinstance(value, dict):  # in key order, not insertion order: equal dicts are equal
            pairs = [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]
            return {"dict": sorted(pairs, key=lambda pair: json.dumps(pair[0], sort_keys=True))}
        if isinstance(value, set | frozenset):
            items = [self.encode(v, depth + 1) for v in value]
            return {"set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        if isinstance(value, datetime.datetime | datetime.date | datetime.time):
            return {type(value).__name__: value.isoformat()}
        if isinstance(value, datetime.timedelta):
            return {"timedelta": [value.days, value.seconds, value.microseconds]}
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            if isinstance(value, numpy.ndarray):
                return self._array(value, depth)
            if isinstance(value, numpy.generic):  # as the Python number it stands for: tests rarely pin that
                return self.encode(value.item(), depth + 1)
        pandas = sys.modules.get("pandas")
        if pandas is not None:
            found = self._pandas(pandas, value, depth)
            if found is not None:
                return found
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: self.encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
            return {"dataclass": _name(type(value)), "fields": fields}
        if self.objects:
            return {"object": _name(type(value))}
        raise NotData(f"a {_name(type(value))} is not plain data")

    def _array(self, array: Any, depth: int) -> dict[str, Any]:
        kind = array.dtype.kind
        self._count(array.size)
        if kind in "mM":  # datetimes: their integer ticks, with the unit in the dtype
            data = array.view("i8").ravel().tolist()
        elif kind == "O":
            data = [self.encode(v, depth + 1) for v in array.ravel().tolist()]
        elif kind == "f":
            data = [_float(v) for v in array.ravel().tolist()]
        elif kind == "c":
            data = [[_float(v.real), _float(v.imag)] for v in array.ravel().tolist()]
        elif kind in "biuUS":
            data = array.ravel().tolist()
            if kind == "S":
                data = [v.hex() for v in data]
        else:
            raise NotData(f"an array of dtype {array.dtype} is not plain data")
        return {"ndarray": array.dtype.str, "shape": list(array.shape), "data": data}

    def _pandas(self, pandas: Any, value: Any, depth: int) -> Any:
        if isinstance(value, pandas.DataFrame):
            columns = [self._column(value.iloc[:, i], depth) for i in range(value.shape[1])]
            return {"frame": {"columns": self.encode(list(value.columns), depth + 1),
                              "index": self._index(value.index, depth), "data": columns}}
        if isinstance(value, pandas.Series):
            return {"series": {"name": self.encode(value.name, depth + 1), "index": self._index(value.index, depth),
                               "data": self._column(value, depth)}}
        if isinstance(value, pandas.Index):
            return self._index(value, depth)
        if value is pandas.NaT:
            return {"nat": True}
        if isinstance(value, pandas.Timestamp):
            return {"timestamp": value.isoformat()}
        if isinstance(value, pandas.Timedelta):
            return {"timedelta64": value.value}
        if value is pandas.NA:
            return {"na": True}
        return None

    def _column(self, owner: Any, depth: int) -> dict[str, Any]:
        """A Series' or an Index's dtype and values (extension dtypes give object arrays)."""
        return {"dtype": str(owner.dtype), "values": self._array(owner.to_numpy(), depth)}

    def _index(self, index: Any, depth: int) -> dict[str, Any]:
        # Not its class: a RangeIndex and an Index of the same integers are the same labels.
        return {"index": self.encode(list(index.names), depth + 1), "values": self._column(index, depth)}


def _float(value: float) -> Any:
    if math.isnan(value):
        return {"float": "nan"}
    if math.isinf(value):
        return {"float": "inf" if value > 0 else "-inf"}
    return value


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"
