"""The repair search, run for real, finds a dropped `not` in every problem: no operator of the
engine inserts one, so before the undo edits such a bug was "not found" by construction (the
scheduler's `if self._fits(...): break` was labelled hard for that alone)."""

from __future__ import annotations

import re

import pytest

from bugsmith.harness import config
from bugsmith.harness.discovery import source_files
from bugsmith.harness.evaluate import Evaluator
from bugsmith.harness.exercises.measure.clues import code_shape
from bugsmith.harness.exercises.measure.localisation import ochiai
from bugsmith.harness.exercises.measure.probes import REPAIR_CAP, Probes, visible_test_texts
from bugsmith.harness.exercises.sources.catalogue import load_problems, reference_names
from bugsmith.harness.shared.protocol import TestOutcome
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants

pytestmark = pytest.mark.slow

# The guard each built-in problem's test takes its dropped `not` (or `~`) from, by the line's text;
# a problem with none of these lines takes its first `if not` guard whose bug a visible test sees.
GUARDS = frozenset({
    "if not q.shape[:-2] == k.shape[:-2]", "if not binary.all()", 'if not hasattr(self, "estimators_")',
    "if not 0 <= block < self._num_blocks", "if not items:", "if not self._fits(entry.request, budget)",
    "if not math.isfinite(smoothing)",
})
GUARD = re.compile(r"\s*(el)?if not ")


def _dropped_not(ev, mutants, visible):
    """The drop-unary bug of a listed guard, else of the first `if not` guard a visible test fails on."""
    line = {m.id: ev.sources[m.file].splitlines()[m.span.line - 1] for m in mutants}
    listed = [m for m in mutants if any(guard in line[m.id] for guard in GUARDS)]
    if listed:
        return listed[0]
    guards = [m for m in mutants if GUARD.match(line[m.id])]
    verdicts = ev.run([ev.job(m.id, [m], tests=visible, stop_on_failure=True) for m in guards])
    return next(m for m in guards if any(r.outcome == TestOutcome.FAILED for r in verdicts[m.id].results))


@pytest.mark.parametrize("problem", reference_names(config.builtin_root()))
def test_the_search_puts_a_dropped_not_back(problem):
    """The bug fails a visible test; the search, told nothing of it, tries the undo edit that puts
    the `not` back within its cap, and the visible tests pass by then."""
    found = load_problems(config.builtin_root())[problem]
    options = config.resolve(found.root, found.mutate, tests=found.test_paths, jobs=2, exclude=found.exclude)
    mutants = enumerate_mutants(source_files(options), root=found.root,
                                mutators=registry.select(operators=["classic/drop-unary"])).mutants
    with Evaluator(options) as ev:
        visible = tuple(t for t in sorted(ev.tests) if not found.is_hidden(t))
        probes = Probes(ev, visible, visible_test_texts(found.root, found.visible))
        bug = _dropped_not(ev, mutants, visible)
        verdict = ev.run([ev.job("v", [bug], tests=visible, stop_on_failure=False)])["v"]
        failing = [r.id for r in verdict.results if r.outcome == TestOutcome.FAILED]
        assert failing, "an exercise's bug fails a visible test"
        scores = ochiai(probes.lines_of(bug) or {}, failing)
        tries = probes.repair_tries(bug, scores, failing)
        tried = probes.repair_candidates(bug, scores)[:REPAIR_CAP]
        buggy, reference = bug.apply(ev.sources[bug.file]), ev.sources[bug.file]
        inverse = [i for i, e in enumerate(tried) if e.file == bug.file and code_shape(e.apply(buggy)) == code_shape(reference)]
        assert inverse, f"{problem}: the edit that puts the `not` back is not among the tries"
        assert tried[inverse[0]].operator.startswith("undo/")
        assert tries is not None and tries <= inverse[0] + 1  # another edit may pass the visible tests first
