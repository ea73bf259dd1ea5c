"""Challenge packs: a candidate part that reveals nothing, and an instructor part with the key.

candidate/                      instructor/
  README.md                       README.md, manifest.json, answer-key.md, exercises.jsonl
  exercise-01/                    exercise-01/
    README.md (statement)           exercise.json (the record), solution.md, solution.patch,
    pytest.ini, conftest.py         hints.md, notes.md (the interviewer's notes, from the
    <problem>/...                     problem's interview bank), tests/ (every test and helper,
      (buggy code, visible tests)     for the grader), handout/ (the buggy code as handed out)

A built-in problem is handed out as the package `<problem>/` (`from <problem> import ...`), not
as the project's `reference/<problem>/` (`handout_names`). What the interviewer reads or applies
to a candidate's folder (answer-key.md, solution.md, solution.patch, hints.md, notes.md, and
handout/) names files as that folder does; the records and what the grader reads
(exercise.json, exercises.jsonl, tests/) keep the project's paths, and grading maps a submission
back to them. A problem from a user's project keeps the project's paths everywhere (e.g.
`src/mylib/...`, `tests/...` and the pytest configuration), and its instructor folder adds
`layout.json`: the code files, the test files to run and the held-back ones, so that the grader
needs nothing but the pack.

`--out DIR` writes the two trees `DIR/candidate` and `DIR/instructor`; `--out NAME.zip`
writes `NAME-candidate.zip` and `NAME-instructor.zip`. Both are byte-reproducible.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.pack.archive import extract_pack, write_tree, write_zip
from bugsmith.harness.exercises.pack.attempt import attempt_files
from bugsmith.harness.exercises.pack.instances import jsonl
from bugsmith.harness.exercises.pack.notes import notes, roles
from bugsmith.harness.exercises.pack.statement import hints, render, reverse_patch, solution, statement
from bugsmith.harness.exercises.records import Exercise, ExerciseError, ExerciseOptions
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.harness.exercises.sources.handout_names import handout_names
from bugsmith.harness.exercises.sources.interview_bank import InterviewBank, bank_path, load_bank
from bugsmith.harness.exercises.sources.layout import candidate_tree, grader_kit, handout_code
from bugsmith.harness.exercises.sources.problems import REFERENCE, Problem

FORMAT = "bugsmith-pack/1"
RECORDS = "exercises.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class PackPaths:
    candidate: Path
    instructor: Path


def candidate_files(exercises: Sequence[Exercise], root: Path) -> dict[str, str]:
    """Every file of the candidate part, by path inside it."""
    problems = _problems(exercises, root)
    files = {"README.md": render("pack_readme.md.j2", exercises=exercises)}
    for exercise in exercises:
        problem = problems[exercise.problem]
        tree = candidate_tree(problem, exercise)
        tree.update(attempt_files(problem, exercise, tree))  # the record of the candidate's test runs
        for path, text in tree.items():
            files[f"{exercise.id}/{path}"] = text
        text = statement(exercise, problem, handout_names(problem))
        # Last: the statement is the folder's README, whatever file a project has there.
        files[f"{exercise.id}/README.md"] = render("candidate_readme.md.j2", statement=text,
                                                   requirements=problem.requirements)
    return files


def _problems(exercises: Sequence[Exercise], root: Path) -> dict[str, Problem]:
    problems = load_problems(root)
    missing = sorted({e.problem for e in exercises} - set(problems))
    if missing:
        raise ExerciseError(f"{root} has no problem {missing[0]!r}: export from the project the"
                            " exercises were built from")
    for exercise in exercises:  # saved exercises are patches of the code as it was then
        if exercise.variant:  # a variant's reference is a rewrite, checked when it was made
            continue
        problem = problems[exercise.problem]
        changed = sorted(f for f, text in exercise.reference.items()
                         if f not in problem.code or problem.read(f) != text)
        if changed:
            raise ExerciseError(f"{changed[0]} changed since {exercise.id} was built;"
                                " build the exercises again")
    return problems


def instructor_files(exercises: Sequence[Exercise], root: Path, candidate: dict[str, str],
                     options: ExerciseOptions | None = None) -> dict[str, str]:
    """Every file of the instructor part: records, solutions, hints, notes, the grader's tests."""
    problems = _problems(exercises, root)
    banks = {name: load_bank(problems[name]) for name in sorted({e.problem for e in exercises})}
    names = {name: handout_names(problem) for name, problem in problems.items()}
    files = {
        "README.md": _INSTRUCTOR_README + _notes_readme(problems, banks),
        "manifest.json": _json(_manifest(exercises, candidate, options)),
        "answer-key.md": render("answer_key.md.j2", exercises=exercises, names=names),
        "exercises.jsonl": jsonl(exercises, root),
    }
    for exercise in exercises:
        prefix = exercise.id
        problem = problems[exercise.problem]
        bank = banks[exercise.problem]
        jobs = roles(exercise, bank)
        shown = names[exercise.problem]
        files[f"{prefix}/exercise.json"] = _json(exercise.to_dict())
        if problem.source != REFERENCE:  # a corpus pack's layout is implied by its problem's name
            files[f"{prefix}/layout.json"] = _json(problem.layout())
        files[f"{prefix}/solution.md"] = solution(exercise, jobs, shown)
        files[f"{prefix}/notes.md"] = notes(exercise, problem, bank)
        files[f"{prefix}/solution.patch"] = reverse_patch(exercise, shown)
        files[f"{prefix}/hints.md"] = "".join(f"{i}. {h}\n" for i, h in enumerate(hints(exercise, jobs, shown), 1))
        for path, text in grader_kit(problem, exercise).items():
            files[f"{prefix}/tests/{path}"] = text
        for path, text in handout_code(problem, exercise).items():
            files[f"{prefix}/handout/{path}"] = text
    return files


def _notes_readme(problems: dict[str, Problem], banks: dict[str, InterviewBank | None]) -> str:
    """The instructor README's part on the interviewer's notes: which problems have a bank."""
    lines = ["", "## After the fix: `exercise-NN/notes.md`", "",
             "The interview goes: the candidate runs the tests, fixes the bug minimally, then explains it.",
             "Each exercise's `notes.md` has the symptom they saw, the root cause in the problem's terms,",
             "why such a bug matters in production, what a strong explanation contains, and follow-up",
             "questions with what a strong answer holds. They come from each problem's interview bank:", ""]
    for name, bank in banks.items():
        where = f"`{bank.path}`" if bank else f"none yet (notes from the code alone; add `{bank_path(problems[name])}`)"
        lines.append(f"- {name}: {where}")
    return "\n".join(lines) + "\n"


def _manifest(exercises: Sequence[Exercise], candidate: dict[str, str],
              options: ExerciseOptions | None) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "options": asdict(options) if options else None,
        "exercises": [
            {"id": e.id, "instance_id": e.instance_id, "problem": e.problem,
             "mutants": [m.id for m in e.mutants], "family": list(e.families),
             "operator": list(e.operators), "silent": e.silent, "difficulty": e.difficulty.score,
             "time_limit_minutes": e.time_limit_minutes}
            for e in exercises
        ],
        # Lets an instructor check that a handed-out pack was not altered.
        "candidate_sha256": {name: hashlib.sha256(text.encode()).hexdigest()
                             for name, text in sorted(candidate.items())},
    }


def export(exercises: Sequence[Exercise], out: Path, *, root: Path,
           options: ExerciseOptions | None = None) -> PackPaths:
    """Write the candidate and instructor parts as trees (`out` a folder) or zips (`out` *.zip)."""
    if not exercises:
        raise ExerciseError("no exercises to export")
    candidate = candidate_files(exercises, root)
    instructor = instructor_files(exercises, root, candidate, options)
    if out.suffix == ".zip":
        stem = out.with_suffix("")
        return PackPaths(
            candidate=write_zip(stem.with_name(f"{stem.name}-candidate.zip"),
                                _prefixed("candidate", candidate)),
            instructor=write_zip(stem.with_name(f"{stem.name}-instructor.zip"),
                                 _prefixed("instructor", instructor)),
        )
    return PackPaths(candidate=write_tree(out / "candidate", candidate),
                     instructor=write_tree(out / "instructor", instructor))


def _prefixed(folder: str, files: dict[str, str]) -> dict[str, str]:
    # One top folder per archive, so that unzipping never spills into the current folder.
    return {f"{folder}/{name}": text for name, text in files.items()}


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def save_exercises(exercises: Sequence[Exercise], out: Path, *, root: Path,
                   options: ExerciseOptions | None = None) -> list[Path]:
    """`bugsmith exercises` output: the records (to export later) and the JSONL instances."""
    out.mkdir(parents=True, exist_ok=True)
    records = out / RECORDS
    records.write_text(_json({"format": FORMAT, "options": asdict(options) if options else None,
                              "exercises": [e.to_dict() for e in exercises]}), encoding="utf-8")
    instances = out / "exercises.jsonl"
    instances.write_text(jsonl(exercises, root), encoding="utf-8")
    return [records, instances]


def load_exercises(path: Path) -> tuple[Exercise, ...]:
    """Exercises saved by `save_exercises` (a file, or the folder holding exercises.json)."""
    file = path / RECORDS if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        return tuple(Exercise.from_dict(e) for e in data["exercises"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ExerciseError(f"{file}: not a saved exercise set: {error}") from None


def instructor_folder(pack: Path, workdir: Path) -> Path:
    """The instructor part of a pack given as a zip, its tree, or the folder holding both trees."""
    if pack.is_file():
        pack = extract_pack(pack, workdir)
    for folder in (pack, pack / "instructor"):
        if (folder / "manifest.json").is_file():
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            if manifest.get("format") != FORMAT:
                raise ExerciseError(f"{folder}: not a {FORMAT} instructor pack")
            return folder
    raise ExerciseError(f"{pack}: no instructor part (manifest.json) found")


def load_exercise(instructor: Path, exercise_id: str) -> Exercise:
    record = instructor / exercise_id / "exercise.json"
    if "/" in exercise_id or exercise_id.startswith(".") or not record.is_file():
        raise ExerciseError(f"no exercise {exercise_id!r} in the pack")
    return Exercise.from_dict(json.loads(record.read_text(encoding="utf-8")))


_INSTRUCTOR_README = """\
# Instructor part of a bugsmith challenge pack

Keep this part to yourself; hand out only the candidate part.

- `answer-key.md`: every exercise's bug, family, difficulty and failing tests at a glance.
- `exercise-NN/solution.md` and `solution.patch`: the explanation and the fix.
- `exercise-NN/hints.md`: hints to give in order, the vaguest first.
- `exercise-NN/handout/`: the code as the candidate received it.
- `exercise-NN/tests/`: every test, the held-back ones included, used by the grader.
- `exercises.jsonl`: the same exercises as SWE-bench-style task instances.

Paths: a built-in problem's code is handed out as `<problem>/...` (`from <problem> import ...`),
while the project it was built from keeps it in `reference/<problem>/...`. What you read or apply
to a candidate's folder (answer-key.md, solution.md, solution.patch, hints.md, notes.md,
handout/) names files as the candidate's folder does: `git apply solution.patch` works in it.
What the grader reads (exercise.json, exercises.jsonl, tests/) keeps the project's paths, and
grading maps a submission back to them.

Grade a candidate's folder with

    bugsmith grade PACK exercise-NN SUBMISSION_DIR

where PACK is this folder or its zip and SUBMISSION_DIR is the candidate's exercise folder.
The submission's code runs in a bubblewrap sandbox (`apt-get install bubblewrap`).
"""
