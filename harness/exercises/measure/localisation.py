"""Spectrum-based fault localisation: where the visible tests' coverage says a bug most likely is.

Ochiai's suspiciousness of a line is `failed(line) / sqrt(failed_total * (failed(line) + passed(line)))`,
from which tests ran the line and which of them failed. The rank of the bug's line among all lines
says how far an automatic debugger (or a candidate reading the coverage) has to look: rank 1 means
the visible tests alone point at the line. Ties are split at their middle, so a bug that ties with
nine other lines is not called first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bugsmith.harness.shared.tasks import LineMap
from bugsmith.mutators.mutant import Mutant

Line = tuple[str, int]  # file (relative), line number


@dataclass(frozen=True, slots=True, kw_only=True)
class Localisation:
    """Where the bug's line ranks (1 = most suspicious) among the `ranked` lines a failing test ran."""

    rank: int  # ranked + 1 when no failing test runs the bug's lines
    ranked: int
    suspiciousness: float


def ochiai(lines: LineMap, failed: Iterable[str]) -> dict[Line, float]:
    """The Ochiai suspiciousness of every line that at least one failing test ran."""
    failing = frozenset(failed)
    if not failing:
        return {}
    scores = {}
    for file, by_line in lines.items():
        for number, tests in by_line.items():
            ran_failing = sum(1 for t in tests if t in failing)
            if ran_failing:
                scores[(file, number)] = ran_failing / math.sqrt(len(failing) * len(tests))
    return scores


def rank_of(scores: Mapping[Line, float], candidates: Iterable[Line]) -> Localisation:
    """The best (middle-of-ties) rank among `candidates`, the lines the bug occupies."""
    values = sorted(scores.values(), reverse=True)
    best: Localisation | None = None
    for line in candidates:
        if line not in scores:
            continue
        value = scores[line]
        above = sum(1 for v in values if v > value + 1e-12)
        tied = sum(1 for v in values if abs(v - value) <= 1e-12)
        found = Localisation(rank=above + math.ceil(tied / 2) if tied > 1 else above + 1, ranked=len(values),
                             suspiciousness=round(value, 6))
        if best is None or found.rank < best.rank:
            best = found
    return best or Localisation(rank=len(values) + 1, ranked=len(values), suspiciousness=0.0)


def locate(scores: Mapping[Line, float], mutants: Sequence[Mutant], bug: Mutant) -> Localisation:
    """The rank of `bug` in the program with all `mutants` applied (an earlier edit in the same file
    that adds or removes lines shifts it). A deleted statement leaves nothing to cover on its own
    line: then the line after it stands for it."""
    shift = sum(m.mutated.count("\n") - m.original.count("\n") for m in mutants
                if m.file == bug.file and m.span.line < bug.span.line)
    start = bug.span.line + shift
    end = start + bug.mutated.count("\n")
    found = rank_of(scores, [(bug.file, n) for n in range(start, end + 1)])
    if found.rank > found.ranked:
        found = rank_of(scores, [(bug.file, end + 1)])
    return found
