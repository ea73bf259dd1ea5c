"""The differential check: the submission's functions must return what the reference's return.

1. The reference solution runs the whole suite in a sandbox of its own (no submission's
   code in it); `sandboxed.recorder` records the suite's calls into the code's public
   functions whose arguments are plain data, and what each returned, as data.
2. The submission's code, alone in another sandbox (no tests, so none of their oracles),
   is called with the same arguments (`sandboxed.replay`), and sends back what it returned,
   as data.
3. Here, in the grader's process, the two are compared: values within a tolerance, arrays
   and frames with their dtypes and shapes, exceptions by type, arguments the call changed.

Nothing the submission sends is run or unpickled here, and it never sees what the reference
returned, so the only way through is to compute the right values. Problems whose public
API is classes (objects carry state from call to call) give no plain-data calls: for them
this check says so and the verdict rests on the tests and the canaries.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.confined import ENDED, LATE, Confined
from bugsmith.harness.exercises.sandboxed.channel import INPUT_VARIABLE
from bugsmith.harness.sandbox import Sandbox

RTOL = 1e-9
ATOL = 1e-12
CALL_SECONDS = 10.0
BUDGET = {"per_function": 300, "per_test": 10, "bytes": 48 * 2**20}
RECORDER = "bugsmith_grading.recorder"
SHOWN_MISMATCHES = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One recorded call of the reference: what to replay, and what it did."""

    id: int
    function: str  # module:qualname
    args: str  # base64 pickle, opaque here: only the submission's sandbox unpickles it
    shown: str  # a short rendering, for messages
    test: str  # the test that made the call
    expect: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Recording:
    calls: tuple[Call, ...]
    paths: tuple[str, ...]  # sys.path entries (relative to the work folder) the code imports from
    problem: str = ""  # why the recording failed, if it did


@dataclass(frozen=True, slots=True, kw_only=True)
class Mismatch:
    call: str  # the call, as shown
    test: str
    difference: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Differential:
    """The outcome of the check: how many calls were compared, and where the submission differs."""

    calls: int
    functions: tuple[str, ...]
    mismatches: int
    examples: tuple[Mismatch, ...]
    note: str = ""  # why nothing was compared, if nothing was

    @property
    def agrees(self) -> bool:
        return self.mismatches == 0


def record(sandbox: Sandbox, input_file: Path, code: list[str], tests: list[str], *, deadline: float,
           cancelled: Any = None) -> Recording:
    """Run `tests` on the reference code in `sandbox` and collect its calls into `code` (work-relative paths).

    `input_file` (mounted in the sandbox) receives the recorder's request; `cancelled` (a
    threading.Event) stops the run early when the verdict no longer needs it.
    """
    input_file.write_text(json.dumps({"code": code, "budget": BUDGET}), encoding="utf-8")
    input_file.chmod(0o644)
    env = {**sandbox.env, INPUT_VARIABLE: sandbox.inside(input_file.parent) + "/" + input_file.name}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", RECORDER, *tests]
    calls: list[Call] = []
    paths: tuple[str, ...] = ()
    problem = ""
    with Confined(replace(sandbox, env=env), argv) as process:
        while True:
            if cancelled is not None and cancelled.is_set():
                return Recording(calls=(), paths=(), problem="cancelled")
            message = process.message(min(deadline, time.monotonic() + 1.0))
            if message is ENDED:
                break
            if message is LATE:
                if time.monotonic() >= deadline:
                    return Recording(calls=tuple(calls), paths=paths, problem="the reference run took too long")
                continue
            assert isinstance(message, dict)
            if message.get("event") == "paths":
                paths = tuple(str(p) for p in message.get("paths", ()))
            elif message.get("event") == "record-error":
                problem = str(message.get("message", ""))
            elif message.get("event") == "call":
                calls.append(Call(id=len(calls), function=str(message["function"]), args=str(message["args"]),
                                  shown=str(message.get("shown", "")), test=str(message.get("test", "")),
                                  expect=message["expect"]))
        process.finish(deadline)
    return Recording(calls=tuple(calls), paths=paths, problem=problem)


def replay(sandbox: Sandbox, input_file: Path, recording: Recording, *, deadline: float) -> Differential:
    """Call the submission's functions (its code alone in `sandbox`) as recorded; compare the outcomes here."""
    functions = tuple(sorted({c.function.partition(":")[2] for c in recording.calls}))
    if not recording.calls:
        note = recording.problem or "the suite makes no calls with plain-data arguments into the code's functions"
        return Differential(calls=0, functions=(), mismatches=0, examples=(), note=note)
    request = {"paths": [str(Path(sandbox.workdir) / p) for p in recording.paths or (".",)],
               "seconds": CALL_SECONDS,
               "calls": [{"id": c.id, "function": c.function, "args": c.args} for c in recording.calls]}
    input_file.write_text(json.dumps(request), encoding="utf-8")
    input_file.chmod(0o644)
    env = {**sandbox.env, INPUT_VARIABLE: sandbox.inside(input_file.parent) + "/" + input_file.name}
    outcomes: dict[int, Any] = {}
    with Confined(replace(sandbox, env=env), [sys.executable, "-P", "-m", "bugsmith_grading.replay"]) as process:
        while True:
            message = process.message(deadline)
            if message is ENDED or message is LATE:
                break
            assert isinstance(message, dict)
            if message.get("event") == "outcome" and isinstance(message.get("id"), int):
                outcomes.setdefault(message["id"], message.get("outcome"))
    mismatches = []
    for call in recording.calls:
        got = outcomes.get(call.id)
        difference = ("no answer (the process died, hung or stopped answering)" if got is None
                      else outcome_difference(call.expect, got))
        if difference is not None:
            mismatches.append(Mismatch(call=call.shown, test=call.test, difference=difference))
    return Differential(calls=len(recording.calls), functions=functions, mismatches=len(mismatches),
                        examples=tuple(mismatches[:SHOWN_MISMATCHES]))


def outcome_difference(expected: dict[str, Any], got: Any) -> str | None:
    """How the submission's outcome of a call differs from the reference's; None when they agree."""
    if not isinstance(got, dict):
        return "an answer that is not an outcome"
    if "raises" in expected:
        names = got.get("raises")
        if isinstance(names, list) and expected["raises"] and expected["raises"][0] in names:
            return None
        return f"the reference raises {expected['raises'][0]}; the submission {_what(got)}"
    if "result" not in got:
        return f"the reference returns a value; the submission {_what(got)}"
    try:
        found = difference(expected["result"], got["result"], "result")
        if found is None:
            found = difference(expected.get("after"), got.get("after"), "arguments after the call")
    except RecursionError:  # the submission's answer, nested past any honest encoding's depth
        return "an answer nested too deeply to be a value"
    return found


def _what(got: dict[str, Any]) -> str:
    if "raises" in got and isinstance(got["raises"], list) and got["raises"]:
        return f"raises {str(got['raises'][0])[:80]}"
    if "timeout" in got:
        return "runs past its time limit"
    if "unavailable" in got:
        return f"cannot be called: {str(got['unavailable'])[:160]}"
    return "returns a value" if "result" in got else "gives no outcome"


def difference(a: Any, b: Any, where: str) -> str | None:  # noqa: C901 - one branch per kind
    """The first place where two encoded values (`sandboxed.values`) differ, or None."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
        return None if type(a) is type(b) and a == b else f"{where}: {_short(a)} vs {_short(b)}"
    if isinstance(a, int | float) and not isinstance(a, bool):
        if not isinstance(b, int | float) or isinstance(b, bool):
            return f"{where}: {_short(a)} vs {_short(b)}"
        return None if _close(a, b) else f"{where}: {a!r} vs {b!r}"
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return f"{where}: {len(a)} items vs {len(b) if isinstance(b, list) else _short(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(a, dict):
        if not isinstance(b, dict) or a.keys() != b.keys():
            return f"{where}: {_kind(a)} vs {_kind(b)}"
        if "float" in a:
            return None if a == b else f"{where}: {a['float']} vs {b['float']}"
        if "ndarray" in a:
            if (a["ndarray"], a["shape"]) != (b["ndarray"], b["shape"]):
                return f"{where}: array {a['ndarray']} {a['shape']} vs {b['ndarray']} {b['shape']}"
            return difference(a["data"], b["data"], f"{where} (flat)")
        for key in a:
            found = difference(a[key], b[key], f"{where}.{key}" if key not in _TAGS else where)
            if found:
                return found
        return None
    return f"{where}: {_short(a)} vs {_short(b)}"


_TAGS = {"list", "tuple", "dict", "set", "frame", "series", "dataclass", "fields", "values", "data", "index"}


def _close(a: float, b: float) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= ATOL + RTOL * max(abs(a), abs(b))


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "/".join(sorted(value)) or "{}"
    return type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
