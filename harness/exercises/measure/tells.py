"""What the code itself shows of a bug to a reader who runs nothing: a name the bug left unread,
or a line written unlike its twin.

`precision, recall, _ = curve(...)` then `return float(np.sum(precision[:-1]))`: the bug took
away the only read of `recall`, and every linter (pyflakes' "assigned but never used", an
editor's grey name) points at the function, and the reader asks why `recall` is computed.
Blind solvers named exactly that as what gave such bugs away. A bug that leaves a parameter or
a local of its function bound and never read, where the original read it, shows itself as a
stated intent does (harness.exercises.measure.difficulty caps it alike), and no handout can
drop it: it is the code.

Code written as a pair shows an edit of one half the same way: `fps = np.cumsum(weights /
~positive)` under `tps = np.cumsum(weights * positive)`, `tpr = tps[-1] / ...` beside `fpr = ...
/ fps[-1]`. Solvers read the two lines together and see the one that differs (`breaks_twin`).

A loop's item and its collection read apart at a glance: `for window in windows:` above
`name = f"{value}_{stat}_{windows}"` is a line a reader stops at (`swaps_loop_names`).

A guard that now fires on good input shows itself at once: `if not 0 <= block > n: raise
ValueError(f"block {block} is not in 0 .. {n}")` fails a test with "block 0 is not in 0 .. 5",
the traceback ends at the `raise`, and the condition above it is the bug. Blind solvers named the
self-contradicting message as what gave four of five such bugs away (`guarded_raises` finds the
`raise` lines whose guard the bug changed or removed; the probes say whether a failing test ran one).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from bugsmith.mutators.analysis.twins import all_twins
from bugsmith.mutators.mutant import Mutant

_IGNORED = frozenset({"self", "cls"})  # a method need not read its receiver


def unread_by(source: str, bug: Mutant) -> tuple[str, ...]:
    """The names the function holding `bug` binds and never reads once the bug is in, that it
    read in `source`; sorted. Empty when either version does not parse or the bug is outside
    any function."""
    try:
        before, after = ast.parse(source), ast.parse(bug.apply(source))
    except (SyntaxError, ValueError):
        return ()
    original, buggy = _outermost(before, bug.span.line), _outermost(after, bug.span.line)
    if original is None or buggy is None:
        return ()
    return tuple(sorted(_unread(buggy) - _unread(original)))


def _holding(tree: ast.Module, line: int) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function whose lines hold `line`, nested ones included."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno <= line <= (node.end_lineno or node.lineno)]


def _outermost(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The outermost function whose lines hold `line`: names it binds may be read by inner ones."""
    return min(_holding(tree, line), key=lambda node: node.lineno, default=None)


def _unread(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters and names `function` (nested functions included) binds and never reads;
    `_`-prefixed names are meant to be unread, and `x += 1` reads `x`."""
    arguments = function.args
    bound = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    bound |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    read: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load | ast.Del) else bound).add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            read.add(node.target.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            read.update(node.names)  # bound for another scope to read
    return {name for name in bound - read if not name.startswith("_") and name not in _IGNORED}


def breaks_twin(source: str, bug: Mutant) -> bool:
    """Whether `bug` is inside one of two twins (code written as a pair: `tps = np.cumsum(w *
    positive)` above `fps = np.cumsum(w * ~positive)`, mutators.analysis.twins) that are twins no
    more once it is in, or differ in more code: the reader sees the line written unlike its pair.
    Only for a bug that keeps the file's lines where they were."""
    mutated = bug.apply(source)
    if source.count("\n") != mutated.count("\n"):
        return False
    span = bug.span
    start, end = (span.line, span.column), (span.end_line, span.end_column)
    try:
        held = [(key, apart) for key, apart, members in _twin_places(source)
                if any(a <= start and end <= b for a, b in members)]
        if not held:
            return False  # most bugs are in no twin: the buggy file need not be read
        after = _twin_places(mutated)
    except cst.ParserSyntaxError:
        return False
    for key, apart in held:
        now = [distance for other, distance, _ in after if other == key]
        if not now or min(now) > apart:
            return True
    return False


_Place = tuple[int, int]


_Key = tuple[int, int, str, str]


@functools.lru_cache(maxsize=8)  # the original file, asked again for each of its bugs
def _twin_places(source: str) -> list[tuple[_Key, int, tuple[tuple[_Place, _Place], ...]]]:
    """Each twin pair of `source`: a key that survives an edit on one line (the members' first
    lines and kinds), how much code they differ in, and each member's (start, end) position."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    where = wrapper.resolve(PositionProvider)
    found: list[tuple[_Key, int, tuple[tuple[_Place, _Place], ...]]] = []
    for twins in all_twins(wrapper.module):
        first, second = where[twins.first], where[twins.second]
        key = (first.start.line, second.start.line, type(twins.first).__name__, type(twins.second).__name__)
        members = tuple(((r.start.line, r.start.column), (r.end.line, r.end.column)) for r in (first, second))
        found.append((key, twins.distance(), members))
    return found


def swaps_loop_names(source: str, bug: Mutant) -> bool:
    """Whether `bug` puts, in the body of `for item in items:`, `items` where `item` was read or
    `item` where `items` was."""
    pair = {bug.original.strip(), bug.mutated.strip()}
    if len(pair) != 2 or not all(name.isidentifier() for name in pair):
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    line = bug.span.line
    for node in ast.walk(tree):
        if (isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.target, ast.Name)
                and isinstance(node.iter, ast.Name) and {node.target.id, node.iter.id} == pair
                and node.body[0].lineno <= line <= (node.body[-1].end_lineno or node.body[-1].lineno)):
            return True
    return False


def guarded_raises(source: str, bug: Mutant) -> tuple[int, ...]:
    """The lines, in the buggy file, of each `raise` whose guard `bug` changed (its span meets the
    test of the `if` the `raise` stands in; a bug that keeps the file's lines, so that the span
    reads the same in both) or removed (its span holds that whole `if`, and the `raise` is left
    in its place). Only for a bug that parses."""
    mutated = bug.apply(source)
    try:
        before = _guards(source)
        after = _guards(mutated)
    except cst.ParserSyntaxError:
        return ()
    span = bug.span
    start, end = (span.line, span.column), (span.end_line, span.end_column)
    lines: set[int] = set()
    if source.count("\n") == mutated.count("\n"):
        lines |= {line for test, _, raises in after if test[0] <= end and start <= test[1] for line in raises}
    if bug.mutated.strip() and any(start <= whole[0] and whole[1] <= end for _, whole, _ in before):
        # The guard is gone and its body stands in its place: the raise now fires unguarded.
        region_end = span.line + bug.mutated.count("\n")
        lines |= {line for line in _raise_lines(mutated) if span.line <= line <= region_end}
    return tuple(sorted(lines))


_Range = tuple[_Place, _Place]


@functools.lru_cache(maxsize=8)  # the original file, asked again for each of its bugs
def _guards(source: str) -> list[tuple[_Range, _Range, tuple[int, ...]]]:
    """Each `if` whose own body raises: its test's range, its whole range, the `raise` lines."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    where = wrapper.resolve(PositionProvider)
    found = []
    for node in where:
        if not isinstance(node, cst.If) or not isinstance(node.body, cst.IndentedBlock):
            continue
        raises = tuple(where[small].start.line for line in node.body.body
                       if isinstance(line, cst.SimpleStatementLine)
                       for small in line.body if isinstance(small, cst.Raise))
        if raises:
            test, whole = where[node.test], where[node]
            found.append((((test.start.line, test.start.column), (test.end.line, test.end.column)),
                          ((whole.start.line, whole.start.column), (whole.end.line, whole.end.column)), raises))
    return found


def _raise_lines(source: str) -> list[int]:
    wrapper = MetadataWrapper(cst.parse_module(source))
    where = wrapper.resolve(PositionProvider)
    return [where[node].start.line for node in where if isinstance(node, cst.Raise)]


def same_function(source: str, line: int, others: Sequence[int]) -> bool:
    """Whether one of `others` lies in the innermost function of `source` that holds `line`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    holding = _holding(tree, line)
    if not holding:
        return False
    inner = max(holding, key=lambda node: node.lineno)
    return any(inner.lineno <= other <= (inner.end_lineno or inner.lineno) for other in others)
