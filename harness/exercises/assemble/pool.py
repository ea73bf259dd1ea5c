"""Which validated bugs a seed hands out: windows over one fixed sequence per problem.

A problem's candidate edits are put in one order that does not depend on the run's seed; the
builder validates them in that order and lines up the bugs (or K-bug groups) that qualify.
Seed `s` asking for `q` exercises takes items `s*q .. s*q+q-1` of that sequence, so seeds 0, 1,
2, ... hand out disjoint instances until the sequence runs out; only then does a seed wrap
around to items a lower seed already had, and the builder says so. The pure parts live here
(no runs): the window, and the order in which K-bug groups are formed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.mutators.mutant import Mutant

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Window(Generic[T]):
    """The items a seed takes; `total` is the whole sequence's length when the seed had to wrap
    around (its items repeat what lower seeds handed out), else None."""

    items: tuple[T, ...]
    total: int | None = None


def window(first: Callable[[int], Sequence[T]], seed: int, quota: int) -> Window[T]:
    """Seed `seed`'s `quota` items of the sequence whose first `n` items `first(n)` returns (fewer
    when the sequence is shorter). Seeds below the one that exhausts the sequence get disjoint
    windows; later seeds wrap around it, and a sequence shorter than `quota` gives what it has."""
    if seed < 0:
        raise ExerciseError(f"--seed must be 0 or more, not {seed}")
    end = (seed + 1) * quota
    items = list(first(end))
    if len(items) >= end:
        return Window(items=tuple(items[end - quota:end]))
    if len(items) <= quota:
        return Window(items=tuple(items), total=len(items) if seed and items else None)
    start = (seed * quota) % len(items)
    return Window(items=tuple(items[(start + i) % len(items)] for i in range(quota)), total=len(items))


def next_group(free: Sequence[Mutant], size: int, tried: set[frozenset[str]],
               accept: Callable[[Sequence[Mutant]], bool] = lambda group: True) -> list[Mutant] | None:
    """The first group of `size` mutants of `free`, each in its own function, not tried before,
    that `accept` takes (a test that needs no run: whether the bugs share a symptom).

    Groups are taken in colexicographic order (by their last member's position, then the
    others'): every group within the first n mutants comes before any group that needs a later
    one, so growing the pool at its end never changes the groups already formed from its start,
    and a seed's window stays where it was.
    """
    for last in range(size - 1, len(free)):
        for head in itertools.combinations(free[:last], size - 1):
            group = [*head, free[last]]
            places = {(m.file, m.function) for m in group}
            if len(places) == size and frozenset(m.id for m in group) not in tried and accept(group):
                return group
    return None

