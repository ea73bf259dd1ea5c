"""A score within a time budget: the sample grows in rounds while time lasts, each round priced
by the one before; the last finished round is the result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bugsmith.harness.budget import (
    FEWEST,
    INTERRUPTED,
    INTERRUPTED_AFTER_SAMPLE,
    SAMPLE_FIRST_LINES,
    cut_short,
    next_size,
    parse_budget,
    run_sample_first,
    run_within,
)
from bugsmith.harness.config import RunOptions
from bugsmith.harness.outcome import Outcome, RunResult, Status
from bugsmith.harness.sampling import SampleSpec


class FakeRuns:
    """Runs that cost `per_mutant` seconds for each mutant the store has no verdict for, plus
    `start_up` seconds, on a clock they advance."""

    def __init__(self, population: int, per_mutant: float, start_up: float = 1.0) -> None:
        self.population, self.per_mutant, self.start_up = population, per_mutant, start_up
        self.now, self.decided, self.sizes = 0.0, 0, []

    def clock(self) -> float:
        return self.now

    def run(self, options: RunOptions) -> RunResult:
        assert options.sample is not None
        size = min(options.sample.count, self.population)
        self.sizes.append(size)
        self.now += self.start_up + self.per_mutant * max(0, size - self.decided)
        self.decided = max(self.decided, size)
        return RunResult(root="/p", started="", duration=0.0,
                         options={"sample": {"seed": options.sample.seed, "population": self.population,
                                             "size": size}},
                         mutants=(), outcomes=tuple(Outcome(mutant_id=str(i), status=Status.KILLED)
                                                    for i in range(size)), tests=())


def options() -> RunOptions:
    return RunOptions(root=Path("/p"), paths=("pkg",), tests=("tests",))


def test_the_sample_grows_while_time_lasts_and_stops_before_the_budget() -> None:
    runs = FakeRuns(population=10_000, per_mutant=0.05)
    result = run_within(options(), 60, runs.run, seed=4, clock=runs.clock)
    assert runs.sizes[0] == FEWEST and runs.sizes == sorted(runs.sizes) and len(runs.sizes) >= 3
    assert runs.now <= 60 + runs.start_up  # a round is planned to fit; only start-up can overrun
    assert len(result.outcomes) == runs.sizes[-1] > 500
    assert result.options["sample"]["seed"] == 4


def test_a_budget_that_buys_every_mutant_ends_in_a_full_run() -> None:
    runs = FakeRuns(population=300, per_mutant=0.01)
    result = run_within(options(), 600, runs.run, clock=runs.clock)
    assert runs.sizes[-1] == 300 and len(result.outcomes) == 300


def test_a_budget_spent_by_the_first_round_still_gives_its_score() -> None:
    runs = FakeRuns(population=10_000, per_mutant=1.0)
    result = run_within(options(), 5, runs.run, clock=runs.clock)
    assert runs.sizes == [FEWEST] and len(result.outcomes) == FEWEST


def test_a_round_is_priced_by_the_new_mutants_of_the_last() -> None:
    assert next_size(done=100, total=10_000, spent_on_new=10.0, new=100, left=50.0) == 100 + 400  # 0.8 x 50 / 0.1
    assert next_size(done=100, total=300, spent_on_new=1.0, new=100, left=50.0) == 300
    assert next_size(done=100, total=10_000, spent_on_new=0.0, new=0, left=50.0) == 200


def test_each_finished_round_is_told_with_the_time_left() -> None:
    runs = FakeRuns(population=10_000, per_mutant=0.05)
    told: list[tuple[int, float]] = []
    run_within(options(), 60, runs.run, clock=runs.clock, on_round=lambda r, left: told.append((len(r.outcomes), left)))
    assert [size for size, _ in told] == runs.sizes
    assert [left for _, left in told] == sorted((left for _, left in told), reverse=True) and told[0][1] < 60


def test_ctrl_c_during_a_later_round_keeps_the_last_finished_one() -> None:
    """The rounds before are valid samples: an interrupted budgeted run still gives a score,
    and says it was cut short. Interrupted in its first round, it has none to give."""
    runs = FakeRuns(population=10_000, per_mutant=0.05)
    real = runs.run

    def third_interrupted(chosen: RunOptions) -> RunResult:
        if len(runs.sizes) == 2:
            raise KeyboardInterrupt
        return real(chosen)

    result = run_within(options(), 60, third_interrupted, clock=runs.clock)
    assert len(result.outcomes) == runs.sizes[-1] == runs.sizes[1] and result.warnings == (INTERRUPTED,)
    with pytest.raises(KeyboardInterrupt):
        run_within(options(), 60, lambda chosen: (_ for _ in ()).throw(KeyboardInterrupt), clock=runs.clock)


def _full_or_sampled(seen: list[RunOptions]):
    def run(chosen: RunOptions) -> RunResult:
        seen.append(chosen)
        size = 10 if chosen.sample is not None else 100
        sample = {"sample": {"seed": chosen.sample.seed, "population": 100, "size": size}} if chosen.sample else {}
        return RunResult(root="/p", started="", duration=0.0, options=sample, mutants=(), tests=(),
                         outcomes=tuple(Outcome(mutant_id=str(i), status=Status.KILLED) for i in range(size)))
    return run


def test_a_big_full_run_takes_its_sample_first_and_tells_it() -> None:
    """The 10 % sample `--sample 10%` takes, told as soon as it is in, then every mutant."""
    seen: list[RunOptions] = []
    told: list[RunResult] = []
    result = run_sample_first(options(), _full_or_sampled(seen), SAMPLE_FIRST_LINES, seed=7, on_sample=told.append)
    assert [o.sample for o in seen] == [SampleSpec(percent=10.0, seed=7), None]
    assert len(told) == 1 and len(told[0].outcomes) == 10 and len(result.outcomes) == 100


def test_a_small_run_or_a_chosen_few_run_at_once() -> None:
    for lines, chosen in ((SAMPLE_FIRST_LINES - 1, options()), (10**6, replace(options(), since="main")),
                          (10**6, replace(options(), mutant_ids=("abc",)))):
        seen: list[RunOptions] = []
        run_sample_first(chosen, _full_or_sampled(seen), lines)
        assert [o.sample for o in seen] == [None]


def test_ctrl_c_after_the_sample_keeps_its_estimate() -> None:
    seen: list[RunOptions] = []
    sampled = _full_or_sampled(seen)

    def interrupted_when_full(chosen: RunOptions) -> RunResult:
        if chosen.sample is None:
            raise KeyboardInterrupt
        return sampled(chosen)

    result = run_sample_first(options(), interrupted_when_full, SAMPLE_FIRST_LINES)
    assert len(result.outcomes) == 10 and result.warnings == (INTERRUPTED_AFTER_SAMPLE,) and cut_short(result)


@pytest.mark.parametrize(("text", "seconds"), [("90", 90.0), ("90s", 90.0), ("2m", 120.0), ("1.5h", 5400.0)])
def test_a_budget_is_a_duration(text: str, seconds: float) -> None:
    assert parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "2x", "-5s", "m"])
def test_anything_else_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError, match="--budget takes a positive duration"):
        parse_budget(text)


def test_the_lines_to_mutate_are_those_of_the_files_to_mutate(tmp_path: Path) -> None:
    from bugsmith.harness.discovery import lines_to_mutate

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    return 3\n\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test():\n    pass\n")
    assert lines_to_mutate(RunOptions(root=tmp_path, paths=("pkg",), tests=("tests",))) == 5
