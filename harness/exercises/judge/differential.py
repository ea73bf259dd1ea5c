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
API is classes (objects carry state from call to call) are recorded as method-call sequences
per instance (`sandboxed.sequence_recorder`), replayed step by step on a fresh instance of the
submission's class. A class that draws at random (a seed in its constructor) is compared on
what its contract fixes whatever the draws: the exceptions, and the kinds and shapes of its
results (`skeleton`), never the drawn values, which a correct rewrite draws differently.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.judge.confined import ENDED, LATE, Confined
from bugsmith.harness.exercises.judge.sandboxed.channel import INPUT_VARIABLE
from bugsmith.harness.shared.sandbox import Sandbox

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
class Step:
    """One step of a recorded sequence: the constructor (`__init__`) or a method call."""

    method: str
    args: str  # base64 pickle, opaque here
    shown: str
    expect: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sequence:
    """The method calls the suite made on one instance of a contract class, in order."""

    id: int
    cls: str  # module:Name, the public name
    test: str
    shown: str  # the constructor call
    seeded: bool  # its values are random draws: only their structure is compared
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Recording:
    calls: tuple[Call, ...]
    paths: tuple[str, ...]  # sys.path entries (relative to the work folder) the code imports from
    problem: str = ""  # why the recording failed, if it did
    sequences: tuple[Sequence, ...] = ()


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
    sequences: list[Sequence] = []
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
                    return Recording(calls=tuple(calls), paths=paths, problem="the reference run took too long",
                                     sequences=tuple(sequences))
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
            elif message.get("event") == "sequence":
                sequences.append(_sequence(len(sequences), message))
        process.finish(deadline)
    return Recording(calls=tuple(calls), paths=paths, problem=problem, sequences=tuple(sequences))


def _sequence(number: int, message: dict[str, Any]) -> Sequence:
    steps = tuple(Step(method=str(s["method"]), args=str(s["args"]), shown=str(s.get("shown", "")),
                       expect=s["expect"]) for s in message["steps"])
    return Sequence(id=number, cls=str(message["class"]), test=str(message.get("test", "")),
                    shown=str(message.get("shown", "")), seeded=bool(message.get("seeded")), steps=steps)


def replay(sandbox: Sandbox, input_file: Path, recording: Recording, *, deadline: float) -> Differential:
    """Call the submission's functions and replay the method-call sequences on its classes (its
    code alone in `sandbox`) as recorded; compare the outcomes here."""
    steps = sum(len(s.steps) for s in recording.sequences)
    functions = tuple(sorted({c.function.partition(":")[2] for c in recording.calls}
                             | {f"{s.cls.partition(':')[2]}.{step.method}" for s in recording.sequences
                                for step in s.steps if step.method != "__init__"}))
    if not recording.calls and not steps:
        note = recording.problem or ("the suite makes no calls with plain-data arguments into the code's"
                                     " functions or its classes' methods")
        return Differential(calls=0, functions=(), mismatches=0, examples=(), note=note)
    request = {"paths": [str(Path(sandbox.workdir) / p) for p in recording.paths or (".",)],
               "seconds": CALL_SECONDS,
               "calls": [{"id": c.id, "function": c.function, "args": c.args} for c in recording.calls],
               "sequences": [{"id": s.id, "class": s.cls, "steps": [{"method": t.method, "args": t.args}
                                                                     for t in s.steps]}
                             for s in recording.sequences]}
    input_file.write_text(json.dumps(request), encoding="utf-8")
    input_file.chmod(0o644)
    env = {**sandbox.env, INPUT_VARIABLE: sandbox.inside(input_file.parent) + "/" + input_file.name}
    outcomes: dict[int, Any] = {}
    played: dict[int, Any] = {}
    with Confined(replace(sandbox, env=env), [sys.executable, "-P", "-m", "bugsmith_grading.replay"]) as process:
        while True:
            message = process.message(deadline)
            if message is ENDED or message is LATE:
                break
            assert isinstance(message, dict)
            if message.get("event") == "outcome" and isinstance(message.get("id"), int):
                outcomes.setdefault(message["id"], message.get("outcome"))
            elif message.get("event") == "sequence-outcome" and isinstance(message.get("id"), int):
                played.setdefault(message["id"], message.get("outcomes"))
    mismatches = []
    for call in recording.calls:
        got = outcomes.get(call.id)
        difference = ("no answer (the process died, hung or stopped answering)" if got is None
                      else outcome_difference(call.expect, got))
        if difference is not None:
            mismatches.append(Mismatch(call=call.shown, test=call.test, difference=difference))
    for sequence in recording.sequences:
        mismatches += sequence_mismatches(sequence, played.get(sequence.id))
    seeded = sorted({s.cls.partition(":")[2] for s in recording.sequences if s.seeded})
    note = (f"what {' and '.join(seeded)} return{'s' if len(seeded) == 1 else ''} depends on random draws, which"
            " the contract leaves to each implementation: compared are what it fixes (errors, and the kinds and"
            " shapes of results)" if seeded else "")
    return Differential(calls=len(recording.calls) + steps, functions=functions, mismatches=len(mismatches),
                        examples=tuple(mismatches[:SHOWN_MISMATCHES]), note=note)


def sequence_mismatches(sequence: Sequence, got: Any) -> list[Mismatch]:
    """The steps of `sequence` whose outcome on the submission differs (`got`: its list of outcomes)."""
    found = []
    for index, step in enumerate(sequence.steps):
        differs: str | None
        if not isinstance(got, list) or index >= len(got):
            differs = "no answer (the process died, hung, stopped answering, or an earlier step ended it)"
        else:
            differs = outcome_difference(step.expect, got[index], structure=sequence.seeded)
        if differs is not None:
            shown = sequence.shown if index == 0 else f"{sequence.shown} ... .{step.method}({step.shown})"
            found.append(Mismatch(call=shown, test=sequence.test, difference=differs))
    return found


def outcome_difference(expected: dict[str, Any], got: Any, *, structure: bool = False) -> str | None:
    """How the submission's outcome of a call differs from the reference's; None when they agree.

    With `structure`, values are compared by kind and shape only (`skeleton`): results of random
    draws that the contract does not fix."""
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
        if structure:
            found = difference(skeleton(expected["result"]), skeleton(got["result"]), "result (its kind and shape)")
            if found is None:
                found = difference(skeleton(expected.get("after")), skeleton(got.get("after")),
                                   "arguments after the call (their kinds and shapes)")
        else:
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
            if key in _NAMES and isinstance(a[key], str):
                # A contract class by its own name: which module defines it is the submission's choice.
                if not isinstance(b[key], str) or _last(a[key]) != _last(b[key]):
                    return f"{where}: {_short(a[key])} vs {_short(b[key])}"
                continue
            found = difference(a[key], b[key], f"{where}.{key}" if key not in _TAGS else where)
            if found:
                return found
        return None
    return f"{where}: {_short(a)} vs {_short(b)}"


_TAGS = {"list", "tuple", "dict", "set", "frame", "series", "dataclass", "fields", "values", "data", "index"}
_NAMES = {"dataclass", "enum", "object"}


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def skeleton(value: Any) -> Any:  # noqa: C901 - one branch per kind
    """An encoded value reduced to what does not depend on random draws: kinds, lengths, shapes."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return [skeleton(v) for v in value]
    if isinstance(value, dict):
        if "float" in value:
            return "number"
        if "ndarray" in value:  # the dtype too is the draws' (labels as an object or a string array)
            return {"ndarray": "", "shape": value["shape"], "data": []}
        if "enum" in value and "name" in value:
            return value
        return {k: (v if k in _NAMES else skeleton(v)) for k, v in value.items()}
    return value


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
