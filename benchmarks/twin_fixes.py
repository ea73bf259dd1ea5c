"""BugsInPy fixes of an edit made in one place of two (issue 40, item 4), counted apart.

Two kinds, found with the operators' own notion of twins (`bugsmith.mutators.analysis.twins`):

- a *one-statement twin fix*: a one-statement bug of realism.py whose fixed statement is one of
  two twins in its snippet (the bug sat in one of two parallel lines or operands), and whose
  buggy form its twin or one off-by-one edit explains (`analysis.slips.unexplained`): the slip
  `beyond/twin-copied` and `beyond/twin-not-updated` model. Its reproduction is realism.py's own
  verdict on that bug.
- a *multi-statement twin fix*: a fix that makes one edit in two twins (two changed lines, twins
  after the fix and twins before it: `squeeze(x)` -> `squeeze(x, axis=-1)` in two neighbouring
  lines). The bug was in both twins, which no one-edit mutant makes; what the twin operators
  model is the same edit made in one of the two, the other left behind. That half-made fix is
  rebuilt from the hunk (the fixed snippet with one of the two lines in its buggy form, for
  either line) and counted reproduced when a mutant of the fixed snippet is one of the two.

Lines are paired as realism.py pairs them: within a run of `-`/`+` lines of equal length, the
k-th removed line with the k-th added one; a changed statement must fit on its line.

Used by realism.py, which prints these lines after the order count.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from realism import Bug, Hunk, Result, Site, _blocks, _imports, _is_source, _wrapped, hunks, measure

from bugsmith.mutators.analysis.slips import unexplained
from bugsmith.mutators.analysis.twins import all_twins, compare
from bugsmith.mutators.base import AnyMutator


@dataclass(frozen=True, slots=True, kw_only=True)
class TwinFixes:
    """What the twin count found: bug names as `project/number`."""

    in_a_twin: tuple[str, ...]  # one-statement bugs whose fix changes one of two twins
    one_statement: tuple[str, ...]  # ... and whose buggy form the twin explains
    one_statement_reproduced: dict[str, tuple[str, ...]]  # bug -> the operators whose mutant is the bug
    multi: tuple[str, ...]  # fixes that make one edit in two twins
    rebuilt: tuple[str, ...]  # ... whose hunk parses with one of the two lines left behind
    reproduced: dict[str, tuple[str, ...]]  # bug -> the operators whose mutant is a half-made fix


# One-statement fixes ----------------------------------------------------------------------------

def _in_one_twin(site: Site) -> bool | None:
    """None when the fix of `site` changes no twin of its snippet, or more than one; else whether
    the twin (its tokens, the function's, or one off-by-one edit) explains the buggy form."""
    try:
        module = cst.parse_module(site.fixed)
    except cst.ParserSyntaxError:
        return None
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    fixed, buggy = site.fixed, site.buggy
    start = next((i for i, (a, b) in enumerate(zip(fixed, buggy)) if a != b), min(len(fixed), len(buggy)))
    tail = 0
    while tail < min(len(fixed), len(buggy)) - start and fixed[-1 - tail] == buggy[-1 - tail]:
        tail += 1
    starts = [0]
    for line in fixed.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for twins in all_twins(module):
        for member in (twins.first, twins.second):
            where = positions[member]
            low = starts[where.start.line - 1] + where.start.column
            high = starts[where.end.line - 1] + where.end.column
            if low <= start and len(fixed) - tail <= high:
                edited = buggy[low : high + len(buggy) - len(fixed)]
                return unexplained(fixed[low:high], edited, fixed) is None
    return None


# Multi-statement fixes --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class _Change:
    index: int  # the `+` line's place in the hunk
    removed: int  # the `-` line's place in the hunk
    fixed: cst.BaseSmallStatement
    buggy: cst.BaseSmallStatement


def _statement(line: str) -> cst.BaseSmallStatement | None:
    try:
        parsed = cst.parse_statement(line.strip() + "\n")
    except cst.ParserSyntaxError:
        return None
    if isinstance(parsed, cst.SimpleStatementLine) and len(parsed.body) == 1:
        return parsed.body[0]
    return None


def _changes(hunk: Hunk) -> list[_Change]:
    """The hunk's changed lines that pair one removed line with one added line."""
    found = []
    for start, end in _blocks(hunk.lines):
        removed = [i for i in range(start, end) if hunk.lines[i][:1] == "-"]
        added = [i for i in range(start, end) if hunk.lines[i][:1] == "+"]
        if len(removed) != len(added):
            continue
        for old, new in zip(removed, added):
            fixed, buggy = _statement(hunk.lines[new][1:]), _statement(hunk.lines[old][1:])
            if fixed is not None and buggy is not None and not fixed.deep_equals(buggy):
                found.append(_Change(index=new, removed=old, fixed=fixed, buggy=buggy))
    return found


def _twin_edits(hunk: Hunk) -> Iterator[tuple[_Change, _Change]]:
    """Two changes of the hunk whose lines are twins after the fix and before it."""
    changes = _changes(hunk)
    for a, b in zip(changes, changes[1:]):
        if compare(a.fixed, b.fixed) is not None and compare(a.buggy, b.buggy) is not None:
            yield a, b


def _snippet(hunk: Hunk, window: range, buggy: set[int]) -> str | None:
    """The hunk's lines in `window` as code, every change fixed but those whose `-` line is in
    `buggy` (with their `+` lines left out)."""
    lines = hunk.lines
    keep = [lines[i][1:] for i in window
            if lines[i][:1] == " " or (lines[i][:1] == "+" and i not in buggy) or (lines[i][:1] == "-" and i in buggy)]
    imports = _imports("\n".join(lines[i][1:] for i in window))
    made = _wrapped(keep, hunk.header, imports)
    return None if made is None else made[0]


def _half_fixes(hunk: Hunk, pair: tuple[_Change, _Change]) -> tuple[str, list[str]] | None:
    """The fixed snippet and the two half-made fixes (one line of the pair left in its buggy
    form, the other fixed), from the widest window of context in which all three parse."""
    changed = [i for i, line in enumerate(hunk.lines) if line[:1] in "+-" and line[:1] != ""]
    before, after = changed[0], len(hunk.lines) - changed[-1] - 1
    for shrink in range(before + after + 1):
        for cut_before in range(min(shrink, before) + 1):
            cut_after = shrink - cut_before
            if cut_after > after:
                continue
            window = range(cut_before, len(hunk.lines) - cut_after)
            fixed = _snippet(hunk, window, set())
            halves = [_snippet(hunk, window, {change.removed, change.index}) for change in pair]
            if fixed is not None and all(half is not None for half in halves):
                return fixed, [half for half in halves if half is not None]
    return None


def _reproduced(fixed: str, halves: Sequence[str], name: str, mutators: Sequence[AnyMutator]) -> tuple[str, ...]:
    operators: list[str] = []
    for half in halves:
        lines = fixed.count("\n")
        result = measure(Site(bug=name, file="", fixed=fixed, buggy=half, changed=(1, lines), pattern="twins"),
                         mutators)
        operators += result.operators
    return tuple(dict.fromkeys(operators))


def twin_fixes(bugs: Sequence[Bug], mutators: Sequence[AnyMutator], sites: Sequence[Site],
               results: Sequence[Result]) -> TwinFixes:
    """The twin count over `bugs`; `sites` and `results` are realism.py's one-statement ones."""
    in_a_twin, one, one_reproduced = [], [], {}
    for site, result in zip(sites, results):
        explained = _in_one_twin(site)
        if explained is not None:
            in_a_twin.append(site.bug)
        if explained:
            one.append(site.bug)
            if result.reproduced:
                one_reproduced[site.bug] = tuple(dict.fromkeys(result.operators))
    multi, rebuilt = [], []
    reproduced: dict[str, tuple[str, ...]] = {}
    for bug in bugs:
        name = f"{bug.project}/{bug.number}"
        for hunk in (h for h in hunks(bug.patch) if _is_source(h.file)):
            for pair in _twin_edits(hunk):
                multi.append(name)
                made = _half_fixes(hunk, pair)
                if made is None:
                    continue
                rebuilt.append(name)
                operators = _reproduced(*made, name, mutators)
                if operators:
                    reproduced[name] = tuple(dict.fromkeys([*reproduced.get(name, ()), *operators]))
    return TwinFixes(in_a_twin=tuple(in_a_twin), one_statement=tuple(one), one_statement_reproduced=one_reproduced,
                     multi=tuple(dict.fromkeys(multi)), rebuilt=tuple(dict.fromkeys(rebuilt)), reproduced=reproduced)


def report(fixes: TwinFixes) -> list[str]:
    def by(found: dict[str, tuple[str, ...]]) -> str:
        return ", ".join(f"{bug} by {' '.join(ops)}" for bug, ops in found.items()) or "none"

    return [
        f"one-statement fixes in one of two twins: {len(fixes.in_a_twin)} ({', '.join(fixes.in_a_twin) or 'none'}); "
        f"the twin explains the bug (a slip): {len(fixes.one_statement)} ({', '.join(fixes.one_statement) or 'none'}); "
        f"reproduced exactly: {len(fixes.one_statement_reproduced)} "
        f"({by(fixes.one_statement_reproduced)})",
        f"multi-statement twin fixes (one edit made in two twins): {len(fixes.multi)} "
        f"({', '.join(fixes.multi) or 'none'}); {len(fixes.rebuilt)} rebuilt from the hunk; the edit made in "
        f"one twin only reproduced: {len(fixes.reproduced)} ({by(fixes.reproduced)})",
    ]
