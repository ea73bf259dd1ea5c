"""Every built-in problem has an interview bank that covers its code, and the notes read from it.

Fast: the banks are parsed and the notes rendered from exercises made here from real mutants; no
test runs. tests/exercises/test_interview_notes.py checks the same in a built pack.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.pack.notes import notes, roles
from bugsmith.harness.exercises.pack.statement import hints
from bugsmith.harness.exercises.records import Difficulty, Exercise, ExerciseError, Symptom
from bugsmith.harness.exercises.sources.catalogue import load_problems, reference_names
from bugsmith.harness.exercises.sources.interview_bank import MIN_FOLLOW_UPS, InterviewBank, bank_path, load_bank
from bugsmith.harness.exercises.sources.layout import candidate_tree, grader_kit
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants, mutants_of_source
from bugsmith.mutators.mutant import Mutant
from tests.exercises.bank_leaks import folded, phrases
from tests.exercises.userproject import make_project

ROOT = builtin_root()
PROBLEMS = reference_names(ROOT)


def _problem(name: str) -> Problem:
    return load_problems(ROOT)[name]


def _bank(name: str) -> InterviewBank:
    bank = load_bank(_problem(name))
    assert bank is not None, f"{name} has no interview bank at {bank_path(_problem(name))}"
    return bank


@functools.cache
def _all_mutants(name: str) -> tuple[Mutant, ...]:
    """Every mutant of a built-in problem's code (cached: libcst takes seconds over extra trees)."""
    problem = _problem(name)
    files = [problem.root / f for f in problem.code if f.endswith(".py")]
    return enumerate_mutants(files, root=problem.root, mutators=registry.select()).mutants


def _mutants(problem: Problem, function: str) -> list[Mutant]:
    if problem.root == ROOT:
        return [m for m in _all_mutants(problem.name) if m.function == function]
    found = []
    for path in problem.code:
        if path.endswith(".py"):
            module = path.removesuffix(".py").replace("/", ".")
            result = mutants_of_source(problem.read(path), file=path, module=module, mutators=registry.select())
            found += [m for m in result.mutants if m.function == function]
    return found


def _defined_functions(problem: Problem) -> set[str]:
    """The qualified name of every function of the problem's code."""
    names: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not isinstance(node, ast.ClassDef):
                    names.add(prefix + node.name)
                visit(node.body, f"{prefix}{node.name}.")

    for path in problem.code:
        if path.endswith(".py"):
            visit(ast.parse(problem.read(path)).body, "")
    return names


@pytest.mark.parametrize("name", PROBLEMS)
def test_every_builtin_problem_has_a_bank_that_covers_its_code(name: str) -> None:
    """The bank parses, has a role and stakes for every function bugs land in (and names no
    function the code lacks), a strong explanation, and at least four follow-ups with answers."""
    problem = _problem(name)
    bank = _bank(name)
    assert bank.path == f"reference/{name}/interview.toml"
    mutated = {m.function for m in _all_mutants(name) if m.function is not None}
    missing = mutated - set(bank.functions)
    assert not missing, f"{bank.path} has no [functions] entry for {sorted(missing)}"
    stale = set(bank.functions) - _defined_functions(problem)
    assert not stale, f"{bank.path} names functions the code does not define: {sorted(stale)}"
    for function, note in bank.functions.items():
        assert note.stakes, function
        assert note.role.endswith(".") and ". " not in note.role, f"{function}: a role is one sentence"
        # The hint reads "the bug is in the code that <role>": its subject is the function.
        assert re.fullmatch(r"[A-Z][a-z]+s", note.role.split()[0]), (function, note.role)
    assert len(bank.follow_ups) >= MIN_FOLLOW_UPS
    assert all("?" in f.question and len(f.answer.split()) >= 20 for f in bank.follow_ups)
    explanation = bank.explanation
    assert all((explanation.mechanism, explanation.symptom, explanation.tests, explanation.fix))


@pytest.mark.parametrize("name", PROBLEMS)
def test_no_bank_sentence_is_in_what_a_candidate_gets(name: str) -> None:
    """The bank is not among the candidate's files, nor the grader's (grading does not need it),
    and none of its sentences is in the statement, the code or the visible tests."""
    problem = _problem(name)
    bank = _bank(name)
    exercise = _exercise(problem, None)
    handed_out = candidate_tree(problem, exercise)
    assert bank.path not in handed_out and not any(p.endswith("interview.toml") for p in handed_out)
    assert not any(p.endswith("interview.toml") for p in grader_kit(problem, exercise))
    text = folded("\n".join(handed_out.values()))
    assert phrases(bank) and not [p for p in phrases(bank) if p in text]


def _exercise(problem: Problem, mutant: Mutant | None) -> Exercise:
    """An exercise of one bug (or none), as the builder would record it (its tests named, not run)."""
    mutants = () if mutant is None else (mutant,)
    sources = {m.file: problem.read(m.file) for m in mutants}
    visible = f"{problem.visible[0]}::test_the_example"
    hidden = f"{problem.hidden[0]}::test_the_edge_case" if problem.hidden else visible
    return Exercise(
        id="exercise-01", instance_id=f"bugsmith__{problem.name}-0", problem=problem.name, mutants=mutants,
        buggy={m.file: m.apply(sources[m.file]) for m in mutants}, reference=sources,
        fail_to_pass=tuple(dict.fromkeys((visible, hidden))), pass_to_pass=(),
        symptoms=(Symptom(test=visible, exception="AssertionError", message="assert 3 == 2\n where 3 = f()"),),
        silent=True, difficulty=Difficulty(score=3, level="easy"), time_limit_minutes=20,
    )


def test_notes_give_the_root_cause_in_the_banks_words_and_the_follow_ups() -> None:
    """A scheduler bug in `_fits`: its job and stakes, the concrete change, the operator's wording
    as a secondary line, the symptom, the strong explanation, every follow-up with its answer."""
    problem = _problem("scheduler")
    bank = _bank("scheduler")
    mutant = _mutants(problem, "Scheduler._fits")[0]
    exercise = _exercise(problem, mutant)
    text = notes(exercise, problem, bank)
    note = bank.functions["Scheduler._fits"]
    assert note.role in text and note.stakes in text
    assert "test_scheduler_visible.py::test_the_example" in text and "assert 3 == 2" in text
    assert mutant.explanation in text and text.index(note.role) < text.index(mutant.explanation)
    for point in (bank.explanation.mechanism, bank.explanation.symptom, bank.explanation.tests, bank.explanation.fix):
        assert point in text
    for follow_up in bank.follow_ups:
        assert follow_up.question in text and follow_up.answer in text
    assert "No interview bank" not in text


def test_hints_go_from_the_kind_of_bug_to_the_banks_job_to_the_function_to_the_line() -> None:
    """With the bank, a hint in the problem's words comes between the family's hint and the
    function's name; without it the hints are as before."""
    problem = _problem("auc")
    mutant = _mutants(problem, "roc_curve")[0]
    exercise = _exercise(problem, mutant)
    plain = hints(exercise)
    worded = hints(exercise, roles(exercise, _bank("auc")))
    role = _bank("auc").functions["roc_curve"].role
    assert worded[0] == plain[0] == mutant.family.info.hint
    assert worded[1] == f"In the problem's terms, the bug is in the code that {role[0].lower()}{role[1:]}"
    assert worded[2:] == plain[1:] and "roc_curve" in worded[2] and f"line {mutant.span.line}" in worded[3]


def test_a_problem_without_a_bank_gets_notes_from_its_docstring_and_is_told_how_to_add_one(tmp_path: Path) -> None:
    """A user's project has no bank: the notes quote the function's docstring and the operator,
    say that no bank exists and where to write one; once written there, it is read."""
    project = make_project(tmp_path / "windowstats")
    problem = load_problems(project)["core"]
    assert load_bank(problem) is None
    mutant = _mutants(problem, "trailing_mean")[0]
    exercise = _exercise(problem, mutant)
    text = notes(exercise, problem, None)
    assert "Mean of each trailing window; None until the window is full." in text
    assert mutant.explanation in text and "No interview bank exists" in text
    assert bank_path(problem) == "docs/core.interview.toml" and bank_path(problem) in text
    assert "Follow-up questions" not in text
    (project / bank_path(problem)).write_text((ROOT / "reference/auc/interview.toml").read_text(), encoding="utf-8")
    bank = load_bank(problem)
    assert bank is not None and bank.path == "docs/core.interview.toml"


def test_a_bank_the_candidate_would_get_or_a_broken_bank_is_a_one_line_error(tmp_path: Path) -> None:
    """A bank among the handed-out files is refused rather than leaked; a bank missing a part
    names what is missing."""
    project = make_project(tmp_path / "windowstats")
    problem = load_problems(project)["core"]
    inside = replace(problem, statement="src/windowstats/core.md",
                     code=(*problem.code, "src/windowstats/core.interview.toml"))
    (project / "src/windowstats/core.interview.toml").write_text((ROOT / "reference/auc/interview.toml").read_text())
    with pytest.raises(ExerciseError, match="handed to candidates"):
        load_bank(inside)
    text = (ROOT / "reference/auc/interview.toml").read_text()
    (project / bank_path(problem)).write_text(text.replace("[explanation]\nmechanism", "[explanation]\nmechanics"))
    with pytest.raises(ExerciseError, match="'mechanism'") as raised:
        load_bank(problem)
    assert "\n" not in str(raised.value)
    cut = text[:text.index("[[follow_up]]")] + "[[follow_up]]\nquestion = \"Why?\"\nanswer = \"Because.\"\n"
    (project / bank_path(problem)).write_text(cut)
    with pytest.raises(ExerciseError, match="at least 4"):
        load_bank(problem)


def test_a_corpus_problem_without_a_bank_still_gets_notes(tmp_path: Path) -> None:
    """A new corpus problem whose folder has no interview.toml yet (the auc problem read from a
    root without its bank): no bank, notes from the docstring, and the path to add one."""
    problem = replace(_problem("auc"), root=tmp_path)
    assert load_bank(problem) is None
    mutant = _mutants(_problem("auc"), "roc_curve")[0]
    exercise = _exercise(_problem("auc"), mutant)
    text = notes(exercise, problem, None)
    assert "Return `(fpr, tpr, thresholds)`, one point per distinct score" in text
    assert "No interview bank exists for problem `auc`" in text and "`reference/auc/interview.toml`" in text
    assert hints(exercise, roles(exercise, None)) == hints(exercise)
