"""A pack built over several problems: each exercise's instructor notes speak the bank's words,
and nothing of any bank reaches the candidate part."""

from __future__ import annotations

from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.pack.pack import PackPaths, export
from bugsmith.harness.exercises.pack.statement import short_test_name
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.catalogue import load_problems, reference_names
from bugsmith.harness.exercises.sources.interview_bank import InterviewBank, load_bank
from tests.exercises.bank_leaks import folded, phrases

pytestmark = pytest.mark.slow  # the pack is built by real runs

# Every third problem of the corpus (named by the one list, never typed): several problems' banks.
PROBLEMS = tuple(reference_names(builtin_root())[::3])
OPTIONS = ExerciseOptions(problems=PROBLEMS, count=len(PROBLEMS), seed=0)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[Exercise, ...], PackPaths]:
    exercises = build_exercises(OPTIONS, root=builtin_root(), jobs=2)
    pack = export(exercises, tmp_path_factory.mktemp("notes") / "pack", root=builtin_root(), options=OPTIONS)
    return exercises, pack


def _bank(name: str) -> InterviewBank:
    bank = load_bank(load_problems(builtin_root())[name])
    assert bank is not None
    return bank


def _read(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_pack_holds_an_exercise_of_each_problem(built) -> None:
    """The fixture's premise: the notes below are checked on several problems' banks."""
    exercises, _ = built
    assert len(PROBLEMS) >= 3 and {e.problem for e in exercises} == set(PROBLEMS)


def test_each_exercises_notes_carry_the_root_cause_in_the_banks_words_and_the_follow_ups(built) -> None:
    """notes.md: the visible symptom, the job and stakes of the function each bug is in, the
    concrete change, the strong explanation, and every follow-up with its strong answer;
    solution.md and the README point to it, hints.md words the bug in the bank's terms."""
    exercises, pack = built
    readme = (pack.instructor / "README.md").read_text(encoding="utf-8")
    for exercise in exercises:
        bank = _bank(exercise.problem)
        folder = pack.instructor / exercise.id
        notes = (folder / "notes.md").read_text(encoding="utf-8")
        for mutant in exercise.mutants:
            assert mutant.function is not None
            note = bank.functions[mutant.function]
            assert note.role in notes and note.stakes in notes, (exercise.id, mutant.function)
            assert f"`{mutant.function}`" in notes and mutant.explanation in notes
            hints = (folder / "hints.md").read_text(encoding="utf-8")
            assert f"the code that {note.role[0].lower()}{note.role[1:]}" in hints
            assert hints.index(note.role[1:]) < hints.index(f"`{mutant.function}`")
        for symptom in exercise.symptoms:
            assert short_test_name(symptom.test) in notes
            assert symptom.message.splitlines()[0] in notes
        explanation = bank.explanation
        assert all(p in notes for p in (explanation.mechanism, explanation.symptom, explanation.tests, explanation.fix))
        for follow_up in bank.follow_ups:
            assert follow_up.question in notes and follow_up.answer in notes
        assert "notes.md" in (folder / "solution.md").read_text(encoding="utf-8")
        assert bank.path in readme


def test_no_sentence_of_any_bank_reaches_the_candidate_part(built) -> None:
    """Every string of every bank (and each sentence of it) of six words or more is absent from
    every candidate file; no bank file is handed out, nor put in the grader's kit."""
    _, pack = built
    candidate = _read(pack.candidate)
    assert candidate and not [p for p in candidate if p.endswith("interview.toml")]
    assert not [p for p in _read(pack.instructor) if p.endswith("interview.toml")]
    text = folded("\n".join(candidate.values()))
    leaked = {name: [p for p in phrases(_bank(name)) if p in text] for name in reference_names(builtin_root())}
    assert not {name: found for name, found in leaked.items() if found}
