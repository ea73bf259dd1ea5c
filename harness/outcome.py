"""What happened to one mutant, and to a whole run: the records every later stage reads."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class Status(enum.StrEnum):
    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"  # the mutant cannot be imported, or its process died without a verdict
    NO_COVERAGE = "no coverage"
    EQUIVALENT = "equivalent"


class Failure(enum.StrEnum):
    """How a killing test failed."""

    SILENT = "silent"  # an assertion on a wrong result: the bug a user would not notice
    LOUD = "loud"  # an exception raised in the code under test


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """The verdict on one mutant. `detail` says why in words (timeout limit, signal, reason)."""

    mutant_id: str
    status: Status
    killed_by: tuple[str, ...] = ()  # failing test ids, first failure first
    covered_by: tuple[str, ...] = ()  # the tests selected for this mutant
    tests_run: int = 0
    failure: Failure | None = None
    exception: str | None = None  # exception type of the first failure, e.g. "AssertionError"
    message: str = ""  # first line of the failure message, for exercises and reports
    duration: float = 0.0  # seconds of wall time spent on this mutant
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["failure"] = self.failure.value if self.failure else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        fields = dict(data)
        fields["status"] = Status(fields["status"])
        fields["failure"] = Failure(fields["failure"]) if fields.get("failure") else None
        fields["killed_by"] = tuple(fields.get("killed_by", ()))
        fields["covered_by"] = tuple(fields.get("covered_by", ()))
        return cls(**fields)


@dataclass(frozen=True, slots=True, kw_only=True)
class TestInfo:
    """One test of the suite as seen by the baseline run."""

    __test__ = False  # not a pytest test class

    id: str  # pytest node id
    file: str  # test file relative to the project root
    duration: float  # seconds, setup + call + teardown


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """A finished (or resumed) run: its options, mutants, outcomes and tests.

    `sources` maps each mutated file (relative path) to its text at the time of the run, so a
    report can show the code without reading the user's tree again.
    """

    root: str
    started: str  # ISO 8601, UTC
    duration: float
    options: dict[str, Any]
    mutants: tuple[Any, ...]  # tuple[mutators.mutant.Mutant, ...]
    outcomes: tuple[Outcome, ...]
    tests: tuple[TestInfo, ...]
    sources: dict[str, str] = field(default_factory=dict)
    dropped_equivalent: int = 0  # trivially equivalent mutants the engine dropped
    dropped_duplicates: int = 0
    # What the user should know: files skipped, a damaged store replaced, the project's tree changed.
    warnings: tuple[str, ...] = ()

    def counts(self) -> dict[Status, int]:
        counts = {status: 0 for status in Status}
        for outcome in self.outcomes:
            counts[outcome.status] += 1
        return counts

    @property
    def score(self) -> float | None:
        """killed / (all - equivalent - error), as a percentage; None when nothing counts."""
        return mutation_score(self.outcomes)


def mutation_score(outcomes: Any) -> float | None:
    """Percentage of the mutants that count (all but equivalent and error) which were killed.

    A timeout counts as killed: a real test run would have hung and failed CI (as in PIT and
    Stryker).
    """
    counted = [o for o in outcomes if o.status not in (Status.EQUIVALENT, Status.ERROR)]
    if not counted:
        return None
    detected = sum(o.status in (Status.KILLED, Status.TIMEOUT) for o in counted)
    return 100.0 * detected / len(counted)
