"""bugsmith's own helper interpreters: how they are started, and what they are asked and answer.

Besides the fork-server workers (harness.shared.protocol), the coordinator and the workers start
interpreters for one request each: a fresh import of one job (`harness.child.isolated`), the
suite once under coverage (`harness.child.coverage_run`) and triage's call recording
(`harness.child.triage.call_recorder`). Their requests and reports are the typed records below.

Both sides of the process boundary import this module.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.harness.shared.protocol import Job, TestResult, Verdict, WorkerSetup, child_message
from bugsmith.harness.shared.sandbox import Launch, Sandbox, command
from bugsmith.harness.shared.tasks import Budget, Coverage, RecordedCall
from bugsmith.harness.shared.tool_state import tool_env


def module_command(module: str) -> list[str]:
    """`python -P -m module`: `-P` keeps the working folder (the user's project) off
    `sys.path`, so a project package named like one of ours cannot shadow it; the helper adds
    the project root itself once bugsmith is imported."""
    return [sys.executable, "-P", "-m", module]


def worker_env(root: str | Path) -> dict[str, str]:
    """Single-threaded numeric libraries (a forked child that runs OpenMP after its parent did
    hangs otherwise), no bytecode or tool caches written into the user's tree, stable hashing."""
    inherited = {name: value for name, value in os.environ.items() if name not in _ENCLOSING_SESSION}
    return {**inherited, **tool_env(root), **_WORKER_VARIABLES}


# Set by a pytest session that runs bugsmith (pytest-xdist's worker, say), not by the user's
# shell: plain pytest run on the project never sees them. pytest-benchmark warns on the first,
# which a suite with `filterwarnings = error` turns into a red baseline.
_ENCLOSING_SESSION = frozenset({"PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT",
                                "PYTEST_XDIST_TESTRUNUID"})


_WORKER_VARIABLES = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "BUGSMITH_MUTANT_RUN": "1",  # lets a suite skip work that only helps humans (shrinking)
}


def helper_launch(module: str, setup: WorkerSetup, sandbox: Sandbox | None = None,
                  env: Mapping[str, str] | None = None) -> Launch:
    """How to start the helper interpreter `module` on `setup`'s project: in `setup.root` (the
    project or its private copy) with this process's environment, or inside `sandbox` (tests
    that are not trusted: `bugsmith score`) with the sandbox's; `env` is added either way."""
    extra = dict(env or {})
    if sandbox is None:
        return Launch(argv=tuple(module_command(module)), env={**worker_env(setup.project), **extra},
                      cwd=str(setup.root))
    return command(replace(sandbox, env={**tool_env(setup.project), **_WORKER_VARIABLES, **sandbox.env, **extra}),
                   module_command(module))


@dataclass(frozen=True, slots=True, kw_only=True)
class FreshRequest:
    """Run `job` in a fresh interpreter, which may take `collect_limit` seconds to start and
    collect (a mutant can hang the import); None: no limit of its own."""

    setup: WorkerSetup
    job: Job
    collect_limit: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"setup": self.setup.to_dict(), "job": self.job.to_dict(), "collect_limit": self.collect_limit}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FreshRequest:
        return cls(setup=WorkerSetup.from_dict(data["setup"]), job=Job.from_dict(data["job"]),
                   collect_limit=data.get("collect_limit"))


def verdict_of_output(job: Job, output: bytes, status: int, **measured: Any) -> Verdict:
    """The Verdict a fresh interpreter wrote, or what its output says of how it ended.

    `measured` are Verdict fields the caller measured itself (elapsed time, fresh_import).
    """
    running, timed_out = None, False
    for line in output.decode(errors="replace").splitlines():
        timed_out = timed_out or line.startswith("Timeout (")
        try:
            data = json.loads(line)
        except ValueError:
            continue  # the watchdog's traceback
        if not isinstance(data, dict):
            continue
        message = child_message(data)
        if isinstance(message, Verdict):
            return replace(message, **measured)
        running = message.running or running
    if timed_out:
        return Verdict(mutant_id=job.mutant_id, timed_out=True, running=running, **measured)
    return Verdict(mutant_id=job.mutant_id, **measured,
                   died=f"the fresh interpreter ended with status {status} before reporting")


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteCoverage:
    """What the fresh baseline interpreter reports: the suite's tests, failures and coverage."""

    exit_code: int
    collect_errors: tuple[str, ...]
    tests: tuple[tuple[str, str, float], ...]  # (id, file, seconds), in collection order
    failed: tuple[TestResult, ...]
    coverage: Coverage

    def to_dict(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "collect_errors": list(self.collect_errors),
                "tests": [list(test) for test in self.tests],
                "failed": [result.to_dict() for result in self.failed], "coverage": self.coverage.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SuiteCoverage:
        return cls(exit_code=data["exit_code"], collect_errors=tuple(data["collect_errors"]),
                   tests=tuple((i, f, d) for i, f, d in data["tests"]),
                   failed=tuple(TestResult.from_dict(r) for r in data["failed"]),
                   coverage=Coverage.from_dict(data["coverage"]))


Target = tuple[str, str]  # (absolute path, co_qualname) of a function whose calls to record


def target_key(target: Target) -> str:
    return f"{target[0]}::{target[1]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordingRequest:
    """Run the suite once and keep its calls to `targets`, within `budget`."""

    setup: WorkerSetup
    targets: tuple[Target, ...]
    budget: Budget

    def to_dict(self) -> dict[str, Any]:
        return {"setup": self.setup.to_dict(), "targets": [list(t) for t in self.targets],
                "budget": self.budget.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecordingRequest:
        return cls(setup=WorkerSetup.from_dict(data["setup"]),
                   targets=tuple((path, name) for path, name in data["targets"]),
                   budget=Budget.from_dict(data["budget"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class Recorded:
    """The recorded calls, by `target_key`."""

    calls: dict[str, tuple[RecordedCall, ...]]

    def to_dict(self) -> dict[str, Any]:
        return {"calls": {key: [call.to_dict() for call in calls] for key, calls in self.calls.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recorded:
        return cls(calls={key: tuple(RecordedCall.from_dict(c) for c in calls)
                          for key, calls in data["calls"].items()})

