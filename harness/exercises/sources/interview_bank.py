"""A problem's interview bank: what the instructor says after the candidate's fix.

The bank is a TOML file beside the problem's statement, written by hand by someone who knows the
domain, and read only for the instructor part of a pack (it is never handed out):

```toml
format = "bugsmith-interview/1"

[explanation]                  # what a strong explanation of any bug in this problem contains
mechanism = "..."              # how the changed line breaks the problem's rule
symptom = "..."                # what that does to the outputs the tests look at
tests = "..."                  # why the tests that failed are the ones that catch it
fix = "..."                    # what the minimal fix is, and what it is not

[functions."Scheduler._fits"]  # one table per function (qualified name) that bugs land in
role = "Decides whether ..."   # its job in the problem's terms: one sentence, the function its subject
stakes = "..."                 # what goes wrong in production when it is wrong

[[follow_up]]                  # at least four: asked once the fix is in
question = "..."
answer = "..."                 # what a strong answer contains
```

A corpus problem keeps it as `reference/<name>/interview.toml`; a project's problem, whose
statements may share a folder, as `<statement's stem>.interview.toml` beside its statement.
A problem without one still gets notes (`harness.exercises.pack.notes`), from its code alone.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.problems import REFERENCE, Problem

FORMAT = "bugsmith-interview/1"
MIN_FOLLOW_UPS = 4
_EXPLANATION = ("mechanism", "symptom", "tests", "fix")


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionNote:
    """One function of the problem, in the problem's terms: its job and the stakes of a bug in it."""

    role: str
    stakes: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StrongExplanation:
    """What a strong explanation of a bug in this problem contains."""

    mechanism: str
    symptom: str
    tests: str
    fix: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FollowUp:
    """A question the interviewer asks after the fix, and what a strong answer contains."""

    question: str
    answer: str


@dataclass(frozen=True, slots=True, kw_only=True)
class InterviewBank:
    """A problem's bank; `path` is relative to the problem's root."""

    problem: str
    path: str
    functions: Mapping[str, FunctionNote]
    explanation: StrongExplanation
    follow_ups: tuple[FollowUp, ...]

    def texts(self) -> tuple[str, ...]:
        """Every string the bank holds, the function names aside."""
        found = [getattr(self.explanation, name) for name in _EXPLANATION]
        for note in self.functions.values():
            found += (note.role, note.stakes)
        for follow_up in self.follow_ups:
            found += (follow_up.question, follow_up.answer)
        return tuple(found)


def bank_path(problem: Problem) -> str:
    """Where `problem`'s bank is (relative to its root), whether or not it exists."""
    statement = PurePosixPath(problem.statement)
    if problem.source == REFERENCE:
        return (statement.parent / "interview.toml").as_posix()
    return (statement.parent / f"{statement.stem}.interview.toml").as_posix()


def load_bank(problem: Problem) -> InterviewBank | None:
    """`problem`'s bank, or None when it has none; ExerciseError when it is not a valid bank
    or would be handed to the candidate."""
    relative = bank_path(problem)
    path = problem.root / relative
    if not path.is_file():
        return None
    handed_out = {*problem.code, *problem.visible, *problem.support, *problem.candidate_glue}
    if relative in handed_out:
        raise ExerciseError(f"{path}: the interview bank is among the files handed to candidates;"
                            " keep it outside the code and the tests")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return _bank(data, problem.name, relative)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, _Invalid) as error:
        raise ExerciseError(f"{path}: not a {FORMAT} interview bank: {error}") from None


class _Invalid(ValueError):
    """What is wrong with a bank's content (turned into one ExerciseError line)."""


def _bank(data: dict[str, Any], problem: str, relative: str) -> InterviewBank:
    _keys(data, "the bank", required=("format", "explanation", "functions", "follow_up"))
    if data["format"] != FORMAT:
        raise _Invalid(f"format {data['format']!r}, expected {FORMAT!r}")
    explanation = _table(data["explanation"], "[explanation]")
    _keys(explanation, "[explanation]", required=_EXPLANATION)
    functions = _table(data["functions"], "[functions]")
    if not functions:
        raise _Invalid("[functions] names no function")
    follow_ups = data["follow_up"]
    if not isinstance(follow_ups, list) or len(follow_ups) < MIN_FOLLOW_UPS:
        raise _Invalid(f"at least {MIN_FOLLOW_UPS} [[follow_up]] tables are needed")
    return InterviewBank(
        problem=problem,
        path=relative,
        functions={name: FunctionNote(**_texts(note, f'[functions."{name}"]', ("role", "stakes")))
                   for name, note in functions.items()},
        explanation=StrongExplanation(**_texts(explanation, "[explanation]", _EXPLANATION)),
        follow_ups=tuple(FollowUp(**_texts(item, f"[[follow_up]] {i}", ("question", "answer")))
                         for i, item in enumerate(follow_ups, 1)),
    )


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be a table")
    return value


def _keys(table: dict[str, Any], where: str, *, required: tuple[str, ...]) -> None:
    missing = [key for key in required if key not in table]
    unknown = sorted(set(table) - set(required))
    if missing:
        raise _Invalid(f"{where} has no {missing[0]!r}")
    if unknown:
        raise _Invalid(f"{where} has an unknown key {unknown[0]!r} (known: {', '.join(required)})")


def _texts(value: Any, where: str, required: tuple[str, ...]) -> dict[str, str]:
    """The table's strings, each required and non-empty, whitespace folded to single spaces."""
    table = _table(value, where)
    _keys(table, where, required=required)
    texts = {}
    for key in required:
        text = table[key]
        if not isinstance(text, str) or not text.strip():
            raise _Invalid(f"{where}: {key!r} must be a non-empty string")
        # TOML's multi-line strings keep their line breaks; a note reads them as one paragraph.
        texts[key] = " ".join(text.split())
    return texts
