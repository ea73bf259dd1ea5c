"""The HTML report's file sections, kept by the digest of everything they show.

A file's section (its coloured source, a card per mutant) is most of the page and of the time it
takes to render, and an edit to one function changes the section of its own file only. The
section's key is the digest of the code that renders it (the templates and the modules that
colour and word it) and of the file's whole view (its source, each mutant, outcome and triage
finding, their tally, the score thresholds): a section is taken back only for exactly what it
was rendered from.
Kept in bugsmith's user cache beside the compiled templates; a folder that cannot be written
is no cache, and the sections used least recently go once they hold more than MAX_BYTES.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from functools import cache
from importlib import resources
from importlib.metadata import version
from pathlib import Path

from bugsmith.harness.corpus import cache_subfolder

# A few projects' pages, each in the versions of their last few runs.
MAX_BYTES = 100 * 2**20
_CODE = ("html_page.py", "highlight.py", "view.py", "wording.py", "templates/report_parts.html.j2")


class SectionCache:
    """Rendered sections by key (`section_key`), in `folder`; None keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.added = 0  # sections rendered and kept by this object

    @classmethod
    def default(cls) -> SectionCache:
        return cls(cache_subfolder("html-sections"))

    def get(self, key: str, render: Callable[[], str]) -> str:
        """The section kept under `key` (marked used now), else `render()`'s, kept."""
        if self.folder is None:
            return render()
        path = self.folder / f"{key}.html"
        try:
            text = path.read_text(encoding="utf-8")
            os.utime(path)  # what was used last goes last (`trim`)
            return text
        except (OSError, UnicodeDecodeError):
            pass
        text = render()
        partial = path.with_suffix(f".{os.getpid()}.tmp")  # never a half-written section under the key
        try:
            partial.write_text(text, encoding="utf-8")
            partial.replace(path)
            self.added += 1
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
        return text

    def trim(self) -> None:
        """Remove the sections used least recently beyond MAX_BYTES, once sections were added."""
        if self.folder is None or not self.added:
            return
        kept = 0
        for _, size, path in sorted(_sections(self.folder), reverse=True):  # the last used first
            kept += size
            if kept > MAX_BYTES:
                path.unlink(missing_ok=True)


def section_key(*parts: object) -> str:
    """The digest of the rendering code and of `parts` (their repr: records are frozen
    dataclasses, whose repr names every field)."""
    digest = hashlib.sha256(_code_digest().encode())
    digest.update(repr(parts).encode())
    return digest.hexdigest()


@cache
def _code_digest() -> str:
    digest = hashlib.sha256(f"jinja2 {version('jinja2')}, markupsafe {version('markupsafe')}".encode())
    package = resources.files("bugsmith.harness.report")
    for name in _CODE:
        digest.update(package.joinpath(name).read_bytes())
    return digest.hexdigest()


def _sections(folder: Path) -> list[tuple[float, int, Path]]:
    """(time last used, size, path) of each section in `folder`."""
    found = []
    for path in folder.glob("*.html"):
        try:
            info = path.stat()
        except OSError:  # removed meanwhile by another run's trim
            continue
        found.append((info.st_mtime, info.st_size, path))
    return found
