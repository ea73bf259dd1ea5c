"""The work a job may carry instead of running tests, and what that work finds.

A baseline chunk runs its tests under coverage (CoverageTask -> Coverage); survivor triage
replays and searches one survivor (ProbeTask -> Probed) and runs a drafted test on the original
or on the mutant (CheckTask -> Checked). The coordinator builds the tasks and reads the
findings; a worker's forked child does the work (harness.child.worker picks who does it by
`kind`). Typed records with one serialiser each, `kind` naming the record on the wire, so that
nothing crosses a process boundary as a bare string-keyed dict.

Data only, standard library only: the worker imports this module without loading triage.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

LineMap = dict[str, dict[int, tuple[str, ...]]]  # file (relative) -> line -> the tests that ran it
# Seconds for one call of the function under triage (original or mutant): the probe's alarm,
# and the coordinator's time limit for a probe job, which replays up to two calls per record.
CALL_SECONDS = 2.0


class Classification(enum.StrEnum):
    UNASSERTED = "unasserted"  # a test ran the bug and saw the wrong value, but asserted nothing
    UNDERTESTED = "undertested"  # no test ran an input that shows the bug; search found one
    POSSIBLY_EQUIVALENT = "possibly equivalent"  # nothing tried told the two versions apart
    NOT_TRIAGED = "not triaged"  # an import-time site, or the child failed


@dataclass(frozen=True, slots=True, kw_only=True)
class CoverageTask:
    """Run the job's tests under coverage, one coverage context per test: a baseline chunk."""

    kind: ClassVar[str] = "coverage"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CoverageTask:
        return cls()


@dataclass(frozen=True, slots=True, kw_only=True)
class Coverage:
    """The lines each test ran, where the code under test warned while they ran, and where the
    tracebacks of failing tests ended in it."""

    kind: ClassVar[str] = "coverage"
    lines: LineMap
    warned: tuple[tuple[str, int], ...] = ()  # (file, line), files as in `lines`
    raised: tuple[tuple[str, int], ...] = ()  # (file, line) of a failing test's innermost frame in the code

    def to_dict(self) -> dict[str, Any]:
        # JSON keys are text: line numbers travel as strings.
        lines = {f: {str(n): list(ids) for n, ids in by_line.items()} for f, by_line in self.lines.items()}
        return {"kind": self.kind, "lines": lines, "warned": [list(place) for place in self.warned],
                "raised": [list(place) for place in self.raised]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Coverage:
        return cls(lines={f: {int(n): tuple(ids) for n, ids in by_line.items()}
                          for f, by_line in data["lines"].items()},
                   warned=tuple((str(f), int(n)) for f, n in data.get("warned", ())),
                   raised=tuple((str(f), int(n)) for f, n in data.get("raised", ())))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedCall:
    """One call a test made: pickled `(args, kwargs)` and result, base64, opaque to the parent.

    `result` is "" when the call raised (the replay then expects the original to refuse again).
    """

    test: str
    args: str
    result: str
    # Which of the function objects that share the code was called (a decorator's wrapper is
    # one per decorated function, each with its own closure): "module:qualname", as
    # functools.wraps names it; "" when they are alike.
    callee: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecordedCall:
        return cls(**data)


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """How much of the suite's calls to keep: the memory budget of the recording."""

    calls_per_function: int = 60
    calls_per_test: int = 4  # per function: spread the kept calls over the whole suite
    bytes_per_call: int = 256 * 1024  # pickled arguments plus result
    total_bytes: int = 32 * 2**20
    seconds: float = 300.0  # the whole recording pass

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Budget:
        return cls(**data)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeTask:
    """Replay the suite's recorded calls on one survivor, then search for an input that shows it."""

    kind: ClassVar[str] = "probe"
    mutant_id: str
    operator: str
    module: str
    function: str  # qualified name of the survivor's function
    calls: tuple[RecordedCall, ...]
    search_seconds: float
    max_examples: int
    # Witnesses only through the problem's public entry points when `function` is private
    # (`bugsmith score`: a candidate's test calls the API the statement documents).
    public_only: bool = False
    # The suite's calls of the public functions that call `function` (callee "module:qualname"):
    # a private helper, or one no test calls, is searched through them.
    through: tuple[RecordedCall, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "kind": self.kind, "calls": [call.to_dict() for call in self.calls],
                "through": [call.to_dict() for call in self.through]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProbeTask:
        fields = {k: v for k, v in data.items() if k != "kind"}
        return cls(**{**fields, "calls": tuple(RecordedCall.from_dict(c) for c in data["calls"]),
                      "through": tuple(RecordedCall.from_dict(c) for c in data.get("through", ()))})


@dataclass(frozen=True, slots=True, kw_only=True)
class Probed:
    """What a probe found. With `error` set, nothing else is: the probe could not run."""

    kind: ClassVar[str] = "probe"
    classification: Classification = Classification.NOT_TRIAGED
    error: str = ""
    callee: str = ""  # what the distinguishing call calls, as a test would import it
    module: str = ""
    call: str = ""  # the distinguishing call, as a reader would type it
    expected: str = ""  # what the original does: "returns [3, 6]", "raises ValueError: ..."
    actual: str = ""  # what the mutant does, in the same words
    why: str = ""  # the kind of difference: "returns a different value", "raises", ...
    test: str = ""  # the test whose recorded call showed the bug (unasserted only)
    tried: str = ""  # what was replayed and searched
    suggested_test: str = ""  # a drafted test module, still to be checked
    test_name: str = ""  # the function in `suggested_test` that a check calls
    not_written: str = ""  # why no test was drafted for the witness
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "kind": self.kind, "classification": self.classification.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Probed:
        fields = {k: v for k, v in data.items() if k != "kind"}
        return cls(**{**fields, "classification": Classification(data["classification"])})


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckTask:
    """Run the drafted test `name` of `source` on whatever code the job activates."""

    kind: ClassVar[str] = "check"
    source: str
    name: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "kind": self.kind}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckTask:
        return cls(**{k: v for k, v in data.items() if k != "kind"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    """Whether the drafted test passed; `passed` is None when it could not be run at all."""

    kind: ClassVar[str] = "check"
    passed: bool | None = None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "kind": self.kind}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Checked:
        return cls(**{k: v for k, v in data.items() if k != "kind"})


Task = CoverageTask | ProbeTask | CheckTask
Findings = Coverage | Probed | Checked

_TASKS: dict[str, type[Task]] = {record.kind: record for record in (CoverageTask, ProbeTask, CheckTask)}
_FINDINGS: dict[str, type[Findings]] = {record.kind: record for record in (Coverage, Probed, Checked)}


def task_from_dict(data: Mapping[str, Any]) -> Task:
    return _TASKS[data["kind"]].from_dict(data)


def findings_from_dict(data: Mapping[str, Any]) -> Findings:
    return _FINDINGS[data["kind"]].from_dict(data)
