"""An exercise's difficulty during a build: each bug's findability measured once (kept in the
store), the level of a group of bugs, whether it is the level asked for, and the handout each
exercise gets.

A medium or hard exercise's handout loses every comment and docstring sentence that states what
its bugs contradict (harness.exercises.measure.clues), and its level is that of the code as
handed out, without them. An easy exercise keeps them: a sentence that says what the line should
do is what makes it easy, and taking it away would make another exercise than the one measured.
When no level is asked, the level with the clues decides: easy keeps them, any other drops them
(and is measured again without them, which can only make it harder).

The builder (harness.exercises.assemble.selection) calls this; the evidence is harness.exercises.findability
and harness.exercises.measure.probes, the formula harness.exercises.measure.difficulty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bugsmith.harness.evaluate import combined_source
from bugsmith.harness.exercises.findability import Findability
from bugsmith.harness.exercises.measure.clues import clues_of, drop_clues
from bugsmith.harness.exercises.measure.difficulty import LEVEL_NAMES, difficulty, interacting, masked
from bugsmith.harness.exercises.measure.probes import Probes
from bugsmith.harness.exercises.records import Difficulty, ExerciseOptions, Symptom
from bugsmith.harness.store import Store
from bugsmith.mutators.mutant import Mutant

FINDABILITY_KIND = "exercise-findability"
FINDABILITY_VERSION = "findability/11"  # part of its cache key: a new measure re-measures
DROPPED_AT = ("medium", "hard")  # the levels whose handouts lose the sentences that give a bug away


class Levels:
    """The difficulty side of one problem's build."""

    def __init__(self, options: ExerciseOptions, probes: Probes, store: Store,
                 key: Callable[[Sequence[Mutant], str], str]) -> None:
        self.options = options
        self.probes = probes
        self.store = store
        self.key = key
        self.alone: dict[str, tuple[tuple[Symptom, ...], bool]] = {}  # mutant id -> its symptoms alone, silent

    def remember(self, mutant: Mutant, symptoms: tuple[Symptom, ...], silent: bool) -> None:
        """What `mutant` alone showed: its findability is measured on it."""
        self.alone[mutant.id] = (symptoms, silent)

    def may_fit(self, mutants: Sequence[Mutant]) -> bool:
        """Whether a group of bugs, each validated alone, can have the asked difficulty: told
        before the group's own run, which is the cost of trying it. Hard groups hide their bugs
        behind each other (`masked`): in blind trials, two bugs whose symptoms showed side by
        side were both fixed from the first run, in four steps."""
        return not (self.options.difficulty == "hard" and len(mutants) > 1 and not self.hidden(mutants))

    def fits(self, mutants: Sequence[Mutant], silent: bool) -> bool:
        """Whether an exercise of these bugs has the asked difficulty (any, when none is asked)."""
        if not self.options.difficulty:
            return True
        if not self.may_fit(mutants):
            return False  # hard K-bug exercises hide their bugs behind each other
        if self.options.bug_count > 1 or len(mutants) > 1:
            # A group's level is most often told by its bugs' surveys: the repair searches (most
            # of a build's time) run only when their outcome could change whether it fits.
            surveyed = self.findings(mutants, silent=silent, full=False, survey=True)
            low, high = _bounds(surveyed, lambda found: self._difficulty(found, mutants, silent).level)
            asked = LEVEL_NAMES.index(self.options.difficulty)
            if low == high or not low <= asked <= high:
                return low == high == asked
            found = self.findings(mutants, silent=silent, full=True)
        else:
            # One bug's level may be told before its repair search: skip that search if no result of it could fit.
            found = self.findings(mutants, silent=silent, full=False)
        return self._difficulty(found, mutants, silent).level == self.options.difficulty

    def score(self, mutants: Sequence[Mutant], silent: bool) -> tuple[tuple[Findability, ...], Difficulty]:
        """The evidence of every bug (repair search included) and the exercise's difficulty."""
        found = self.findings(mutants, silent=silent)
        return found, self._difficulty(found, mutants, silent)

    def _difficulty(self, found: Sequence[Findability], mutants: Sequence[Mutant], silent: bool) -> Difficulty:
        return difficulty(found, silent=silent, interact=self.interact(mutants), hidden=self.hidden(mutants))

    def interact(self, mutants: Sequence[Mutant]) -> bool:
        return interacting(self._failing_alone(mutants))

    def hidden(self, mutants: Sequence[Mutant]) -> bool:
        return masked(self._failing_alone(mutants))

    def _failing_alone(self, mutants: Sequence[Mutant]) -> list[list[str]]:
        return [[s.test for s in self.alone.get(m.id, ((), True))[0]] for m in mutants]

    def findings(self, mutants: Sequence[Mutant], *, silent: bool, full: bool = True,
                 survey: bool = False) -> tuple[Findability, ...]:
        """Each bug's evidence as its handout shows it: a medium or hard exercise's handout loses
        the comments and docstring sentences that state what its bugs contradict. With `survey`,
        no repair search runs (a record may say it was skipped)."""
        self._prepare(mutants, full)
        found = tuple(self._findability(m, full=full, survey=survey) for m in mutants)
        asked = self.options.difficulty
        if asked and asked not in DROPPED_AT:
            return found
        if not asked and self._difficulty(found, mutants, silent).level not in DROPPED_AT:
            return found
        # A name that contradicts its bug is the code itself: no handout drops it (measure.intent).
        return tuple(replace(f, intent=False, clue_dropped=True) if f.intent and not f.intent_in_code else f
                     for f in found)

    def handout(self, reference: str, group: Sequence[Mutant], mutants: Sequence[Mutant],
                found: Sequence[Findability]) -> str:
        """One file as handed out: `reference` with the bugs of `group` (all in that file), less
        the clues the evidence says were dropped; `mutants` and `found` are the whole exercise's."""
        dropped = [m for m, f in zip(mutants, found) if f.clue_dropped and m in group]
        clues = [clue for m in dropped for clue in clues_of(reference, mutants, m)]
        return drop_clues(combined_source(reference, group), clues)

    def _could_fit(self, survey: Findability, silent: bool) -> bool:
        """Whether some outcome of the repair search (found at once, or never) gives the asked level."""
        if self.options.difficulty in DROPPED_AT and survey.intent:
            survey = replace(survey, intent=False)  # its handout drops the comment
        low, high = _bounds([survey], lambda found: difficulty(found, silent=silent).level)
        return low <= LEVEL_NAMES.index(self.options.difficulty) <= high

    def _findability(self, mutant: Mutant, *, full: bool = True, survey: bool = False) -> Findability:
        """The evidence of how hard `mutant` alone is to find (cached: it costs runs); without
        `full`, a survey whose repair search ran only if the asked level depends on it; with
        `survey`, one whose search did not run."""
        cached = self._cached(mutant, full)
        if cached is not None:
            return cached
        symptoms, silent = self.alone.get(mutant.id, ((), True))
        found = self.probes.measure(mutant, [s.test for s in symptoms], [s.message for s in symptoms],
                                    search=lambda found: not survey and (full or self._could_fit(found, silent)))
        self.store.put_extra(FINDABILITY_KIND, self.key([mutant], FINDABILITY_VERSION), found.to_dict())
        return found

    def _prepare(self, mutants: Sequence[Mutant], full: bool) -> None:
        """The coverage of every bug whose evidence is to be measured, in one batch."""
        self.probes.cover([m for m in mutants if self._cached(m, full) is None])

    def _cached(self, mutant: Mutant, full: bool) -> Findability | None:
        """The stored evidence of `mutant`, if it is all that is asked (a search, with `full`)."""
        cached = self.store.extras_at(FINDABILITY_KIND, self.key([mutant], FINDABILITY_VERSION))
        if cached is not None and (cached.get("repair_searched", True) or not full):
            return Findability.from_dict(cached)
        return None


def _bounds(found: Sequence[Findability], level: Callable[[list[Findability]], str]) -> tuple[int, int]:
    """The level (its index) of `found` with every skipped repair search taken as repaired at the
    first try, then as not found: the score only grows with the tries, so any outcome lies between."""
    def ended(tries: int | None) -> list[Findability]:
        return [f if f.repair_searched else replace(f, repair_tries=tries, repair_searched=True) for f in found]

    return LEVEL_NAMES.index(level(ended(1))), LEVEL_NAMES.index(level(ended(None)))
