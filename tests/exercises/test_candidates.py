"""One pack per candidate: one exercise per problem, on validated variants that do not diff to the bug."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from bugsmith.harness.exercises.assemble.variants import _run_suite
from bugsmith.harness.exercises.judge.grading import grade
from bugsmith.harness.exercises.pack.archive import extract_pack
from bugsmith.harness.exercises.pack.candidates import candidate_sets, export_candidates
from bugsmith.harness.exercises.records import Difficulty, Exercise, ExerciseError, is_hidden_test
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.harness.exercises.sources.handout_names import corpus_names
from bugsmith.harness.exercises.sources.layout import code_files
from bugsmith.mutators.family import Family
from bugsmith.mutators.mutant import Mutant, Span
from tests.exercises.diffs import DiffShape, diff_shape
from tests.exercises.leaks import revealed


def _exercise(problem: str, bug: str) -> Exercise:
    mutant = Mutant(id=bug, operator="op", family=Family.CLASSIC, file="f.py", module="f", function="g", scope="g",
                    span=Span(line=1, column=0, end_line=1, end_column=1), original="a", mutated="b",
                    explanation="", diff="")
    return Exercise(id="", instance_id=f"{problem}-{bug}", problem=problem, mutants=(mutant,), buggy={}, reference={},
                    fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                    difficulty=Difficulty(score=1, level="easy"), time_limit_minutes=5)


def test_each_candidate_gets_one_exercise_of_every_problem_and_no_two_share_a_bug():
    built = [_exercise("auc", "a1"), _exercise("auc", "a2"), _exercise("scheduler", "s1"),
             _exercise("scheduler", "s2"), _exercise("auc", "a3")]
    sets = candidate_sets(built, 2)
    assert [[e.instance_id for e in chosen] for chosen in sets] == [["auc-a1", "scheduler-s1"],
                                                                      ["auc-a2", "scheduler-s2"]]


def test_too_few_exercises_of_a_problem_names_the_problem():
    with pytest.raises(ExerciseError, match="scheduler: 1 exercises for 2 candidates"):
        candidate_sets([_exercise("auc", "a1"), _exercise("auc", "a2"), _exercise("scheduler", "s1")], 2)
    with pytest.raises(ExerciseError, match="same bug"):
        candidate_sets([_exercise("auc", "a1"), _exercise("auc", "a1")], 2)


def test_the_diff_shape_sees_a_lone_bug_line_and_a_disguised_one():
    """The measure itself: one changed line gives the bug away; many changes around it do not."""
    reference = {"m.py": "".join(f"x{i} = {i}\n" for i in range(40))}
    lone = {"m.py": reference["m.py"].replace("x20 = 20", "x20 = 21")}
    assert diff_shape(reference, lone, {"m.py": {21}}) == DiffShape(changed=2, hunks=1, bug_alone=True)
    disguised = {"m.py": "".join(f"y{i} = {i + (i == 20)}\n" for i in range(40))}
    shape = diff_shape(reference, disguised, {"m.py": {21}})
    assert shape.changed == 80 and not shape.bug_alone and not shape.gives_away


class _Memo:
    """The real suite runner, remembered by the files it ran on: a second export of the same
    seed runs nothing (it must ask for exactly the same runs)."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[bool, dict[str, str]]] = {}
        self.replaying = False

    def __call__(self, folder: Path, tests, seconds):
        digest = hashlib.sha256()
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        digest.update(json.dumps(list(tests)).encode())
        key = digest.hexdigest()
        if key not in self.seen:
            assert not self.replaying, "the same seed asked for a run the first export did not make"
            self.seen[key] = _run_suite(folder, tests, seconds)
        return self.seen[key]


@pytest.fixture(scope="module")
def memo() -> _Memo:
    return _Memo()


@pytest.fixture(scope="module")
def candidate_packs(exercises, options, root, memo, tmp_path_factory):
    return export_candidates(exercises, tmp_path_factory.mktemp("candidates") / "pack.zip", root=root,
                             candidates=2, seed=options.seed, options=options, run=memo)


def _records(instructor_zip: Path) -> list[Exercise]:
    with zipfile.ZipFile(instructor_zip) as archive:
        return [Exercise.from_dict(json.loads(archive.read(name)))
                for name in sorted(archive.namelist()) if name.endswith("/exercise.json")]


def _handout(candidate_zip: Path, exercise: Exercise) -> dict[str, str]:
    """The handed-out code files the exercise changed, under the project's names."""
    prefix = f"candidate/{exercise.id}/"
    names = corpus_names(exercise.problem)
    with zipfile.ZipFile(candidate_zip) as archive:
        found = {names.project_path(name[len(prefix):]): archive.read(name).decode()
                 for name in archive.namelist() if name.startswith(prefix)}
    return {path: text for path, text in found.items() if path in exercise.reference | exercise.variant}


def _bug_lines(exercise: Exercise) -> dict[str, set[int]]:
    lines: dict[str, set[int]] = {}
    for m in exercise.mutants:
        lines.setdefault(m.file, set()).update(range(m.span.line, m.span.line + max(1, m.mutated.count("\n") + 1)))
    return lines


@pytest.mark.slow  # builds exercises and runs every suite on every variant
def test_each_candidate_archive_holds_one_exercise_per_problem_on_a_validated_variant(exercises, candidate_packs):
    assert [p.candidate.name for p in candidate_packs] == ["pack-01-candidate.zip", "pack-02-candidate.zip"]
    originals = {e.instance_id: e for e in exercises}
    bugs = []
    for pack in candidate_packs:
        records = _records(pack.instructor)
        assert [r.id for r in records] == ["exercise-01"] and len({r.problem for r in records}) == len(records)
        for record in records:
            original = originals[record.instance_id]
            assert record.variant and record.fail_to_pass == original.fail_to_pass
            assert record.operators == original.operators and len(record.mutants) == len(original.mutants)
            for mutant, file in ((m, m.file) for m in record.mutants):  # still one operator's edit
                assert mutant.apply(record.reference[file]) == record.buggy[file]
            bugs.append(record.instance_id)
    assert len(set(bugs)) == len(bugs)


@pytest.mark.slow
def test_candidate_archives_reveal_nothing(candidate_packs):
    """The leak rules of every pack hold for each candidate's archive too."""
    for pack in candidate_packs:
        assert revealed(_records(pack.instructor), pack.candidate, is_hidden_test) == []


@pytest.mark.slow
def test_no_handout_diffs_to_its_bug_alone(candidate_packs, root):
    """Against the reference source, and against another candidate's handout of the same problem."""
    problems = load_problems(root)
    handouts = []
    for pack in candidate_packs:
        (record,) = _records(pack.instructor)
        handout = _handout(pack.candidate, record)
        reference = {f: t for f, t in code_files(problems[record.problem]).items() if f in handout}
        shape = diff_shape(reference, handout, _bug_lines(record))
        assert not shape.gives_away, shape
        handouts.append((record, handout))
    (first, one), (second, other) = handouts
    assert first.problem == second.problem
    for record, before, after in ((second, one, other), (first, other, one)):
        shape = diff_shape(before, after, _bug_lines(record))
        assert not shape.gives_away, shape


@pytest.mark.slow
def test_the_same_seed_gives_byte_identical_candidate_archives(exercises, options, root, candidate_packs, memo,
                                                               tmp_path):
    memo.replaying = True
    again = export_candidates(exercises, tmp_path / "pack.zip", root=root, candidates=2, seed=options.seed,
                              options=options, run=memo)
    for first, second in zip(candidate_packs, again, strict=True):
        assert first.candidate.read_bytes() == second.candidate.read_bytes()
        assert first.instructor.read_bytes() == second.instructor.read_bytes()


@pytest.mark.slow
def test_a_variant_pack_grades_its_own_fix_as_passing_and_the_handout_as_failing(candidate_packs, tmp_path,
                                                                              monkeypatch):
    """The grader reads a variant pack as any other: the variant's reference is the fix."""
    monkeypatch.setenv("BUGSMITH_MUTANT_RUN", "1")  # no shrinking: a failure is all this needs
    pack = candidate_packs[0]
    (record,) = _records(pack.instructor)
    extract_pack(pack.candidate, tmp_path)
    untouched = tmp_path / "candidate" / record.id
    fixed = tmp_path / "fixed"
    shutil.copytree(untouched, fixed)
    for path, text in record.reference.items():
        (fixed / corpus_names(record.problem).path(path)).write_text(text, encoding="utf-8")
    good = grade(pack.instructor, record.id, fixed, timeout=600, sandbox=False)
    bad = grade(pack.instructor, record.id, untouched, timeout=600, sandbox=False)
    assert good.passed and good.fix == "reference"
    assert not bad.passed and {t.id for t in bad.tests if t.outcome != "passed"} == set(record.fail_to_pass)
