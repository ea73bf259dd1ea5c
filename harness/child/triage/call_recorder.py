"""Record the suite's own calls to the survivors' functions: the recording interpreter.

Started by harness.triage.recording as `python -m bugsmith.harness.child.triage.call_recorder`:
it runs the whole suite once with a profile hook that keeps the targets' calls (pickled
arguments when the call starts, the result when it returns) within the budget, and writes them
back as base64 text that the coordinator never unpickles.
"""

from __future__ import annotations

import base64
import dis
import hashlib
import inspect
import pickle
import sys
from collections import defaultdict
from types import CodeType, FrameType, FunctionType
from typing import Any

import pytest

from bugsmith.harness.child.activation import index_functions
from bugsmith.harness.child.session import (
    StateOutsideTheTree,
    enter_project,
    limit_memory,
    protocol_streams,
    suite_arguments,
)
from bugsmith.harness.shared.interpreter import Recorded, RecordingRequest, Target, target_key
from bugsmith.harness.shared.protocol import receive, send
from bugsmith.harness.shared.tasks import Budget, RecordedCall

_RETURN_VALUE = dis.opmap["RETURN_VALUE"]
_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class CallRecorder:
    """A pytest plugin: while each test's body runs, a profile hook keeps the targets' calls."""

    def __init__(self, targets: set[Target], budget: Budget) -> None:
        self.targets = targets
        self.budget = budget
        self.codes: dict[CodeType, str] = {}
        self.functions: dict[CodeType, list[FunctionType]] = defaultdict(list)
        self.calls: dict[str, list[RecordedCall]] = defaultdict(list)
        self._pending: dict[int, tuple[str, bytes, str]] = {}
        self._seen: set[str] = set()
        self._bytes = 0
        self._test = ""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        index = index_functions(frozenset(path for path, _ in self.targets))
        for target in self.targets:
            for function in index.get(target, ()):
                if not function.__code__.co_flags & _NOT_PLAIN:
                    self.codes[function.__code__] = target_key(target)
                    self.functions[function.__code__].append(function)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        self._test = item.nodeid
        sys.setprofile(self._hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            self._pending.clear()

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            key = self.codes.get(frame.f_code)
            if key is not None and self._wanted(key):
                self._start(frame, key)
        elif event == "return" and id(frame) in self._pending:
            key, args, callee = self._pending.pop(id(frame))
            # Not at a RETURN_VALUE: the frame is unwinding an exception, and `arg` is None.
            self._finish(key, args, arg, raised=frame.f_code.co_code[frame.f_lasti] != _RETURN_VALUE,
                         callee=callee)

    def _wanted(self, key: str) -> bool:
        calls = self.calls[key]
        return len(calls) < self.budget.calls_per_function and sum(
            c.test == self._test for c in calls[-self.budget.calls_per_test:]) < self.budget.calls_per_test

    def _start(self, frame: FrameType, key: str) -> None:
        try:
            blob = pickle.dumps(arguments(frame), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an unpicklable argument: the call cannot be replayed
            return
        if len(blob) <= self.budget.bytes_per_call:
            self._pending[id(frame)] = (key, blob, callee_of(frame, self.functions[frame.f_code]))

    def _finish(self, key: str, args: bytes, value: Any, raised: bool, callee: str = "") -> None:
        try:
            result = b"" if raised else pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            return
        size = len(args) + len(result)
        digest = hashlib.sha256(key.encode() + callee.encode() + args).hexdigest()
        if digest in self._seen or size > self.budget.bytes_per_call or self._bytes + size > self.budget.total_bytes:
            return
        self._seen.add(digest)
        self._bytes += size
        self.calls[key].append(RecordedCall(test=self._test, args=_text(args), result=_text(result),
                                            callee=callee))


def label(function: FunctionType) -> str:
    """A function object's name as `functools.wraps` leaves it: what tells a decorator's
    wrappers apart, in this process and in the fork server's children alike."""
    return f"{function.__module__}:{function.__qualname__}"


def callee_of(frame: FrameType, functions: list[FunctionType]) -> str:
    """The label of the function object running in `frame`, "" if they all look alike: the one
    whose closure holds the values the frame sees in its free variables."""
    if len({label(f) for f in functions}) < 2:
        return ""
    names = frame.f_code.co_freevars
    values = frame.f_locals
    for function in functions:
        cells = function.__closure__ or ()
        try:
            if all(values.get(name, _MISSING) is cell.cell_contents for name, cell in zip(names, cells)):
                return label(function)
        except ValueError:  # an empty cell
            continue
    return ""


_MISSING = object()


def arguments(frame: FrameType) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The `(args, kwargs)` a function was called with, read from its frame at the call event."""
    code, values = frame.f_code, frame.f_locals
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    args = [values[name] for name in names[:positional]]
    kwargs = {name: values[name] for name in names[positional:positional + keyword_only] if name in values}
    position = positional + keyword_only
    if code.co_flags & inspect.CO_VARARGS:
        args.extend(values[names[position]])
        position += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwargs.update(values[names[position]])
    return tuple(args), kwargs


def _text(blob: bytes) -> str:
    return base64.b64encode(blob).decode("ascii")


def main() -> int:
    reader, writer = protocol_streams()
    request = receive(reader, RecordingRequest.from_dict)
    if request is None:
        return 1  # the coordinator went away before it asked anything
    enter_project(request.setup)
    limit_memory(request.setup.memory_limit_mb)
    plugin = CallRecorder(set(request.targets), request.budget)
    pytest.main(suite_arguments(request.setup), plugins=[plugin, StateOutsideTheTree(request.setup.root)])
    send(writer, Recorded(calls={key: tuple(calls) for key, calls in plugin.calls.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
