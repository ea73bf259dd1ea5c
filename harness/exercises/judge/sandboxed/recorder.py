"""A pytest plugin (`-p bugsmith_grading.recorder`) that records calls into the reference code.

Runs only on the reference solution, in a sandbox of its own: no submission's code is ever
in this process. Before any test module is imported, it wraps every public module-level
function of the code files the grader names, and while the suite runs it keeps the calls
that come from outside the code (from a test or an input strategy) whose arguments are
plain data (see `values`): the pickled arguments (to replay on the submission) and what
the call returned, as data (to compare with). A call whose second run on the same
arguments does something else (randomness, time) is dropped: only what the reference does
every time can be expected of a submission. Stateful classes are recorded as sequences of
method calls per instance (`sequence_recorder`).
"""

from __future__ import annotations

import base64
import functools
import importlib
import inspect
import os
import pickle
import reprlib
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .channel import request, send
from .sequence_recorder import SequenceRecorder
from .values import NotData, TooLarge, encode, observe


class Recorder:
    def __init__(self, code: list[str], budget: dict[str, int]) -> None:
        self.code = [Path(path).resolve() for path in code]
        self.per_function = budget["per_function"]
        self.per_test = budget["per_test"]
        self.bytes_left = budget["bytes"]
        self.depth = 0
        self.test = ""
        self.kept: Counter[str] = Counter()
        self.kept_in_test: Counter[tuple[str, str]] = Counter()
        self.short = reprlib.Repr()
        self.short.maxstring, self.short.maxother, self.short.maxlist, self.short.maxtuple = 40, 40, 4, 4
        self.sequences: SequenceRecorder | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        # After pytest set up sys.path (`pythonpath`), before any test module imports the code.
        modules = []
        for path in self.code:
            name = _module_name(path)
            if name is not None:
                try:
                    modules.append(importlib.import_module(name))
                except Exception as error:  # noqa: BLE001 - the suite will report it too
                    send({"event": "record-error", "message": f"{name}: {type(error).__name__}: {error}"[:300]})
        roots = {_root_entry(path) for path in self.code}
        send({"event": "paths", "paths": sorted(os.path.relpath(r, Path.cwd()) for r in roots if r)})
        wrapped: dict[int, Any] = {}
        for module in modules:
            for name, value in list(vars(module).items()):
                if (inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")
                        and not inspect.isgeneratorfunction(value) and not inspect.iscoroutinefunction(value)):
                    wrapped[id(value)] = self._wrap(value)
        for module in modules:  # the function, and every re-export of it (a package's __init__)
            for name, value in list(vars(module).items()):
                if id(value) in wrapped:
                    setattr(module, name, wrapped[id(value)])
        self.sequences = SequenceRecorder(self, modules)

    def pytest_sessionfinish(self) -> None:
        if self.sequences is not None:
            self.sequences.finish()

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.test = nodeid

    def _wrap(self, function: Any) -> Any:
        key = f"{function.__module__}:{function.__qualname__}"

        @functools.wraps(function)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            if self.depth or not self._wanted(key):
                self.depth += 1
                try:
                    return function(*args, **kwargs)
                finally:
                    self.depth -= 1
            return self._record(function, key, args, kwargs)

        return recorded

    def _wanted(self, key: str) -> bool:
        return (self.kept[key] < self.per_function and self.kept_in_test[key, self.test] < self.per_test
                and self.bytes_left > 0)

    def _record(self, function: Any, key: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            encode([list(args), kwargs])  # plain data only: nothing else can be replayed faithfully
            blob = pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
            copy = pickle.loads(blob)
        except Exception:  # noqa: BLE001 - an argument that is not data: call it unrecorded
            return self._unrecorded(function, args, kwargs)
        self.depth += 1
        try:
            try:
                value = function(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - recorded, then raised as before
                outcome: dict[str, Any] = {"raises": [k.__name__ for k in type(error).__mro__ if k is not object]}
                self._keep(key, blob, outcome, function, copy)
                raise
            try:
                outcome = {"result": encode(value, objects=True), "after": encode([list(args), kwargs], objects=True)}
            except (NotData, TooLarge, RecursionError):
                return value
            self._keep(key, blob, outcome, function, copy)
            return value
        finally:
            self.depth -= 1

    def _unrecorded(self, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.depth += 1
        try:
            return function(*args, **kwargs)
        finally:
            self.depth -= 1

    def _keep(self, key: str, blob: bytes, outcome: dict[str, Any], function: Any, copy: Any) -> None:
        args, kwargs = copy
        shown = ", ".join([*map(self.short.repr, args), *(f"{k}={self.short.repr(v)}" for k, v in kwargs.items())])
        try:
            again = observe(function, args, kwargs)
        except (NotData, TooLarge, RecursionError):
            return
        if again != outcome:  # not a function of its arguments: nothing to expect of a submission
            return
        message = {"event": "call", "function": key, "args": base64.b64encode(blob).decode("ascii"),
                   "shown": f"{function.__qualname__}({shown})", "test": self.test, "expect": outcome}
        self.bytes_left -= len(blob) * 2 + 200
        self.kept[key] += 1
        self.kept_in_test[key, self.test] += 1
        send(message)


def _root_entry(path: Path) -> str | None:
    found = _importable(path)
    return found[0] if found else None


def _module_name(path: Path) -> str | None:
    found = _importable(path)
    return found[1] if found else None


def _importable(path: Path) -> tuple[str, str] | None:
    """(the sys.path entry, the module name) under which `path` is imported: the nearest entry wins."""
    best: tuple[str, str] | None = None
    for entry in sys.path:
        base = Path(entry or ".").resolve()
        if not path.is_relative_to(base) or not base.is_dir():
            continue
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts and parts[-1] == "__init__":
            parts.pop()
        if parts and all(p.isidentifier() for p in parts) and (best is None or len(parts) < len(best[1].split("."))):
            best = (str(base), ".".join(parts))
    return best


def pytest_configure(config: pytest.Config) -> None:
    wanted = request()
    config.pluginmanager.register(Recorder(wanted["code"], wanted["budget"]), "bugsmith-grading-recorder")
