"""BugsInPy fixes that reorder statements, counted apart from the one-statement bugs (issue 40).

A fix whose hunk holds the same code lines on both sides (comments and blank lines aside) in
another order is an *order fix*: the bug was the right statements in the wrong order, which no
one-statement count can see (the fix changes two places). Each such hunk is rebuilt like a
one-statement site, from the hunk alone (the widest window of context whose both sides parse,
wrapped in the hunk's function), and counted reproduced when one mutant of the fixed snippet is
the buggy one, compared as ASTs. A looser count says how many other fixes move a line (the same
text at the same indentation removed in one place and added in another) among other edits: an
upper bound on order bugs, most of them code moved into a new branch rather than reordered.

Used by realism.py, which prints these lines after its one-statement table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from realism import Bug, Hunk, Site, _imports, _is_source, _side, _wrapped, hunks, measure

from bugsmith.mutators.base import AnyMutator


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderFixes:
    """What the order count found: bug names as `project/number`."""

    bugs: tuple[str, ...]  # a hunk of the fix only reorders its lines
    whole: tuple[str, ...]  # ... and the fix changes nothing else
    rebuilt: tuple[str, ...]  # its hunk parses as a snippet on both sides
    reproduced: dict[str, tuple[str, ...]]  # bug -> the operators whose mutant is the buggy code
    moved_among_edits: tuple[str, ...]  # other fixes that move a line among other edits


def _code(lines: Sequence[str]) -> list[str]:
    return [line.rstrip() for line in lines if line.strip() and not line.strip().startswith("#")]


def reordered(hunk: Hunk) -> bool:
    """Do the hunk's two sides hold the same code lines in another order?"""
    fixed, buggy = _code(_side(hunk.lines, "-")), _code(_side(hunk.lines, "+"))
    return fixed != buggy and sorted(fixed) == sorted(buggy)


def _moves_a_line(source_hunks: Sequence[Hunk]) -> bool:
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    for hunk in source_hunks:
        removed.update(_code([line[1:] for line in hunk.lines if line[:1] == "-"]))
        added.update(_code([line[1:] for line in hunk.lines if line[:1] == "+"]))
    return bool(removed & added)


def order_site(name: str, hunk: Hunk) -> Site | None:
    """The reordering hunk as a fixed and a buggy snippet, with as much context as parses."""
    changed = [i for i, line in enumerate(hunk.lines) if line[:1] in "+-" and line[:1] != ""]
    start, end = changed[0], changed[-1] + 1
    before, after = start, len(hunk.lines) - end
    for shrink in range(before + after + 1):
        for cut_before in range(min(shrink, before) + 1):
            cut_after = shrink - cut_before
            if cut_after > after:
                continue
            window = hunk.lines[cut_before : len(hunk.lines) - cut_after]
            imports = _imports("\n".join(line[1:] for line in window))
            fixed = _wrapped(_side(window, "-"), hunk.header, imports)
            buggy = _wrapped(_side(window, "+"), hunk.header, imports)
            if fixed is not None and buggy is not None:
                lines = fixed[0].count("\n")
                return Site(bug=name, file=hunk.file, fixed=fixed[0], buggy=buggy[0], changed=(1, lines),
                            pattern="order")
    return None


def order_fixes(bugs: Sequence[Bug], mutators: Sequence[AnyMutator]) -> OrderFixes:
    found, whole, rebuilt, moved = [], [], [], []
    reproduced: dict[str, tuple[str, ...]] = {}
    for bug in bugs:
        name = f"{bug.project}/{bug.number}"
        source_hunks = [hunk for hunk in hunks(bug.patch) if _is_source(hunk.file)]
        reordering = [hunk for hunk in source_hunks if reordered(hunk)]
        if not reordering:
            if _moves_a_line(source_hunks):
                moved.append(name)
            continue
        found.append(name)
        changing = [h for h in source_hunks if _code(_side(h.lines, "-")) != _code(_side(h.lines, "+"))]
        if len(changing) == len(reordering):
            whole.append(name)
        for hunk in reordering:
            site = order_site(name, hunk)
            if site is None:
                continue
            rebuilt.append(name)
            result = measure(site, mutators)
            if result.reproduced:
                reproduced[name] = tuple(dict.fromkeys(result.operators))
    return OrderFixes(bugs=tuple(found), whole=tuple(whole), rebuilt=tuple(dict.fromkeys(rebuilt)),
                      reproduced=reproduced, moved_among_edits=tuple(moved))


def report(fixes: OrderFixes) -> list[str]:
    by = ", ".join(f"{bug} by {' '.join(ops)}" for bug, ops in fixes.reproduced.items()) or "none"
    return [
        f"multi-statement order fixes (a hunk whose code lines are only reordered): {len(fixes.bugs)} "
        f"({', '.join(fixes.bugs) or 'none'}); {len(fixes.whole)} of them the whole fix; "
        f"{len(fixes.rebuilt)} rebuilt from the hunk; reproduced exactly: {len(fixes.reproduced)} ({by})",
        f"other fixes that move a line among other edits (an upper bound, not measured): "
        f"{len(fixes.moved_among_edits)}",
    ]
