"""A real pack from the auc problem: validated, revealing nothing, gradable, reproducible."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import pytest

from bugsmith.harness.exercises import build_exercises
from bugsmith.harness.exercises.judge.grading import _fix_kind, grade
from bugsmith.harness.exercises.pack.archive import extract_pack
from bugsmith.harness.exercises.pack.instances import schema
from bugsmith.harness.exercises.pack.pack import export, instructor_folder, load_exercise
from bugsmith.harness.exercises.pack.statement import reverse_patch
from bugsmith.harness.exercises.records import is_hidden_test
from bugsmith.harness.exercises.sources.handout_names import corpus_names, pack_names
from tests.exercises.fail_to_pass import check_fail_to_pass
from tests.exercises.leaks import revealed
from tests.grading.submissions import requires_bwrap

pytestmark = pytest.mark.slow  # every test needs the session's pack, built by real runs


@pytest.fixture(scope="module")
def unpacked(pack, tmp_path_factory):
    folder = tmp_path_factory.mktemp("unpacked")
    extract_pack(pack.candidate, folder)
    extract_pack(pack.instructor, folder)
    return folder


def _kit_with(instructor, exercise, code, work):
    """The grader's test kit, the code as handed out (under the project's names, as grading reads
    it back), and `code` over it, in `work`."""
    shutil.copytree(instructor / exercise.id / "tests", work)
    handout = instructor / exercise.id / "handout"
    handed = {p.relative_to(handout).as_posix(): p.read_text() for p in handout.rglob("*") if p.is_file()}
    for path, text in {**pack_names(instructor / exercise.id, exercise.problem).project_files(handed), **code}.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    return work


def test_every_fail_to_pass_test_fails_on_the_bug_and_passes_on_the_reference(exercises, unpacked, tmp_path,
                                                                             monkeypatch):
    """Re-checked outside the harness with plain pytest (the first exercise: by the grading test)."""
    monkeypatch.setenv("BUGSMITH_MUTANT_RUN", "1")  # no shrinking: a failure is all this needs
    instructor = unpacked / "instructor"
    runs = []
    for exercise in exercises:
        assert exercise.fail_to_pass and any(not is_hidden_test(t) for t in exercise.fail_to_pass)
    for exercise in exercises[1:]:
        for label, code in (("bug", exercise.buggy), ("original", exercise.reference)):
            work = _kit_with(instructor, exercise, code, tmp_path / f"{exercise.id}-{label}")
            runs.append((exercise, label, work))
    check_fail_to_pass(runs, 300)


def test_the_candidate_archive_reveals_nothing_about_the_bug(exercises, pack):
    """No mutant id, operator, family label, hint, explanation or held-back test, in names or content."""
    assert revealed(exercises, pack.candidate, is_hidden_test) == []


def test_the_candidate_gets_the_buggy_code_and_the_instructor_gets_the_key(exercises, unpacked):
    """The handed-out file is the buggy one, in the package named for the problem; the instructor
    part holds the solution (a patch of the candidate's folder) and the held-back tests."""
    for exercise in exercises:
        names = corpus_names(exercise.problem)
        for path, text in exercise.buggy.items():
            assert (unpacked / "candidate" / exercise.id / names.path(path)).read_text() == text
        assert not (unpacked / "candidate" / exercise.id / "reference").exists()
        folder = unpacked / "instructor" / exercise.id
        assert (folder / "solution.patch").read_text().startswith("--- a/auc/auc.py\n+++ b/auc/auc.py\n")
        assert list((folder / "tests").rglob("test_*_hidden.py"))
        assert load_exercise(unpacked / "instructor", exercise.id) == exercise


def test_exercises_jsonl_matches_its_schema(exercises, unpacked):
    """One SWE-bench-style instance per exercise, each valid against the shipped schema."""
    lines = (unpacked / "instructor" / "exercises.jsonl").read_text().splitlines()
    assert len(lines) == len(exercises)
    for line, exercise in zip(lines, exercises):
        data = json.loads(line)
        jsonschema.validate(data, schema())
        assert data["instance_id"] == exercise.instance_id
        assert data["FAIL_TO_PASS"] == list(exercise.fail_to_pass)


@requires_bwrap
def test_grading_passes_the_reference_and_fails_the_untouched_code(exercises, pack, unpacked, tmp_path,
                                                                   monkeypatch):
    """The key property of a grader: the real fix passes, the handout as given does not."""
    # The corpus's conftest skips shrinking failing examples under this variable: a failure
    # is all this test needs, and shrinking costs seconds per test.
    monkeypatch.setenv("BUGSMITH_MUTANT_RUN", "1")
    exercise = exercises[0]
    untouched = unpacked / "candidate" / exercise.id
    fixed = tmp_path / "fixed"
    shutil.copytree(untouched, fixed)
    for path, text in exercise.reference.items():
        (fixed / corpus_names(exercise.problem).path(path)).write_text(text, encoding="utf-8")
    with ThreadPoolExecutor(2) as pool:
        bad, good = pool.map(lambda folder: grade(pack.instructor, exercise.id, folder, timeout=300),
                             [untouched, fixed])
    assert good.passed and good.fix == "reference" and good.restores_reference
    assert {t.id for t in good.tests} == {*exercise.fail_to_pass, *exercise.pass_to_pass}
    assert good.diff_lines == len([line for line in reverse_patch(exercise).splitlines()
                                   if line[:1] in "+-" and line[:3] not in ("+++", "---")])
    assert not bad.passed and bad.fix == "none" and bad.diff_lines == 0
    failed = {t.id for t in bad.tests if t.outcome != "passed"}
    assert failed == set(exercise.fail_to_pass)


def test_the_same_seed_gives_byte_identical_packs(exercises, options, pack, root, tmp_path):
    """Rebuilt from scratch with the same options and seed, both archives are the same bytes."""
    rebuilt = build_exercises(options, root=root, jobs=2)
    again = export(rebuilt, tmp_path / "pack.zip", root=root, options=options)
    assert again.candidate.read_bytes() == pack.candidate.read_bytes()
    assert again.instructor.read_bytes() == pack.instructor.read_bytes()


def test_instructor_part_is_found_as_zip_tree_or_parent(pack, unpacked, tmp_path):
    """`grade` accepts the instructor zip, its tree, or the folder holding both trees."""
    assert instructor_folder(pack.instructor, tmp_path / "x") == (tmp_path / "x" / "instructor").resolve()
    assert instructor_folder(unpacked, tmp_path) == unpacked / "instructor"
    assert instructor_folder(unpacked / "instructor", tmp_path) == unpacked / "instructor"


@requires_bwrap
def test_a_submission_that_hangs_is_killed_at_the_time_limit(exercises, pack, unpacked, tmp_path):
    """Untrusted code that never returns costs the grader its time limit, not its life."""
    exercise = exercises[0]
    hanging = tmp_path / "hanging"
    shutil.copytree(unpacked / "candidate" / exercise.id, hanging)
    path = next(iter(exercise.buggy))
    (hanging / corpus_names(exercise.problem).path(path)).write_text(exercise.buggy[path] + "\nwhile True:  # never finishes importing\n    pass\n")
    result = grade(pack.instructor, exercise.id, hanging, timeout=3)
    assert result.timed_out and not result.passed and result.fix == "none"


def test_fix_kind_ignores_formatting_but_sees_other_code(exercises):
    """Same code modulo comments is the reference fix; passing code that differs is another valid fix."""
    exercise = exercises[0]
    path, text = next(iter(exercise.reference.items()))
    assert _fix_kind({path: text + "\n# fixed\n"}, exercise, passed=True) == "reference"
    assert _fix_kind({path: text + "\n_unused = 1\n"}, exercise, passed=True) == "different"
    assert _fix_kind({path: exercise.buggy[path]}, exercise, passed=False) == "none"
