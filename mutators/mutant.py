"""The Mutant record: one injected bug, with everything needed to apply and explain it."""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, fields
from typing import Any

from bugsmith.mutators.family import Family


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """A region of a source file: lines are 1-based, columns 0-based, end exclusive (libcst)."""

    line: int
    column: int
    end_line: int
    end_column: int

    def offsets(self, source: str) -> tuple[int, int]:
        """Character offsets of this span in `source`."""
        starts = line_starts(source)
        return starts[self.line - 1] + self.column, starts[self.end_line - 1] + self.end_column


@functools.lru_cache(maxsize=4)
def line_starts(source: str) -> tuple[int, ...]:
    """Offset of each line's first character. Cached: every mutant of a file asks, and a
    character loop over a 1,500-line file for each of them took most of the engine's time."""
    starts = [0]
    position = source.find("\n")
    while position != -1:
        starts.append(position + 1)
        position = source.find("\n", position + 1)
    return tuple(starts)


@functools.lru_cache(maxsize=4)
def _lines(source: str) -> tuple[str, ...]:
    """The lines of `source` with their endings, split where `line_starts` splits."""
    starts = line_starts(source)
    ends = starts[1:] + (len(source),)
    return tuple(source[a:b] for a, b in zip(starts, ends) if a < b)


@dataclass(frozen=True, slots=True, kw_only=True)
class Mutant:
    """One injected bug.

    `function` is the qualified name (as in `code.co_qualname`) of the outermost function whose
    body holds the site; the harness activates the mutant by swapping that function's code.
    It is None when the site runs at import time (module or class level, defaults,
    decorators), which the harness handles by re-importing the module.
    """

    id: str
    operator: str
    family: Family
    file: str  # path relative to the project root, POSIX separators
    module: str  # dotted module name, e.g. "reference.auc.auc"
    function: str | None
    scope: str  # enclosing qualified name used in the id, "" at module level
    span: Span
    original: str
    mutated: str
    explanation: str
    diff: str  # unified diff of the whole file, as a reviewer would read it

    def apply(self, source: str) -> str:
        """The whole mutated file, given the original file's text."""
        start, end = self.span.offsets(source)
        if source[start:end] != self.original:
            raise ValueError(f"{self.file}: mutant {self.id} does not match the source at its span")
        return source[:start] + self.mutated + source[end:]

    def to_dict(self) -> dict[str, Any]:
        # Built by hand, in field order: asdict deep-copies every field, and a run stores (or
        # compares with the stored) every mutant's record.
        data = {field.name: getattr(self, field.name) for field in fields(self)}
        data["family"] = self.family.value
        data["span"] = {field.name: getattr(self.span, field.name) for field in fields(self.span)}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Mutant:
        fields = dict(data)
        fields["family"] = Family(fields["family"])
        fields["span"] = Span(**fields["span"])
        return cls(**fields)


def unified_diff(file: str, before: str, after: str) -> str:
    """A `git diff`-style patch turning `before` into `after`."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{file}",
            tofile=f"b/{file}",
            n=2,
        )
    )


def span_diff(file: str, source: str, span: Span, mutated: str, context: int = 2) -> str:
    """The unified diff of replacing `span` by `mutated`, built around the span alone.

    Equivalent to `unified_diff` of the whole files (one hunk), without diffing whole files:
    difflib over a large file costs more than the rest of making a mutant.
    """
    lines = _lines(source)
    starts = line_starts(source)
    lo, hi = span.offsets(source)
    first = span.line - 1
    last = span.end_line - 1 - (span.end_column == 0 and span.end_line > span.line)
    last = min(max(last, first), len(lines) - 1)
    end_of_last = starts[last] + len(lines[last])
    old = list(lines[first : last + 1])
    new = (source[starts[first] : lo] + mutated + source[hi:end_of_last]).splitlines(keepends=True)
    before = list(lines[max(0, first - context) : first])
    after = list(lines[last + 1 : last + 1 + context])
    offset = first - len(before)
    hunks = difflib.unified_diff(
        before + old + after, before + new + after, f"a/{file}", f"b/{file}", n=context
    )
    return "".join(_shift_hunk(line, offset) for line in hunks)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(line: str, offset: int) -> str:
    """Renumber a hunk header of a diff taken over a window that starts at line offset+1."""
    if not line.endswith("\n"):
        line += "\n"
    match = _HUNK.match(line)
    if match is None:
        return line
    old_start, old_count, new_start, new_count = match.groups()
    return (
        f"@@ -{int(old_start) + offset}{old_count or ''} +{int(new_start) + offset}{new_count or ''} @@"
        + line[match.end():]
    )
