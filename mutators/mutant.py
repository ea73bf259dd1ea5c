"""The Mutant record: one injected bug, with everything needed to apply and explain it."""

from __future__ import annotations

import difflib
import enum
from dataclasses import asdict, dataclass
from typing import Any


class Family(enum.StrEnum):
    """Bug families; the realistic ones come first because they are the point."""

    SHAPE = "shape"
    WINDOW = "window"
    LEAKAGE = "leakage"
    SCHEDULING = "scheduling"
    METRIC = "metric"
    CLASSIC = "classic"
    BEYOND = "beyond"


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """A region of a source file: lines are 1-based, columns 0-based, end exclusive (libcst)."""

    line: int
    column: int
    end_line: int
    end_column: int

    def offsets(self, source: str) -> tuple[int, int]:
        """Character offsets of this span in `source`."""
        starts = _line_starts(source)
        return starts[self.line - 1] + self.column, starts[self.end_line - 1] + self.end_column


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(source):
        if char == "\n":
            starts.append(index + 1)
    return starts


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
        data = asdict(self)
        data["family"] = self.family.value
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
