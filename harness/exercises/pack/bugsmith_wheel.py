"""A wheel of the running bugsmith, so that a machine with no copy of it (an autograder image) can
install exactly this version offline.

It is packed from the files this bugsmith imports itself from: installed from a wheel, the
`bugsmith` folder in site-packages; from a checkout (an editable install), the four folders the
package maps (`bugsmith/`, `harness/`, `mutators/`, `reference/`), every file in them but caches
and dotfiles. The metadata (version, dependencies and their extras, the `bugsmith` command) is
the installed distribution's. The bytes depend on those files alone, so the same bugsmith gives
the same wheel (`archive.write_zip`: sorted entries, fixed dates and modes).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib
import importlib.metadata
import io
import tempfile
from pathlib import Path

from bugsmith.harness.exercises.pack.archive import write_zip
from bugsmith.harness.exercises.records import ExerciseError

PACKAGES = ("bugsmith", "bugsmith.harness", "bugsmith.mutators", "bugsmith.reference")
TAG = "py3-none-any"


def running_wheel() -> tuple[str, bytes]:
    """(file name, bytes) of a wheel holding the running bugsmith."""
    distribution = importlib.metadata.distribution("bugsmith")
    version = distribution.version
    metadata = distribution.read_text("METADATA") or distribution.read_text("PKG-INFO")
    if not metadata:
        raise ExerciseError("the running bugsmith has no installed metadata: install it (pip install -e .)")
    info = f"bugsmith-{version}.dist-info"
    files: dict[str, bytes] = dict(package_files())
    files[f"{info}/METADATA"] = metadata.encode("utf-8")
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: bugsmith {version}\nRoot-Is-Purelib: true\n"
                              f"Tag: {TAG}\n").encode()
    entry_points = distribution.read_text("entry_points.txt")
    if entry_points:
        files[f"{info}/entry_points.txt"] = entry_points.encode("utf-8")
    files[f"{info}/RECORD"] = _record(files, f"{info}/RECORD")
    name = f"bugsmith-{version}-{TAG}.whl"
    with tempfile.TemporaryDirectory(prefix="bugsmith-wheel-") as scratch:
        return name, write_zip(Path(scratch) / name, files).read_bytes()


def package_files() -> dict[str, bytes]:
    """Every file of the running bugsmith's packages, by its path inside a wheel."""
    files: dict[str, bytes] = {}
    for name in PACKAGES:
        module = importlib.import_module(name)
        prefix = name.replace(".", "/")
        for folder in map(Path, module.__path__):
            for path in sorted(folder.rglob("*")):
                relative = path.relative_to(folder)
                if path.is_file() and _kept(relative):
                    files.setdefault(f"{prefix}/{relative.as_posix()}", path.read_bytes())
    return files


def _kept(relative: Path) -> bool:
    return (not any(part.startswith((".", "__pycache__")) or part.endswith(".egg-info") for part in relative.parts)
            and relative.suffix not in (".pyc", ".pyo"))


def _record(files: dict[str, bytes], record: str) -> bytes:
    """The wheel's RECORD: every file with its sha256 and size, and the RECORD itself without them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for name in sorted(files):
        digest = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=").decode()
        writer.writerow([name, f"sha256={digest}", len(files[name])])
    writer.writerow([record, "", ""])
    return out.getvalue().encode("utf-8")
