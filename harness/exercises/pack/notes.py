"""An exercise's interviewer's notes, for the talk after the candidate's fix.

The notes say, in the problem's own terms: the symptom the candidate saw (the visible tests that
failed and what they said), the root cause (the job of the function each bug is in, the concrete
change, the mutation operator's wording only as a secondary line), why such a bug matters in
production, what a strong explanation contains, and follow-up questions with what a strong
answer holds. The problem's words come from its interview bank
(`harness.exercises.sources.interview_bank`); a problem without one gets notes from the changed
function's docstring and the operator's explanation, and is told how to add a bank.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from bugsmith.harness.exercises.pack.statement import render, short_test_name
from bugsmith.harness.exercises.records import Exercise, Symptom
from bugsmith.harness.exercises.sources.handout_names import HandoutNames, handout_names
from bugsmith.harness.exercises.sources.interview_bank import InterviewBank, bank_path
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.mutators.mutant import Mutant

# A failing test's message is cut here: the notes show what the candidate saw, not a whole log.
MESSAGE_LINES = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """A piece of code as the reference has it and as the exercise has it; `inline` when both
    fit on one line of Markdown."""

    before: str
    after: str
    inline: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BugNote:
    """One bug of an exercise, in the problem's terms."""

    mutant: Mutant
    role: str  # the bank's; without a bank, the function's docstring ("" if it has none)
    stakes: str  # the bank's; "" without a bank
    change: Change


@dataclass(frozen=True, slots=True, kw_only=True)
class SymptomNote:
    test: str  # as pytest's summary prints it
    exception: str
    message: str


def roles(exercise: Exercise, bank: InterviewBank | None) -> dict[str, str]:
    """The bank's job of each function the exercise's bugs are in (empty without a bank)."""
    if bank is None:
        return {}
    functions = {m.function for m in exercise.mutants if m.function is not None}
    return {f: bank.functions[f].role for f in sorted(functions) if f in bank.functions}


def bug_notes(exercise: Exercise, bank: InterviewBank | None) -> tuple[BugNote, ...]:
    """Each bug of the exercise with its function's job and stakes."""
    found = []
    for mutant in exercise.mutants:
        note = bank.functions.get(mutant.function or "") if bank else None
        if note is not None:
            role, stakes = note.role, note.stakes
        else:
            role, stakes = docstring(exercise.reference.get(mutant.file, ""), mutant.function or ""), ""
        found.append(BugNote(mutant=mutant, role=role, stakes=stakes, change=change(mutant)))
    return tuple(found)


def change(mutant: Mutant) -> Change:
    """The mutant's edit, ready to show: inline code when both sides are one short line."""
    # A span may start mid-line: its first line then lacks the indentation its other lines keep.
    indent = " " * mutant.span.column
    before, after = (textwrap.dedent(indent + text).strip("\n") for text in (mutant.original, mutant.mutated))
    inline = all(text and "\n" not in text and "`" not in text and len(text) <= 80 for text in (before, after))
    return Change(before=before, after=after, inline=inline)


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def docstring(source: str, qualified: str) -> str:
    """The first paragraph of the docstring of the function `qualified` (e.g. `Class.method`)
    in `source`, on one line; "" when there is none or the source does not parse."""
    try:
        scope = ast.parse(source).body
    except SyntaxError:
        return ""
    found: _Definition | None = None
    for name in qualified.split("."):
        found = _defined(scope, name)
        if found is None:
            return ""
        scope = found.body
    if found is None or isinstance(found, ast.ClassDef):
        return ""
    text = ast.get_docstring(found) or ""
    return " ".join(text.split("\n\n", 1)[0].split())


def _defined(scope: list[ast.stmt], name: str) -> _Definition | None:
    for statement in scope:
        if isinstance(statement, _Definition) and statement.name == name:
            return statement
    return None


def symptom_notes(symptoms: Sequence[Symptom], names: HandoutNames) -> tuple[SymptomNote, ...]:
    """What the candidate saw of each failing test, as their folder names things."""
    return tuple(SymptomNote(test=short_test_name(s.test), exception=s.exception,
                             message=names.markdown("\n".join(s.message.splitlines()[:MESSAGE_LINES])))
                 for s in symptoms)


def notes(exercise: Exercise, problem: Problem, bank: InterviewBank | None) -> str:
    """The exercise's `notes.md`, naming files as the candidate's folder does."""
    visible = [t for t in exercise.fail_to_pass if not problem.is_hidden(t)]
    names = handout_names(problem)
    return render(
        "notes.md.j2", exercise=exercise, bank=bank, bank_path=bank_path(problem), names=names,
        bugs=bug_notes(exercise, bank), symptoms=symptom_notes(exercise.symptoms, names),
        visible=[short_test_name(t) for t in visible],
        held_back=[short_test_name(t) for t in exercise.fail_to_pass if problem.is_hidden(t)],
    )
