"""How much a diff between two handouts (or a handout and the reference) says about the bug.

A handout gives its bug away by diff when the diff is short, or when the bug's lines make a
hunk of their own: then the one changed line is the answer. `diff_shape` measures both.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

CONTEXT = 3  # lines of context around a hunk, as `diff -u` shows
MIN_CHANGED = 20  # changed lines (removed + added) below which a diff is short enough to read whole


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffShape:
    changed: int  # lines removed plus lines added, over every file
    hunks: int
    bug_alone: bool  # some bug line sits in a hunk that changes nothing but bug lines

    @property
    def gives_away(self) -> bool:
        return self.changed < MIN_CHANGED or self.bug_alone


def diff_shape(before: Mapping[str, str], after: Mapping[str, str],
               bug_lines: Mapping[str, set[int]]) -> DiffShape:
    """The shape of the diff from `before` to `after` (relative path -> text); `bug_lines` are
    the 1-based lines of `after` that a bug wrote (for a deletion: the line after the gap)."""
    changed = hunks = 0
    bug_alone = False
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, "").splitlines(), after.get(path, "").splitlines()
        bugs = bug_lines.get(path, set())
        for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(CONTEXT):
            edits = [op for op in group if op[0] != "equal"]
            hunks += 1
            touched: set[int] = set()
            for _, i1, i2, j1, j2 in edits:
                changed += (i2 - i1) + (j2 - j1)
                touched |= set(range(j1 + 1, j2 + 1)) or {j1 + 1}
            if touched & bugs and touched <= bugs:
                bug_alone = True
    return DiffShape(changed=changed, hunks=hunks, bug_alone=bug_alone)
