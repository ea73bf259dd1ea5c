"""Findability measured by real runs on the auc problem: a bug the tests and a comment point at
is easy; a silent bug the fault localisation ranks low and the repair search misses is hard."""

from __future__ import annotations

import pytest

from bugsmith.harness import config
from bugsmith.harness.discovery import source_files
from bugsmith.harness.evaluate import Evaluator
from bugsmith.harness.exercises.measure.difficulty import difficulty
from bugsmith.harness.exercises.measure.probes import Probes, visible_test_texts
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def auc():
    """An open Evaluator on auc, its visible tests, a Probes, and the problem's mutants."""
    problem = load_problems(config.builtin_root())["auc"]
    options = config.resolve(problem.root, problem.mutate, tests=problem.test_paths, jobs=2, exclude=problem.exclude)
    mutants = enumerate_mutants(source_files(options), root=problem.root, mutators=registry.select(())).mutants
    with Evaluator(options) as ev:
        visible = tuple(t for t in sorted(ev.tests) if not problem.is_hidden(t))
        yield ev, visible, Probes(ev, visible, visible_test_texts(problem.root, problem.visible)), mutants


def measured(auc, line_text: str, operator: str, mutated: str | None = None):
    ev, visible, probes, mutants = auc
    source = ev.sources["reference/auc/auc.py"]
    line = next(n for n, t in enumerate(source.splitlines(), 1) if line_text in t)
    bug = next(m for m in mutants if m.span.line == line and m.operator == operator
               and mutated in (None, m.mutated))
    verdict = ev.run([ev.job("v", [bug], tests=visible, stop_on_failure=False)])["v"]
    failed = [r for r in verdict.results if r.outcome == "failed"]
    assert failed, "the bug must fail a visible test"
    return probes.measure(bug, [r.id for r in failed], [r.message for r in failed])


def test_a_bug_under_its_intent_comment_and_named_by_a_test_is_easy(auc):
    """`keep = weights >= 0` under "Zero-weight samples must not even create a curve point",
    failing `test_zero_weight_sample_creates_no_point`: solved in minutes, whatever its rank."""
    found = measured(auc, "keep = weights > 0", "classic/comparison-boundary")
    assert found.intent and found.named and found.helper  # `_validated` is reached through roc_curve
    assert found.repair_searched and found.fl_lines > 0
    assert difficulty([found], silent=True).level == "easy"


def test_a_silent_bug_ranked_low_and_not_repaired_is_hard(auc):
    """`~positive` -> `positive` in roc_curve: every test runs the line, several lines rank above
    it, no single edit the search tries within its cap makes the visible tests pass."""
    found = measured(auc, "fps = np.cumsum(weights * ~positive)", "classic/drop-unary")
    assert found.fl_rank > 1 and found.repair_tries is None
    assert not found.intent and not found.named
    assert difficulty([found], silent=True).level == "hard"


def test_the_search_repairs_a_bug_whose_line_it_tries_first(auc):
    """With the bug's line the only suspicious one, the inverse edit is among the first tries."""
    ev, visible, probes, mutants = auc
    source = ev.sources["reference/auc/auc.py"]
    line = next(n for n, t in enumerate(source.splitlines(), 1) if "keep = weights > 0" in t)
    bug = next(m for m in mutants if m.span.line == line and m.operator == "classic/comparison-boundary")
    verdict = ev.run([ev.job("v", [bug], tests=visible, stop_on_failure=False)])["v"]
    failing = [r.id for r in verdict.results if r.outcome == "failed"]
    tries = probes.repair_tries(bug, {("reference/auc/auc.py", line): 1.0}, failing)
    assert tries is not None and tries <= 10


def test_a_groups_coverage_runs_in_one_batch_and_once(auc, monkeypatch):
    """The bugs of a group share the workers: one batch for both, and none again for either."""
    ev, visible, _, mutants = auc
    probes = Probes(ev, visible, [])
    batches: list[int] = []
    run = ev.run
    monkeypatch.setattr(ev, "run", lambda jobs: batches.append(len(jobs)) or run(jobs))
    first, second = [m for m in mutants if m.function is not None][:2]
    probes.cover([first, second, first])
    assert batches == [2]
    assert probes.lines_of(first) and probes.lines_of(second), "each bug's coverage was measured"
    assert batches == [2]


def test_a_bug_that_makes_numpy_warn_at_its_line_shows_itself(auc):
    """`weights * positive` -> `weights / positive`: the visible tests' run divides by zero on the
    bug's line, numpy warns there and pytest prints the place; the same line's twin (`fps`) is
    broken too. A flipped comparison elsewhere warns nowhere."""
    found = measured(auc, "tps = np.cumsum(weights * positive)", "classic/arithmetic-swap")
    assert found.warns and found.twin_broken and found.shown
    quiet = measured(auc, "keep = weights > 0", "classic/comparison-boundary")
    assert not quiet.warns


def test_a_guard_that_now_fires_on_good_input_shows_itself_by_its_traceback(auc):
    """`not positive.any()` -> `positive.any()`: every valid input raises "y_true must contain both
    classes", pytest's report ends at that `raise`, and the guard above it is the bug. A silent
    bug (`~positive` dropped in roc_curve) fails by wrong values: no traceback ends in the code."""
    loud = measured(auc, "if positive.all() or not positive.any():", "classic/drop-unary")
    assert loud.raised and loud.shown
    silent = measured(auc, "fps = np.cumsum(weights * ~positive)", "classic/drop-unary")
    assert not silent.raised


def test_a_value_the_raising_guard_reads_shows_itself_by_the_traceback_below_it(auc):
    """`labels[keep] == 1` -> `== 2`: no label is positive, the guard on the next line raises, and a
    reader goes up from the traceback's last line to the line above it."""
    found = measured(auc, "positive = labels[keep] == 1", "classic/number", mutated="2")
    assert found.raised
