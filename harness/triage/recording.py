"""Record the suite's own calls to the functions that hold survivors, in a fresh interpreter.

A separate pass rather than a plugin in the baseline run: the baseline is cached and runs
before anyone knows which mutants will survive, so recording there would pay (in time and in
pickled bytes) for every function of the project on every run; here only the survivors'
functions are watched, and `baseline.py` stays untouched.

The suite is untrusted, so it runs in its own memory-capped interpreter (`python -m
bugsmith.harness.child.triage.call_recorder`, the child half) under a time limit. Arguments are
pickled when the call starts (the function may mutate them), results when it returns; a call
that raised is kept as such. The parent never unpickles anything: blobs travel as base64 text to
the forked children that replay them, so code smuggled into a pickle runs only where the
mutant's code runs anyway.
"""

from __future__ import annotations

import json
import subprocess

from bugsmith.errors import HarnessError
from bugsmith.harness.shared.interpreter import Recorded, RecordingRequest, Target, helper_launch
from bugsmith.harness.shared.protocol import WorkerSetup, encode
from bugsmith.harness.shared.sandbox import Sandbox
from bugsmith.harness.shared.tasks import Budget, RecordedCall


def record_calls(setup: WorkerSetup, targets: set[Target], budget: Budget = Budget(),
                 sandbox: Sandbox | None = None) -> dict[str, tuple[RecordedCall, ...]]:
    """Run the suite once (in `sandbox`, if given) and return the recorded calls by `target_key`."""
    if not targets:
        return {}
    request = RecordingRequest(setup=setup, targets=tuple(sorted(targets)), budget=budget)
    launch = helper_launch("bugsmith.harness.child.triage.call_recorder", setup, sandbox)
    try:
        process = subprocess.run(
            launch.argv, input=encode(request), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=launch.cwd, env=launch.env, timeout=budget.seconds, check=False, start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise HarnessError(f"recording the suite's calls took over {budget.seconds:.0f} s") from None
    if not process.stdout.strip():
        raise HarnessError(f"recording the suite's calls crashed (status {process.returncode})")
    return Recorded.from_dict(json.loads(process.stdout)).calls
