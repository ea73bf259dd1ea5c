"""How many exercises a problem can give: its pool per bug family (`bugsmith exercises --stats`).

The pool is what the builder draws from: candidate edits (eligible, without a machine's trace)
and, once each has run against the visible tests and then against every test, the validated
silent and loud single bugs. Validation goes through the builder and its cache, so the first
call on a problem runs every candidate (minutes) and the next one re-runs nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.exercises.assemble.selection import ProblemBuilder, asked_problems
from bugsmith.harness.exercises.records import ExerciseOptions
from bugsmith.mutators import registry
from bugsmith.mutators.mutant import Family

Seen = Callable[[str, int, int], None]  # problem, candidates run so far, candidates


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyPool:
    """One family's part of a problem's pool."""

    family: str
    candidates: int
    silent: int
    loud: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ProblemPool:
    """A problem's pool, family by family (domain families first, as the builder tries them)."""

    problem: str
    families: tuple[FamilyPool, ...]

    @property
    def candidates(self) -> int:
        return sum(f.candidates for f in self.families)

    @property
    def silent(self) -> int:
        return sum(f.silent for f in self.families)

    @property
    def loud(self) -> int:
        return sum(f.loud for f in self.families)


def pool_stats(options: ExerciseOptions, *, root: Path | None = None, jobs: int | None = None,
               seen: Seen | None = None) -> tuple[ProblemPool, ...]:
    """The pool of each problem `options` names (all by default), restricted to its families."""
    root, known, problems = asked_problems(options, root)
    mutators = registry.select(options.families)
    single = ExerciseOptions(problems=options.problems, families=options.families, count=1, bugs=1)
    pools = []
    for problem in problems:
        builder = ProblemBuilder(known[problem], single, mutators, jobs, None)
        told = None if seen is None else (lambda done, total, p=problem: seen(p, done, total))
        silent, loud = builder.validate_all(told)
        candidates = Counter(m.family for m in builder.candidates)
        silent_by = Counter(e.mutants[0].family for e in silent)
        loud_by = Counter(e.mutants[0].family for e in loud)
        pools.append(ProblemPool(problem=problem, families=tuple(
            FamilyPool(family=family.value, candidates=candidates[family], silent=silent_by[family],
                       loud=loud_by[family])
            for family in Family if candidates[family])))
    return tuple(pools)
