"""Record the suite's own calls to the functions that hold survivors, in a fresh interpreter.

A separate pass rather than a plugin in the baseline run: the baseline is cached and runs
before anyone knows which mutants will survive, so recording there would pay (in time and in
pickled bytes) for every function of the project on every run; here only the survivors'
functions are watched, and `baseline.py` stays untouched.

The suite is untrusted, so it runs in its own memory-capped interpreter (`python -m
bugsmith.harness.child.triage.call_recorder`, the child half) under a time limit. Arguments are pickled when the call starts (the
function may mutate them), results when it returns; a call that raised is kept as such. The
parent never unpickles anything: blobs travel as base64 text to the forked children that replay
them, so code smuggled into a pickle runs only where the mutant's code runs anyway.
"""

from __future__ import annotations

import dis
import inspect
import json
import subprocess
from dataclasses import asdict, dataclass


from bugsmith.errors import HarnessError
from bugsmith.harness.protocol import WorkerSetup
from bugsmith.harness.interpreter import module_command

_RETURN_VALUE = dis.opmap["RETURN_VALUE"]
_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """How much of the suite's calls to keep: the memory budget of the recording."""

    calls_per_function: int = 60
    calls_per_test: int = 4  # per function: spread the kept calls over the whole suite
    bytes_per_call: int = 256 * 1024  # pickled arguments plus result
    total_bytes: int = 32 * 2**20
    seconds: float = 300.0  # the whole recording pass


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedCall:
    """One call a test made: pickled `(args, kwargs)` and result, base64, opaque to the parent.

    `result` is "" when the call raised (the replay then expects the original to refuse again).
    """

    test: str
    args: str
    result: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


Target = tuple[str, str]  # (absolute path, co_qualname)


def target_key(target: Target) -> str:
    return f"{target[0]}::{target[1]}"


def record_calls(setup: WorkerSetup, targets: set[Target], env: dict[str, str],
                 budget: Budget = Budget()) -> dict[str, list[RecordedCall]]:
    """Run the suite once and return the recorded calls by `target_key`."""
    if not targets:
        return {}
    request = {"setup": asdict(setup), "targets": sorted(targets), "budget": asdict(budget)}
    try:
        process = subprocess.run(
            module_command("bugsmith.harness.child.triage.call_recorder"), input=json.dumps(request).encode() + b"\n",
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=setup.root, env=env,
            timeout=budget.seconds, check=False, start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise HarnessError(f"recording the suite's calls took over {budget.seconds:.0f} s") from None
    if not process.stdout.strip():
        raise HarnessError(f"recording the suite's calls crashed (status {process.returncode})")
    data = json.loads(process.stdout)
    return {key: [RecordedCall(**call) for call in calls] for key, calls in data["calls"].items()}
