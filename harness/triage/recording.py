"""Record the suite's own calls to the functions that hold survivors, in a fresh interpreter.

A separate pass rather than a plugin in the baseline run: the baseline is cached and runs
before anyone knows which mutants will survive, so recording there would pay (in time and in
pickled bytes) for every function of the project on every run; here only the survivors'
functions are watched, and `baseline.py` stays untouched.

The suite is untrusted, so it runs in its own memory-capped interpreter (`python -m
bugsmith.harness.child.triage.call_recorder`, the child half), in the project's private copy,
under a time limit. Arguments are
pickled when the call starts (the function may mutate them), results when it returns; a call
that raised is kept as such. The parent never unpickles anything: blobs travel as base64 text to
the forked children that replay them, so code smuggled into a pickle runs only where the
mutant's code runs anyway.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bugsmith.errors import HarnessError
from bugsmith.harness.executors.project_copy import ProjectCopy
from bugsmith.harness.shared.interpreter import Recorded, RecordingRequest, Target, helper_launch, target_key
from bugsmith.harness.shared.protocol import WorkerSetup, encode
from bugsmith.harness.shared.sandbox import Sandbox
from bugsmith.harness.shared.tasks import Budget, RecordedCall


def record_calls(setup: WorkerSetup, targets: set[Target], budget: Budget = Budget(),
                 sandbox: Sandbox | None = None) -> dict[str, tuple[RecordedCall, ...]]:
    """Run the suite once and return the recorded calls by `target_key`.

    In `sandbox`, if given (its read-only view keeps the tree as it was); else in the private copy
    of the project the run's executors use (harness.executors.project_copy), as `bugsmith run`
    does: whatever the suite's settings write where it runs (pytest-cov's `.coverage` through
    `addopts = --cov`, a plugin's cache, a fixture's files) lands in the copy, never in the tree.
    """
    if not targets:
        return {}
    if sandbox is not None:
        return _recorded(setup, targets, budget, sandbox)
    with ProjectCopy.open(Path(setup.root)) as copy:
        moved = {(copy.relocation.into_copy(path), name): target_key((path, name)) for path, name in targets}
        found = _recorded(copy.relocation.setup(setup), set(moved), budget, None)
    return {moved[target]: found[target_key(target)] for target in moved if target_key(target) in found}


def _recorded(setup: WorkerSetup, targets: set[Target], budget: Budget,
              sandbox: Sandbox | None) -> dict[str, tuple[RecordedCall, ...]]:
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
