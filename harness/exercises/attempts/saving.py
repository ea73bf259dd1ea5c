"""Save a graded attempt as one JSON file, written whole or not at all.

The file is the grade as `bugsmith grade --json` prints it, plus an `attempt` object: the pack's
identity (the digest of its instructor manifest, and a name), the exercise's label as the pack
states it (level, score, time limit), when it was graded (UTC), the candidate's name and the
hints the interviewer gave, when given, and a digest of the submitted files.

The attempt's id, and so its file name, is a digest of the pack, the exercise, the candidate and
the submitted files: grading the same folder again, or saving the same attempt twice, rewrites
one file, and two different attempts cannot share a name. Hints are not part of it, so a
corrected count replaces the first save. Two unnamed candidates can hand in the same files (a
one-line fix often is), so without `--candidate` the folder graded is part of the id too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.attempts.records import Attempt, AttemptError, Label, PackIdentity
from bugsmith.harness.exercises.pack.pack import instructor_folder, load_exercise
from bugsmith.harness.exercises.records import Exercise

# Written by running the tests, not by the candidate: a re-run must not make a new attempt.
CACHE_FOLDERS = frozenset({"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"})


@dataclass(frozen=True, slots=True, kw_only=True)
class SaveOptions:
    """Where `grade --save-attempt` keeps the attempt, and what the interviewer adds to it."""

    folder: Path
    candidate: str | None = None
    hints_given: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SavedAttempt:
    path: Path
    attempt: Attempt
    replaced: bool  # the same attempt had been saved before: its file was rewritten


def save_options(folder: Path | None, candidate: str | None, hints_given: int | None) -> SaveOptions | None:
    """The options checked before grading starts (a grading takes minutes): None when nothing is saved."""
    if folder is None:
        if candidate is not None or hints_given is not None:
            raise AttemptError("--candidate and --hints-given describe a saved attempt: add --save-attempt DIR")
        return None
    if folder.exists() and not folder.is_dir():
        raise AttemptError(f"{folder}: not a folder (--save-attempt DIR)")
    if candidate is not None and not candidate.strip():
        raise AttemptError("--candidate is empty")
    if hints_given is not None and hints_given < 0:
        raise AttemptError("--hints-given must be 0 or more")
    return SaveOptions(folder=folder, candidate=candidate.strip() if candidate else None, hints_given=hints_given)


def save_graded(grade: Mapping[str, Any], options: SaveOptions, *, pack: Path, exercise_id: str,
                submission: Path, now: datetime | None = None) -> SavedAttempt:
    """Save `grade` (the grade's JSON) of `submission` on `exercise_id` of `pack` in `options.folder`."""
    identity, exercise = describe(pack, exercise_id)
    attempt = new_attempt(
        grade, pack=identity, exercise_id=exercise_id, problem=exercise.problem, label=label_of(exercise),
        submission_sha256=submission_digest(submission), candidate=options.candidate,
        hints_given=options.hints_given, origin=None if options.candidate else str(submission.resolve()),
        graded_at=now,
    )
    return save_attempt(options.folder, attempt)


def new_attempt(grade: Mapping[str, Any], *, pack: PackIdentity, exercise_id: str, problem: str, label: Label,
                submission_sha256: str, candidate: str | None = None, hints_given: int | None = None,
                origin: str | None = None, graded_at: datetime | None = None) -> Attempt:
    """The attempt record of a grade; `origin` (where an unnamed candidate's folder was) joins its id."""
    if grade.get("exercise_id", exercise_id) != exercise_id:
        raise AttemptError(f"the grade is of {grade.get('exercise_id')!r}, not {exercise_id!r}")
    # Through JSON once, so the record holds what its file will hold, and reads back equal.
    plain = json.loads(json.dumps(dict(grade)))
    plain.pop("attempt", None)
    identity = {"pack": pack.manifest_sha256, "exercise_id": exercise_id, "candidate": candidate,
                "submission_sha256": submission_sha256, "origin": origin}
    when = (graded_at or datetime.now(UTC)).astimezone(UTC)
    return Attempt(id=_digest(json.dumps(identity, sort_keys=True).encode()), pack=pack, exercise_id=exercise_id,
                   problem=problem, label=label, graded_at=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   submission_sha256=submission_sha256, candidate=candidate, hints_given=hints_given, grade=plain)


def save_attempt(folder: Path, attempt: Attempt) -> SavedAttempt:
    """Write `attempt` into `folder` (made if missing) through a temporary file renamed into place."""
    target = folder / attempt_file_name(attempt)
    text = json.dumps(attempt.to_document(), indent=2, sort_keys=True) + "\n"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        replaced = target.exists()
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".attempt-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise AttemptError(f"{folder}: cannot save the attempt: {error.strerror or error}") from None
    return SavedAttempt(path=target, attempt=attempt, replaced=replaced)


def attempt_file_name(attempt: Attempt) -> str:
    """The exercise, for a person browsing the folder, then the whole id: names differ when attempts do."""
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', attempt.exercise_id)}-{attempt.id}.json"


def describe(pack: Path, exercise_id: str) -> tuple[PackIdentity, Exercise]:
    """The pack's identity and the exercise's record, from its instructor part (a tree or a zip)."""
    with tempfile.TemporaryDirectory(prefix="bugsmith-attempt-") as scratch:
        instructor = instructor_folder(pack, Path(scratch))
        manifest = (instructor / "manifest.json").read_bytes()
        exercise = load_exercise(instructor, exercise_id)
    return PackIdentity(name=pack_name(pack), manifest_sha256=_digest(manifest)), exercise


def pack_name(pack: Path) -> str:
    """`interview` for interview/, interview/instructor/ or interview-instructor.zip."""
    path = pack.resolve()
    if path.is_file():
        return path.stem.removesuffix("-instructor") or path.stem
    if path.name == "instructor" and (path / "manifest.json").is_file():
        return path.parent.name or path.name
    return path.name or str(path)


def label_of(exercise: Exercise) -> Label:
    return Label(level=exercise.difficulty.level, score=exercise.difficulty.score,
                 time_limit_minutes=exercise.time_limit_minutes)


def submission_digest(folder: Path) -> str:
    """A digest of every regular file under `folder` (names and bytes), never through a link."""
    digest = hashlib.sha256()
    for here, folders, files in os.walk(folder):  # does not follow links to folders
        folders[:] = sorted(f for f in folders if f not in CACHE_FOLDERS)
        for name in sorted(files):
            path = Path(here, name)
            try:
                if not stat.S_ISREG(path.lstat().st_mode):
                    continue
                with path.open("rb") as file:
                    content = hashlib.file_digest(file, "sha256").hexdigest()
            except OSError:
                content = "unreadable"
            digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
