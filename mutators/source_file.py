"""Read a Python file as Python reads it, and encode a mutant of it the same way.

PEP 263: a file is UTF-8 unless a `coding:` comment on its first two lines names another
encoding; a UTF-8 byte order mark is allowed (and is not part of the text: `compile()` refuses a
`\\ufeff` in a string). Every stage works on the decoded text; a mutant that must go back to
bytes uses the original file's encoding, so a BOM and a latin-1 cookie keep meaning what they say.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from bugsmith.errors import SourceError


def source_encoding(path: Path) -> str:
    """The codec Python would decode `path` with: `utf-8-sig` when it starts with a BOM."""
    try:
        with path.open("rb") as file:
            return tokenize.detect_encoding(file.readline)[0]
    except SyntaxError as error:  # an unknown codec, or a cookie that contradicts a BOM
        raise SourceError(f"{path}: cannot read: {error.msg}") from None


def read_source(path: Path, name: str | None = None) -> str:
    """The text of `path` decoded as Python decodes it (newlines made `\\n`); a file Python
    could not read either is a SourceError naming it (as `name`, default the path)."""
    try:
        data = path.read_bytes()
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        text = data.decode(encoding)
    except SyntaxError as error:
        raise SourceError(f"{name or path}: cannot read: {error.msg}") from None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SourceError(f"{name or path}:{line}: cannot read: not valid {encoding} ({error.reason} at byte"
                          f" {error.start}); declare its encoding (PEP 263) or exclude it") from None
    except OSError as error:
        raise SourceError(f"{name or path}: cannot read: {error.strerror or error}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def encode_source(text: str, encoding: str) -> bytes:
    """`text` (a file's text, or a mutant of it) as bytes in `encoding` (from
    `source_encoding`): `utf-8-sig` puts the BOM back."""
    return text.encode(encoding)
