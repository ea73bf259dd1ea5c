"""The top-level statement that holds a mutant, cut out of the mutated file.

A worker activates a mutant by compiling it and taking one function's code object. Compiling
the whole mutated file of a large module costs more than running most mutants; compiling
only the top-level statement (function or class) around the site costs a fraction of that.
Blank lines in front keep every line number, so tracebacks and coverage still point at the
file's real lines.
"""

from __future__ import annotations

import ast

from bugsmith.mutators.mutant import Mutant, line_starts

Ranges = tuple[tuple[int, int], ...]  # first and last line of each top-level statement


def statement_ranges(source: str) -> Ranges:
    """Line ranges of the module's top-level statements, decorators included."""
    ranges = []
    for node in ast.parse(source).body:
        decorators = getattr(node, "decorator_list", ())
        first = min([node.lineno, *(d.lineno for d in decorators)])
        ranges.append((first, node.end_lineno or node.lineno))
    return tuple(ranges)


def mutated_unit(mutant: Mutant, source: str, mutated: str, ranges: Ranges) -> str:
    """The mutated text of the statement that holds `mutant`, at its own lines; "" if the
    change is not inside one statement (then the worker compiles the whole file)."""
    span = mutant.span
    inside = [(lo, hi) for lo, hi in ranges if lo <= span.line and span.end_line <= hi]
    if not inside:
        return ""
    first, last = inside[0]
    starts = line_starts(source)  # the original's, cached: the text before the unit is the same
    end = starts[last] if last < len(starts) else len(source)
    return "\n" * (first - 1) + mutated[starts[first - 1]:end + len(mutated) - len(source)]

