"""Reproducible zip archives, and extraction that refuses entries escaping their folder.

Entries are sorted, dated 1980-01-01 (the zip epoch), mode 0644 (0755 for the scripts named
executable), deflated at a fixed level: the same files give the same bytes on every machine and
every run.
"""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path, PurePosixPath

from bugsmith.harness.exercises.records import ExerciseError

EPOCH = (1980, 1, 1, 0, 0, 0)
MAX_UNPACKED_BYTES = 256 * 1024 * 1024


class UnsafeArchiveError(ExerciseError):
    """An archive entry would land outside the target folder, or is not a plain file."""


def write_zip(path: Path, files: Mapping[str, str | bytes], *, executable: Collection[str] = ()) -> Path:
    """Write `files` (archive name -> content) as a byte-reproducible zip; the names in `executable`
    get mode 0755 (a script that a platform runs straight from the unpacked archive)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, so that the mode bits below mean what they say
            info.external_attr = (stat.S_IFREG | (0o755 if name in executable else 0o644)) << 16
            content = files[name]
            archive.writestr(info, content.encode("utf-8") if isinstance(content, str) else content,
                             compresslevel=9)
    return path


def write_tree(folder: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write `files` under `folder`, which must not exist or be empty (never overwrite a tree)."""
    if folder.exists() and any(folder.iterdir()):
        raise ExerciseError(f"{folder} exists and is not empty; choose another --out")
    for name in sorted(files):
        target = folder / _safe_name(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        content = files[name]
        if isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            target.write_bytes(content)
    return folder


def _safe_name(name: str) -> PurePosixPath:
    """`name` as a relative path with no way out of its folder, else UnsafeArchiveError."""
    if not name or "\\" in name or "\0" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"unsafe entry {name!r}: absolute or not a POSIX path")
    path = PurePosixPath(name)
    if any(part == ".." for part in path.parts):
        raise UnsafeArchiveError(f"unsafe entry {name!r}: climbs out of the target folder")
    return path


def extract_pack(archive_path: Path, dest: Path) -> Path:
    """Extract a pack into `dest`, after checking every entry; nothing is written if one is unsafe.

    Rejects absolute names, `..`, symlinks and other non-regular entries, and archives that
    would unpack to more than MAX_UNPACKED_BYTES.
    """
    dest = dest.resolve()
    try:
        archive = zipfile.ZipFile(archive_path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ExerciseError(f"{archive_path}: not a readable zip archive: {error}") from None
    with archive:
        entries = archive.infolist()
        plan = []
        for info in entries:
            relative = _safe_name(info.filename)
            mode = info.external_attr >> 16
            if info.create_system == 3 and mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UnsafeArchiveError(f"unsafe entry {info.filename!r}: not a regular file (a link?)")
            target = (dest / relative).resolve()
            if not target.is_relative_to(dest):
                raise UnsafeArchiveError(f"unsafe entry {info.filename!r}: lands outside {dest}")
            plan.append((info, target))
        if sum(info.file_size for info in entries) > MAX_UNPACKED_BYTES:
            raise UnsafeArchiveError(f"{archive_path}: unpacks to more than {MAX_UNPACKED_BYTES} bytes")
        for info, target in plan:
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            target.chmod(0o644)
    return dest
