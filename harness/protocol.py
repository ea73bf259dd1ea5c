"""The messages between the coordinator and the processes that run tests: JSON lines.

A job is one mutant with the tests to run and the time limit; a verdict is what happened,
measured where it happened. The coordinator turns verdicts into Outcomes (harness.verdict).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, BinaryIO


@dataclass(frozen=True, slots=True, kw_only=True)
class Patch:
    """One mutated file to activate: its module, path, enclosing function and whole text."""

    module: str
    path: str  # absolute
    function: str | None
    source: str
    unit: str = ""  # the mutated top-level statement alone, at its lines (harness.units)


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    mutant_id: str
    module: str
    path: str  # absolute path of the mutated file
    function: str | None
    source: str  # the whole mutated file; "" runs the unmutated code (a control)
    tests: tuple[str, ...]  # node ids, fastest first
    timeout: float
    stop_on_failure: bool = True  # False: run every test, e.g. to validate an exercise
    limits: tuple[float, ...] = ()  # per-test time limits, in test order (else `timeout`)
    extra: tuple[Patch, ...] = ()  # more mutated functions activated together (K bugs)
    task: dict[str, Any] | None = None  # survivor triage: replay/search instead of tests
    unit: str = ""  # the mutated top-level statement alone, at its lines (harness.units)

    @classmethod
    def unmutated(cls, mutant_id: str, tests: tuple[str, ...], timeout: float) -> Job:
        """A job that runs `tests` on the original code (a control run)."""
        return cls(mutant_id=mutant_id, module="", path="", function=None, source="",
                   tests=tests, timeout=timeout)

    @property
    def patches(self) -> tuple[Patch, ...]:
        first = Patch(module=self.module, path=self.path, function=self.function, source=self.source,
                      unit=self.unit)
        return ((first,) if self.source else ()) + self.extra

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Job:
        extra = tuple(p if isinstance(p, Patch) else Patch(**p) for p in data.get("extra", ()))
        return cls(**{**data, "tests": tuple(data["tests"]), "extra": extra,
                      "limits": tuple(data.get("limits", ()))})


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """Raw facts from the process that ran a job."""

    mutant_id: str
    results: tuple[dict[str, Any], ...] = ()  # recorder.TestResult dicts, in run order
    missing: tuple[str, ...] = ()  # selected tests the runner could not find
    error: str | None = None  # activation or machinery failure
    timed_out: bool = False
    running: str | None = None  # the test that was running when its time ran out
    died: str | None = None  # how the process ended without reporting, if it did
    elapsed: float = 0.0
    cpu: float | None = None  # CPU seconds the test process used, where the OS tells
    fresh_import: bool = False
    findings: dict[str, Any] | None = None  # what a triage task found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        return cls(
            **{**data, "results": tuple(data.get("results", ())), "missing": tuple(data.get("missing", ()))}
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerSetup:
    """What a worker needs to collect the suite once."""

    root: str
    pytest_args: tuple[str, ...]
    test_paths: tuple[str, ...]
    sources: tuple[str, ...]  # absolute paths of the files under mutation
    memory_limit_mb: int
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkerSetup:
        return cls(
            **{**data, "pytest_args": tuple(data["pytest_args"]),
               "test_paths": tuple(data["test_paths"]), "sources": tuple(data["sources"])}
        )


def send(stream: BinaryIO, message: Any) -> None:
    data = asdict(message) if hasattr(message, "__dataclass_fields__") else message
    stream.write(json.dumps(data).encode() + b"\n")
    stream.flush()


def receive(stream: BinaryIO) -> dict[str, Any] | None:
    line = stream.readline()
    if not line:
        return None
    return json.loads(line)
