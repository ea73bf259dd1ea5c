"""What enumerating mutants gives (`bugsmith.mutators.engine`), as records that a warm run
reads from the store without importing libcst (harness.mutant_cache)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bugsmith.mutators.mutant import Mutant


@dataclass(frozen=True, slots=True, kw_only=True)
class FileMutants:
    file: str
    mutants: tuple[Mutant, ...]
    dropped_equivalent: int
    dropped_duplicates: int
    dropped_invalid: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """A file left out of a run, and why (a run goes on without it; the user is told)."""

    file: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Enumeration:
    mutants: tuple[Mutant, ...]
    files: tuple[FileMutants, ...]
    seconds: float
    skipped: tuple[Skipped, ...] = ()

    @property
    def dropped_equivalent(self) -> int:
        return sum(f.dropped_equivalent for f in self.files)

    @property
    def dropped_duplicates(self) -> int:
        return sum(f.dropped_duplicates for f in self.files)

    @property
    def dropped_invalid(self) -> int:
        return sum(f.dropped_invalid for f in self.files)


def module_name(path: Path) -> str:
    """The dotted name under which `path` is imported: walk up through package folders."""
    path = path.resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts))
