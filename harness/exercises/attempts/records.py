"""The records of saved attempts: one graded attempt as kept on disk, and one exercise's summary.

A saved attempt is the grade exactly as `bugsmith grade --json` prints it, with one key added,
`attempt`, holding what the grade lacks. Anything that reads a grade reads a saved attempt.
How the candidate worked comes from the grade's `process` (the log of test runs the handout
records); an attempt graded before that existed, or whose log is not whole, has no minutes and
no run count: unknown, never zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from bugsmith.harness.exercises.records import ExerciseError

FORMAT = "bugsmith-attempt/1"
USABLE_LOG = "ok"  # process.log: "missing", "broken" or "stale" logs say nothing reliable about time


class AttemptError(ExerciseError):
    """Attempts cannot be saved or read as asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Label:
    """What the pack promised about an exercise: its level, score and time limit."""

    level: str  # "easy", "medium" or "hard"
    score: int
    time_limit_minutes: int

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "score": self.score, "time_limit_minutes": self.time_limit_minutes}

    @classmethod
    def from_dict(cls, data: Any) -> Label:
        return cls(level=_text(data, "level"), score=_whole(data, "score"),
                   time_limit_minutes=_whole(data, "time_limit_minutes"))


@dataclass(frozen=True, slots=True, kw_only=True)
class PackIdentity:
    """A pack: the digest of its instructor manifest (which names every handed-out file), and a name to show."""

    name: str
    manifest_sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "manifest_sha256": self.manifest_sha256}

    @classmethod
    def from_dict(cls, data: Any) -> PackIdentity:
        return cls(name=_text(data, "name"), manifest_sha256=_text(data, "manifest_sha256"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One graded attempt at one exercise of one pack.

    `id` is a digest of the pack, the exercise, the candidate and the submitted files, so the
    same attempt saved again is the same file. `grade` is the grade's JSON as printed.
    """

    id: str
    pack: PackIdentity
    exercise_id: str
    problem: str
    label: Label
    graded_at: str  # ISO 8601, UTC, e.g. 2026-12-07T10:15:00Z
    submission_sha256: str
    candidate: str | None = None
    hints_given: int | None = None  # None: not recorded
    grade: Mapping[str, Any]

    @property
    def passed(self) -> bool:
        return self.grade.get("passed") is True

    @property
    def graded(self) -> datetime:
        return datetime.fromisoformat(self.graded_at)

    @property
    def log(self) -> str | None:
        """The state of the candidate's log (`process.log`), None when the grade has no process."""
        log = self._process().get("log")
        return log if isinstance(log, str) else None

    @property
    def minutes(self) -> float | None:
        """Minutes from the first test run to the last, when the log is whole; else unknown."""
        if self.log != USABLE_LOG:
            return None
        minutes = self._process().get("minutes_total")
        if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not math.isfinite(minutes):
            return None
        return float(minutes) if minutes >= 0 else None

    @property
    def runs(self) -> int | None:
        """How many times the candidate ran the tests, when the log is whole; else unknown."""
        runs = self._process().get("runs")
        return len(runs) if self.log == USABLE_LOG and isinstance(runs, list) else None

    def _process(self) -> Mapping[str, Any]:
        process = self.grade.get("process")
        return process if isinstance(process, Mapping) else {}

    def to_document(self) -> dict[str, Any]:
        """The file's content: the grade, and the attempt's own facts under `attempt`."""
        return {**self.grade, "attempt": {
            "format": FORMAT, "id": self.id, "pack": self.pack.to_dict(), "exercise_id": self.exercise_id,
            "problem": self.problem, "label": self.label.to_dict(), "graded_at": self.graded_at,
            "submission_sha256": self.submission_sha256, "candidate": self.candidate,
            "hints_given": self.hints_given,
        }}

    @classmethod
    def from_document(cls, document: Any) -> Attempt:
        """The attempt a saved file holds; ValueError says why it is not one."""
        if not isinstance(document, dict) or not isinstance(document.get("attempt"), dict):
            raise ValueError("no `attempt` object")
        facts = document["attempt"]
        if facts.get("format") != FORMAT:
            raise ValueError(f"format {facts.get('format')!r}, not {FORMAT!r}")
        if not isinstance(document.get("passed"), bool):
            raise ValueError("the grade has no `passed` verdict")
        candidate, hints = facts.get("candidate"), facts.get("hints_given")
        if candidate is not None and not isinstance(candidate, str):
            raise ValueError("`candidate` is not text")
        if hints is not None and (isinstance(hints, bool) or not isinstance(hints, int) or hints < 0):
            raise ValueError("`hints_given` is not a count")
        graded_at = _text(facts, "graded_at")
        if datetime.fromisoformat(graded_at).tzinfo is None:  # ValueError when it is not a time at all
            raise ValueError("`graded_at` has no time zone")
        return cls(id=_text(facts, "id"), pack=PackIdentity.from_dict(facts.get("pack")),
                   exercise_id=_text(facts, "exercise_id"), problem=_text(facts, "problem"),
                   label=Label.from_dict(facts.get("label")), graded_at=graded_at,
                   submission_sha256=_text(facts, "submission_sha256"), candidate=candidate,
                   hints_given=hints, grade={k: v for k, v in document.items() if k != "attempt"})


class Verdict(StrEnum):
    """Whether the measured effort agrees with an exercise's label."""

    FITS = "label fits"
    HARDER = "harder than labelled"
    EASIER = "easier than labelled"
    TOO_FEW = "too few attempts"


@dataclass(frozen=True, slots=True, kw_only=True)
class ExerciseSummary:
    """What the saved attempts at one exercise of one pack show, against its label."""

    pack: PackIdentity
    exercise_id: str
    problem: str
    label: Label
    attempts: int
    passed: int
    passed_unaided: int  # passed with no hint recorded as given
    with_log: int  # attempts whose log was whole: the runs come from them
    timed: int  # those with a time (a whole log with no run has none): the minutes come from them
    median_minutes: float | None
    median_runs: float | None
    with_hints: int  # attempts whose hints were recorded
    median_hints: float | None
    verdict: Verdict
    reasons: tuple[str, ...]  # why the verdict, in plain words

    @property
    def pass_rate(self) -> float:
        return self.passed / self.attempts if self.attempts else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack.to_dict(), "exercise_id": self.exercise_id, "problem": self.problem,
            "label": self.label.to_dict(), "attempts": self.attempts, "passed": self.passed,
            "pass_rate": round(self.pass_rate, 4), "passed_unaided": self.passed_unaided,
            "with_log": self.with_log, "timed": self.timed, "median_minutes": self.median_minutes,
            "median_runs": self.median_runs,
            "with_hints": self.with_hints, "median_hints": self.median_hints, "verdict": self.verdict.value,
            "reasons": list(self.reasons),
        }


def _text(data: Any, key: str) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str) or not value:
        raise ValueError(f"no `{key}`")
    return value


def _whole(data: Any, key: str) -> int:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"no whole number `{key}`")
    return value
