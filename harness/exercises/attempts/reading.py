"""Read the attempts saved in one folder: each file is an attempt, or it is skipped with a warning.

Only the folder itself is read, not its subfolders. Hidden files are passed over in silence: a
save in progress is a hidden temporary file until it is renamed into place. Two files of one
attempt (a copy under another name) count once: the later grading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.exercises.attempts.records import Attempt, AttemptError

MAX_BYTES = 64 * 1024 * 1024  # far above a grade with a long log; a file past it is not one of ours


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptsRead:
    folder: Path
    attempts: tuple[Attempt, ...]  # one per attempt id, in file name order
    warnings: tuple[str, ...]  # one line per file skipped


def read_attempts(folder: Path) -> AttemptsRead:
    """Every attempt saved in `folder`; AttemptError when it is missing, empty or holds none."""
    if not folder.is_dir():
        raise AttemptError(f"{folder}: no such folder of saved attempts"
                           if not folder.exists() else f"{folder}: not a folder")
    entries = sorted(path for path in folder.iterdir() if not path.name.startswith("."))
    if not entries:
        raise AttemptError(f"{folder} is empty: `bugsmith grade ... --save-attempt {folder}` saves attempts there")
    found: dict[str, Attempt] = {}
    warnings = []
    for path in entries:
        try:
            attempt = _read(path)
        except ValueError as why:
            warnings.append(f"{path.name}: skipped, not a saved attempt ({why})")
            continue
        kept = found.get(attempt.id)
        if kept is None or attempt.graded > kept.graded:
            found[attempt.id] = attempt
    if not found:
        raise AttemptError(f"{folder}: none of its {len(entries)} files is a saved attempt ({warnings[0]})")
    return AttemptsRead(folder=folder, attempts=tuple(found.values()), warnings=tuple(warnings))


def _read(path: Path) -> Attempt:
    if path.is_dir():
        raise ValueError("a folder: only the files directly in the folder are read")
    if not path.is_file():
        raise ValueError("not a regular file")
    try:
        size = path.stat().st_size
        data = path.read_bytes() if size <= MAX_BYTES else b""
    except OSError as error:
        raise ValueError(f"unreadable: {error.strerror or error}") from None
    if size > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
    try:
        document = json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as error:  # not UTF-8, not JSON
        raise ValueError(f"not JSON: {str(error).splitlines()[0]}") from None
    return Attempt.from_document(document)
