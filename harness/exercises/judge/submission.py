"""Read a submission's code safely, and recognise a submission made for another exercise.

A submission is a folder the candidate controls. Its code files are read as text, and only
if every component of their path inside it is a real folder or a regular file: a link
anywhere on the way (the package folder linked to an installed reference solution, a file
linked to the instructor's key) is refused, never followed. The text is then written into
the grader's own work folder, so nothing of the submission's tree is ever run in place.

A submission is laid out as it was handed out (`handout_names`: a built-in problem's package
without `reference/`); what is read from it is returned under the project's names, as the
exercise's records and the grader's kit have them.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.records import Exercise, ExerciseError
from bugsmith.harness.exercises.sources.handout_names import KEEP, HandoutNames, pack_names
from bugsmith.harness.exercises.sources.problems import GradingLayout, corpus_layout, is_reference_kit
from bugsmith.harness.exercises.sources.told_code import told_code

MAX_FILE_BYTES = 2 * 2**20


class UnsafeSubmissionError(ExerciseError):
    """The submission's code goes through a link, or is not made of regular files."""


class WrongExerciseError(ExerciseError):
    """The submission was made for another exercise (or another problem) of the pack."""


def submitted_code(submission: Path, exercise: Exercise, layout: GradingLayout | None = None,
                   handout: dict[str, str] | None = None, names: HandoutNames = KEEP) -> dict[str, str]:
    """The submission's code files of the problem (its tests, helpers and extra files are ignored),
    under the project's names; `layout` and `handout` (the code as handed out) are in the project's
    names, the submission in those of `names`.

    In a project's pack, a code file the submission lacks is taken as handed out: only the
    files with the bugs must be there.
    """
    root = submission.resolve()
    layout = layout or corpus_layout(exercise.problem)
    if layout.code is None:
        paths = [p for p in _tree(root, names.path(layout.folder), names) if is_code_path(p, layout, names)]
    else:
        paths = [names.path(p) for p in layout.code]
    code = dict(handout or {}) if layout.code is not None else {}
    for relative in paths:
        text = _read(root, relative)
        if text is not None:
            code[names.project_path(relative)] = names.project_text(relative, text)
    missing = sorted(f for f in exercise.buggy if f not in code or (layout.code is not None
                                                                     and _read(root, names.path(f)) is None))
    if missing:
        raise ExerciseError(f"{submission}: the submission has no {names.path(missing[0])}")
    return code


def is_code_path(relative: str, layout: GradingLayout, names: HandoutNames = KEEP) -> bool:
    """Whether a file of an exercise folder (named as `names` hands it out) is code that
    `submitted_code` reads."""
    relative = names.project_path(relative)
    if layout.code is not None:
        return relative in layout.code
    return (relative.startswith(f"{layout.folder}/") and relative.endswith(".py")
            and "__pycache__" not in relative.split("/") and not is_reference_kit(relative))


def code_scan(layout: GradingLayout, names: HandoutNames = KEEP) -> dict[str, Any] | None:
    """`is_code_path`'s rule for a corpus pack as data, for the recorder in the candidate's
    folder (named as `names` hands it out) to find the same files (None: the layout lists its
    code files)."""
    if layout.code is not None:
        return None
    return {"folder": names.path(layout.folder), "suffix": ".py", "skip_folders": ["__pycache__", "tests"],
            "skip_names": ["conftest.py", "strategies.py"]}


def read_text(submission: Path, relative: str, limit: int = MAX_FILE_BYTES) -> str | None:
    """A file of the submission as text, None if it is absent; UnsafeSubmissionError through a
    link, for a special file, or over `limit` bytes."""
    return _read(submission.resolve(), relative, limit)


def _tree(root: Path, folder: str, names: HandoutNames = KEEP) -> list[str]:
    """Every file under `folder` (relative to `root`, named as `names` hands it out), refusing
    links on the way and inside."""
    if _check_path(root, folder, directory=True) is None:
        return []
    found = []
    for here, folders, files in os.walk(root / folder, followlinks=False):
        for name in [*folders, *files]:
            path = Path(here) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                if name in folders or (name.endswith(".py") and not is_reference_kit(names.project_path(relative))):
                    raise UnsafeSubmissionError(f"refused: {relative} in the submission is a symbolic link;"
                                                " a submission must be plain files inside its folder")
                continue
            if name in files:
                found.append(relative)
        folders[:] = [f for f in folders if f != "__pycache__"]
    return sorted(found)


def _check_path(root: Path, relative: str, *, directory: bool = False) -> Path | None:
    """`root/relative` if every component is a real folder and the last a regular file (or folder).

    None when it does not exist; UnsafeSubmissionError when any component is a link or a
    special file.
    """
    path = root
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts:
        raise UnsafeSubmissionError(f"refused: {relative!r} is not a path inside the submission")
    for i, part in enumerate(parts):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return None
        last = i == len(parts) - 1
        if stat.S_ISLNK(mode):
            raise UnsafeSubmissionError(f"refused: {Path(*parts[:i + 1]).as_posix()} in the submission is a symbolic"
                                        " link; a submission must be plain files inside its folder")
        wanted = stat.S_ISDIR(mode) if (not last or directory) else stat.S_ISREG(mode)
        if not wanted:
            if last and not directory and stat.S_ISDIR(mode):
                return None
            raise UnsafeSubmissionError(f"refused: {Path(*parts[:i + 1]).as_posix()} in the submission is not a"
                                        f" regular {'folder' if not last or directory else 'file'}")
    return path


def _read(root: Path, relative: str, limit: int = MAX_FILE_BYTES) -> str | None:
    path = _check_path(root, relative)
    if path is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise UnsafeSubmissionError(f"refused: {relative} in the submission is over {limit // 2**20} MB")
    return data.decode("utf-8", errors="replace")


def recognise(submission: Path, exercise: Exercise, instructor: Path) -> None:
    """WrongExerciseError if the submission was made for another exercise of the pack.

    Evidence, in order: the candidate folder's README (each exercise's statement is its own,
    and the pack's manifest holds its hash) is another exercise's and not this one's; the
    code lacks this problem's files but has another problem's; the code carries another
    exercise's bug (lines only that exercise's handed-out code has), at a place where this
    exercise has none. Without such evidence nothing is said. Each exercise's files are looked
    for under the names it was handed out with.
    """
    root = submission.resolve()
    others = _exercises(instructor, exercise.id)
    readme = _readme_owner(root, instructor)
    if readme and exercise.id not in readme:
        owner = next((e for e in others if e.id in readme), None)
        if owner is not None:
            raise WrongExerciseError(_wrong(exercise, owner, "its README is that exercise's statement"))
    if readme and exercise.id in readme:
        return
    mine = _handed_out(instructor, exercise)
    if not any(_exists(root, f) for f in mine):
        for other in others:
            theirs = _handed_out(instructor, other)
            if other.problem != exercise.problem and all(_exists(root, f) for f in theirs):
                raise WrongExerciseError(_wrong(exercise, other, f"it has {theirs[0]} and no {mine[0]}"))
        return
    for other in others:
        # A bug where this exercise has one proves nothing: a candidate's attempt at a fix
        # may well be the other exercise's bug.
        if other.problem != exercise.problem or _same_site(exercise, other):
            continue
        names = pack_names(instructor / other.id, other.problem)
        marks = {f: _bug_lines(other, f) - _bug_lines(exercise, f) for f in other.buggy}
        if any(marks.values()) and all(_has_lines(root, names.path(f), lines) for f, lines in marks.items() if lines):
            raise WrongExerciseError(_wrong(exercise, other, "its code carries that exercise's bug"))


def _handed_out(instructor: Path, exercise: Exercise) -> list[str]:
    """The exercise's files with bugs, as its candidate folder names them."""
    names = pack_names(instructor / exercise.id, exercise.problem)
    return [names.path(f) for f in exercise.buggy]


def _same_site(exercise: Exercise, other: Exercise) -> bool:
    """Whether a bug of `other` touches a line that a bug of `exercise` touches."""
    return any(a.file == b.file and a.span.line <= b.span.end_line and b.span.line <= a.span.end_line
               for a in exercise.mutants for b in other.mutants)


def _wrong(exercise: Exercise, other: Exercise, why: str) -> str:
    return (f"this submission is for {other.id} ({other.problem}), not {exercise.id} ({exercise.problem}):"
            f" {why}; grade it as {other.id}")


def _exercises(instructor: Path, skip: str) -> list[Exercise]:
    found = []
    for record in sorted(instructor.glob("*/exercise.json")):
        if record.parent.name != skip:
            try:
                found.append(Exercise.from_dict(json.loads(record.read_text(encoding="utf-8"))))
            except (ValueError, KeyError, TypeError):
                continue
    return found


def _readme_owner(root: Path, instructor: Path) -> set[str]:
    """The exercises whose handed-out README is byte for byte the submission's README."""
    try:
        text = _read(root, "README.md")
        manifest = json.loads((instructor / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnsafeSubmissionError):
        return set()
    if text is None:
        return set()
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    hashes = manifest.get("candidate_sha256", {})
    return {name.split("/", 1)[0] for name, value in hashes.items()
            if name.endswith("/README.md") and name.count("/") == 1 and value == digest}


def _exists(root: Path, relative: str) -> bool:
    try:
        return _check_path(root, relative) is not None
    except UnsafeSubmissionError:
        return False


def _bug_lines(exercise: Exercise, file: str) -> set[str]:
    """The stripped lines the exercise's bug put into `file` that the reference has nowhere
    (none if the bug only deleted, or only repeated a line found elsewhere)."""
    if file not in exercise.buggy:
        return set()
    # As handed out: a medium or hard handout's lines have lost their trailing comments (told_code).
    level = exercise.difficulty.level
    before = told_code(exercise.reference[file], level).splitlines()
    after = told_code(exercise.buggy[file], level).splitlines()
    everywhere = {line.strip() for line in before}
    return {line[1:].strip() for line in difflib.unified_diff(before, after, n=0, lineterm="")
            if line.startswith("+") and not line.startswith("+++") and line[1:].strip() not in everywhere}


def _has_lines(root: Path, relative: str, lines: set[str]) -> bool:
    try:
        text = _read(root, relative)
    except UnsafeSubmissionError:
        return False
    return text is not None and lines <= {line.strip() for line in text.splitlines()}
