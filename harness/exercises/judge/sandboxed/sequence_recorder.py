"""Record, on the reference, the suite's method-call sequences on the contract's public classes.

Part of the recorder plugin (`recorder`), in the reference's own sandbox. A class is recorded
when the code exports it under a public name and it has public methods (not a dataclass, an
enum or an exception: those are values). For each instance the suite itself constructs (not
one the code builds inside a call), the constructor's arguments and then each public method
call from outside the code, with its plain-data arguments and what it returned or raised.

A sequence ends where it can no longer be replayed faithfully: a call with an argument that is
not data, or a result that is not; the calls before stay (a prefix of a sequence is a
sequence). At the end of the session each is played again on the reference, and only the
steps that come out the same are kept: what the reference does every time. A class whose
constructor takes a seed (`random_state`) is marked `seeded`: its values depend on the random
draws, which a contract like extra trees' leaves to each implementation.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import functools
import inspect
import pickle
import reprlib
import weakref
from collections import Counter
from typing import Any

from .channel import send
from .sequences import INIT, SEED_PARAMETERS, dumps, outcome, play, raised
from .values import NotData, TooLarge, encode

BUDGET = {"per_class": 60, "per_test": 6, "steps": 40}


@dataclasses.dataclass(slots=True)
class _Sequence:
    cls: type
    key: str  # module:Name, public
    test: str
    seeded: bool
    instance: Any = None  # a weak reference where the class allows one: a forest is not kept alive
    steps: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    closed: bool = False

    def holds(self, instance: Any) -> bool:
        held = self.instance() if isinstance(self.instance, weakref.ref) else self.instance
        return held is instance

    def hold(self, instance: Any) -> None:
        try:
            self.instance = weakref.ref(instance)
        except TypeError:  # __slots__ without __weakref__
            self.instance = instance


class SequenceRecorder:
    """Wraps the public classes of `modules`; `owner` holds the call depth and the current test."""

    def __init__(self, owner: Any, modules: list[Any]) -> None:
        self.owner = owner
        self.public = _public_names(modules)
        self.sequences: dict[int, _Sequence] = {}  # by id() of a live instance: for the lookup
        self.recorded: list[_Sequence] = []  # every sequence, in order
        self.kept: Counter[str] = Counter()
        self.kept_in_test: Counter[tuple[str, str]] = Counter()
        self.short = reprlib.Repr()
        self.short.maxstring, self.short.maxother, self.short.maxlist, self.short.maxtuple = 30, 30, 3, 3
        for cls, (module, name) in self.public.items():
            if _stateful(cls):
                self._wrap_class(cls, f"{module}:{name}")

    def _wrap_class(self, cls: type, key: str) -> None:
        init = vars(cls).get("__init__") or next(vars(k)["__init__"] for k in cls.__mro__ if "__init__" in vars(k))
        try:
            seeded = any(p in inspect.signature(init).parameters for p in SEED_PARAMETERS)
        except (TypeError, ValueError):
            seeded = False
        recorder = self

        # functools.wraps: a test that reads the constructor's signature (hypothesis's `builds`) still can.
        @functools.wraps(init)
        def __init__(instance: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807 - it is the constructor
            if recorder.owner.depth or type(instance) is not cls or not recorder._wanted(key):
                recorder._inside(init, instance, args, kwargs)
                return
            sequence = _Sequence(cls=cls, key=key, test=recorder.owner.test, seeded=seeded)
            sequence.hold(instance)
            recorder._step(sequence, instance, INIT, init, args, kwargs)

        cls.__init__ = __init__  # type: ignore[misc]
        for name in _methods(cls):
            setattr(cls, name, self._wrap_method(cls, name, getattr(cls, name)))

    def _wrap_method(self, cls: type, name: str, method: Any) -> Any:
        recorder = self

        @functools.wraps(method)
        def recorded(instance: Any, *args: Any, **kwargs: Any) -> Any:
            sequence = recorder.sequences.get(id(instance))
            if recorder.owner.depth or sequence is None or sequence.closed or not sequence.holds(instance):
                return recorder._inside(method, instance, args, kwargs)
            return recorder._step(sequence, instance, name, method, args, kwargs)

        return recorded

    def _inside(self, function: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.owner.depth += 1
        try:
            return function(instance, *args, **kwargs)
        finally:
            self.owner.depth -= 1

    def _wanted(self, key: str) -> bool:
        return (self.kept[key] < BUDGET["per_class"] and self.kept_in_test[key, self.owner.test] < BUDGET["per_test"]
                and self.owner.bytes_left > 0)

    def _step(self, sequence: _Sequence, instance: Any, name: str, function: Any, args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> Any:
        try:
            if len(sequence.steps) >= BUDGET["steps"]:
                raise TooLarge("steps")
            encode([list(args), kwargs])  # plain data only
            blob = dumps((args, kwargs), self.public)
            pickle.loads(blob)
        except Exception:  # noqa: BLE001 - not replayable from here on: the sequence ends before this call
            sequence.closed = True
            return self._inside(function, instance, args, kwargs)
        if name == INIT:
            self.sequences[id(instance)] = sequence
            self.recorded.append(sequence)
            self.kept[sequence.key] += 1
            self.kept_in_test[sequence.key, sequence.test] += 1
        shown = ", ".join([*map(self.short.repr, args), *(f"{k}={self.short.repr(v)}" for k, v in kwargs.items())])
        step: dict[str, Any] = {"method": name, "args": base64.b64encode(blob).decode("ascii"), "shown": shown}
        self.owner.bytes_left -= len(blob) * 2 + 200
        try:
            value = self._inside(function, instance, args, kwargs)
        except Exception as error:
            sequence.steps.append({**step, "expect": raised(error)})
            sequence.closed = sequence.closed or name == INIT
            raise
        try:
            expect = ({"result": None, "after": encode([list(args), kwargs], objects=True)} if name == INIT
                      else outcome(instance, value, args, kwargs))
        except (NotData, TooLarge, RecursionError):
            sequence.closed = True
            return value
        sequence.steps.append({**step, "expect": expect})
        return value

    def finish(self) -> None:
        """Play each sequence again on the reference; send the steps that came out the same."""
        self.owner.depth += 1  # nothing below is recorded
        try:
            for sequence in self.recorded:
                self._send(sequence)
        finally:
            self.owner.depth -= 1

    def _send(self, sequence: _Sequence) -> None:
        if not sequence.steps:
            return
        try:
            steps = [(s["method"], *pickle.loads(base64.b64decode(s["args"]))) for s in sequence.steps]
            again = play(sequence.cls, steps, 0)
        except Exception:  # noqa: BLE001 - a sequence the reference cannot play twice is not kept
            return
        same = 0
        for step, found in zip(sequence.steps, again):
            if not _same(step["expect"], found, sequence.seeded):
                break
            same += 1
        if not same:
            return
        name = sequence.key.partition(":")[2]
        send({"event": "sequence", "class": sequence.key, "test": sequence.test, "seeded": sequence.seeded,
              "shown": f"{name}({sequence.steps[0]['shown']})",
              "steps": [{k: s[k] for k in ("method", "args", "shown", "expect")} for s in sequence.steps[:same]]})


def _same(expected: dict[str, Any], found: dict[str, Any], seeded: bool) -> bool:
    if not seeded or "raises" in expected or "raises" in found:
        return expected == found
    return expected.keys() == found.keys()  # the values are the draws'; the grader compares their shapes


def _public_names(modules: list[Any]) -> dict[type, tuple[str, str]]:
    """Each class the code defines and exports, with its shortest public (module, name)."""
    defined = {module.__name__ for module in modules}
    found: dict[type, tuple[str, str]] = {}
    for module in sorted(modules, key=lambda m: (m.__name__.count("."), m.__name__)):
        for name, value in vars(module).items():
            if (isinstance(value, type) and not name.startswith("_") and value.__module__ in defined
                    and value not in found):
                found[value] = (module.__name__, name)
    return found


def _stateful(cls: type) -> bool:
    if dataclasses.is_dataclass(cls) or issubclass(cls, (enum.Enum, BaseException)):
        return False
    return bool(_methods(cls))


def _methods(cls: type) -> list[str]:
    """Public plain methods, inherited ones included (not properties, static or class methods)."""
    return [name for name in dir(cls) if not name.startswith("_")
            and inspect.isfunction(inspect.getattr_static(cls, name))]
