"""How much of a problem's statement a handout tells, by the exercise's level.

Blind solve trials (benchmarks/solve-trials/) found that a hard exercise fell to one reading
when the statement spelled out the rule the bug breaks: the solver read the code against the
formula in problem.md and saw the line that differs, without running anything. In a real
codebase the rules live in the tests, and finding which one the code breaks is the debugging.
So a hard handout keeps what a newcomer to the code would be told (the overview and the API)
and leaves the detailed rules to the tests; easy and medium handouts tell the whole statement.

A statement's parts are its Markdown sections: the text before the first `## ` heading (the
overview; the API of a one-function problem is there) and each `## ` section after it. A hard
handout keeps the overview and every section whose heading begins with "API". A statement with
no `## ` heading is told whole at every level, as there is nothing to tell apart.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
# The API is what a newcomer to the code is told of it; the rules are what the tests check.
KEPT_WHEN_HARD = ("API",)
WITHHELD = "The detailed rules are not spelled out here: the tests state them."


def sections(text: str) -> list[str]:
    """`text` cut before each `## ` heading outside a code fence; the first part is the overview."""
    parts: list[list[str]] = [[]]
    fence = ""  # the marker of the code fence the line is in, if any
    for line in text.splitlines(keepends=True):
        marker = found.group(1) if (found := _FENCE.match(line)) is not None else ""
        if marker and not fence:
            fence = marker
        elif marker and marker == fence:
            fence = ""
        elif not fence and line.startswith("## "):
            parts.append([])
        parts[-1].append(line)
    return ["".join(part) for part in parts]


def _kept_when_hard(section: str) -> bool:
    return section[3:].lstrip().startswith(KEPT_WHEN_HARD)


def told_statement(text: str, level: str) -> str:
    """The statement as a handout of `level` tells it (see the module docstring)."""
    parts = sections(text)
    kept = [parts[0]] + [part for part in parts[1:] if _kept_when_hard(part)]
    if level != "hard" or len(kept) == len(parts):
        return text
    return "".join(part.rstrip("\n") + "\n\n" for part in kept) + WITHHELD + "\n"
