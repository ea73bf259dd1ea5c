"""Method-call sequences on the contract's classes: how they are pickled, replayed and observed.

A stateful class (a scheduler, a forest) gives no plain-data calls one at a time: what a
method returns depends on the calls before it. So the recorder keeps, per instance the suite
makes, its constructor's arguments and then every public method call on it in order; replaying
the same sequence on a fresh instance of the submission's class must give the same outcomes.

Arguments may hold the contract's own values (a `Request`, a `State`): they are pickled by
their public name (`reference.scheduler:Request`) and fields, never by the module that
happens to define them, so a submission laid out in other modules receives its own classes.
Both sides of the sandbox run this module; nothing here runs in the grader.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import io
import pickle
import signal
from collections.abc import Mapping
from typing import Any

from .values import NotData, TooLarge, encode

INIT = "__init__"
SEED_PARAMETERS = ("random_state", "seed")  # a class that takes one draws at random


class Hung(BaseException):
    """Raised by the alarm in a call that runs past its time."""


def public_class(module: str, name: str) -> Any:
    found = getattr(importlib.import_module(module), name)
    if not isinstance(found, type):
        raise TypeError(f"{module}:{name} is not a class")
    return found


def public_instance(module: str, name: str, fields: dict[str, Any]) -> Any:
    """Rebuild a contract dataclass from its public name and fields (called by pickle)."""
    return public_class(module, name)(**fields)


def public_member(module: str, name: str, member: str) -> Any:
    """A member of a contract enum, by its public name (called by pickle)."""
    return public_class(module, name)[member]


class _PublicPickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, public: Mapping[type, tuple[str, str]]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.public = public

    def reducer_override(self, obj: Any) -> Any:
        where = self.public.get(type(obj))
        if where is None:
            return NotImplemented
        if isinstance(obj, enum.Enum):
            return public_member, (*where, obj.name)
        if dataclasses.is_dataclass(obj):
            fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init}
            return public_instance, (*where, fields)
        return NotImplemented


def dumps(value: Any, public: Mapping[type, tuple[str, str]]) -> bytes:
    """`value` pickled with the contract's classes by their public names."""
    buffer = io.BytesIO()
    _PublicPickler(buffer, public).dump(value)
    return buffer.getvalue()


def outcome(instance: Any, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """What a method call returned, as data: the instance itself is `{"self": true}`."""
    result = {"self": True} if value is instance and instance is not None else encode(value, objects=True)
    return {"result": result, "after": encode([list(args), kwargs], objects=True)}


def raised(error: BaseException) -> dict[str, Any]:
    return {"raises": [k.__name__ for k in type(error).__mro__ if k is not object]}


def play(cls: Any, steps: list[tuple[str, tuple[Any, ...], dict[str, Any]]], seconds: float) -> list[dict[str, Any]]:
    """Construct `cls` and call each method of `steps` in order (the first step is `__init__`);
    one outcome per step run. A constructor that raises ends the sequence; a method that
    raises does not (a rejected call is part of the behaviour); a step past `seconds` does."""
    outcomes: list[dict[str, Any]] = []
    instance = None
    for method, args, kwargs in steps:
        if seconds:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            if method == INIT:
                instance = cls(*args, **kwargs)
                outcomes.append({"result": None, "after": encode([list(args), kwargs], objects=True)})
            else:
                value = getattr(instance, method)(*args, **kwargs)
                outcomes.append(outcome(instance, value, args, kwargs))
        except Hung:
            outcomes.append({"timeout": seconds})
            break
        except (NotData, TooLarge, RecursionError) as error:
            outcomes.append({"unavailable": f"the result cannot be compared: {type(error).__name__}"})
            break
        except Exception as error:  # noqa: BLE001 - the exception is the behaviour
            outcomes.append(raised(error))
            if method == INIT:
                break
        finally:
            if seconds:
                signal.setitimer(signal.ITIMER_REAL, 0)
    return outcomes


def _alarm(signum: int, frame: Any) -> None:
    raise Hung


def arm() -> None:
    """Let `play`'s time limit interrupt a call (the main thread's SIGALRM)."""
    signal.signal(signal.SIGALRM, _alarm)
