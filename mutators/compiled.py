"""Compile mutants one top-level statement at a time.

Every mutant must compile, and one that compiles to the original's bytecode is trivially
equivalent; compiling the whole file for each mutant costs more the larger the module, so
we compile only the top-level statement (function or class) that holds the change. A change
that spans statements falls back to the whole file.
"""

from __future__ import annotations
import __future__

import bisect
import hashlib
import marshal
from types import CodeType

FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def _without_positions(code: CodeType) -> CodeType:
    consts = tuple(
        _without_positions(const) if isinstance(const, CodeType) else const
        for const in code.co_consts
    )
    return code.replace(co_consts=consts, co_linetable=b"", co_firstlineno=1)


def digest(source: str, filename: str, flags: int = 0) -> bytes | None:
    """A digest of the compiled code that ignores line numbers; None if it does not compile."""
    try:
        code = compile(source, filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return hashlib.blake2b(marshal.dumps(_without_positions(code)), digest_size=16).digest()


class CompileUnits:
    """The top-level statements of one file, by character range, with their original digests."""

    def __init__(self, source: str, filename: str, ranges: list[tuple[int, int]]) -> None:
        self.source = source
        self.filename = filename
        code = compile(source, filename, "exec", dont_inherit=True)
        self.flags = code.co_flags & FUTURE_FLAGS
        self.ranges = ranges
        self._starts = [start for start, _ in ranges]
        self._original: dict[int, bytes | None] = {}

    def _unit(self, lo: int, hi: int) -> int:
        index = bisect.bisect_right(self._starts, lo) - 1
        if index >= 0 and hi <= self.ranges[index][1]:
            return index
        return -1

    def _original_digest(self, index: int) -> bytes | None:
        if index not in self._original:
            text = self.source if index < 0 else self.source[slice(*self.ranges[index])]
            self._original[index] = digest(text, self.filename, self.flags)
        return self._original[index]

    def check(self, text: str, lo: int, hi: int) -> tuple[int, bytes | None, bool]:
        """(unit, digest of the mutated unit or None if invalid, equal to the original?)."""
        index = self._unit(lo, hi)
        if index < 0:
            mutated = text
        else:
            start, end = self.ranges[index]
            mutated = text[start : end + len(text) - len(self.source)]
        found = digest(mutated, self.filename, self.flags)
        return index, found, found is not None and found == self._original_digest(index)
