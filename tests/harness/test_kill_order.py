"""The order a mutant's tests run in: fewest expected seconds to the first failure."""

from __future__ import annotations

from pathlib import Path

from bugsmith.harness.config import RunOptions
from bugsmith.harness.job_plan import Tally, cheapest_kill_order, kill_probability
from bugsmith.harness.mutation_run.kill_order import KillOrder
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.shared.protocol import Job

DURATIONS = {"fast": 0.002, "medium": 0.02, "slow": 0.32}


def tally(kills: dict[str, int], tries: dict[str, int]) -> Tally:
    history = Tally()
    history.kills.update(kills)
    history.tries.update(tries)
    return history


def test_without_history_the_fastest_runs_first() -> None:
    order = cheapest_kill_order(["slow", "fast", "medium"], DURATIONS, Tally(), Tally(), prior=0.5)
    assert order == ("fast", "medium", "slow")


def test_a_slow_test_that_always_kills_goes_after_cheap_untried_ones_but_before_the_ones_that_never_kill() -> None:
    function = tally({"slow": 5}, {"slow": 5, "medium": 5, "fast": 5})
    order = cheapest_kill_order(["slow", "fast", "medium", "new"], {**DURATIONS, "new": 0.001}, function,
                                Tally(), prior=0.2)
    # new: 0.002 / 0.2 = 0.01; slow: 0.321 / (5.2 / 6) = 0.37; fast: 0.003 / (0.2 / 6) = 0.09
    # medium: 0.021 / (0.2 / 6) = 0.63
    assert order == ("new", "fast", "slow", "medium")


def test_a_test_that_keeps_passing_loses_its_place_to_a_slower_one_that_kills() -> None:
    function = tally({"medium": 3}, {"medium": 3, "fast": 30})
    assert cheapest_kill_order(["fast", "medium"], DURATIONS, function, Tally(), prior=0.5) == ("medium", "fast")


def test_the_file_stands_in_for_a_function_with_no_history() -> None:
    file = tally({"medium": 4}, {"medium": 4, "fast": 4})
    assert cheapest_kill_order(["fast", "medium"], DURATIONS, Tally(), file, prior=0.5) == ("medium", "fast")
    # ... but the function's own record outweighs it
    function = tally({"fast": 3}, {"fast": 3, "medium": 3})
    assert cheapest_kill_order(["fast", "medium"], DURATIONS, function, file, prior=0.5) == ("fast", "medium")


def test_kill_probability_is_shrunk_towards_the_level_above() -> None:
    assert kill_probability("t", Tally(), Tally(), prior=0.3) == 0.3
    assert kill_probability("t", Tally(), tally({"t": 1}, {"t": 1}), prior=0.0) == 0.5  # one kill in one try, against a prior of 0
    assert kill_probability("t", tally({}, {"t": 3}), tally({"t": 1}, {"t": 1}), prior=0.0) == 0.125


def test_kill_order_learns_kills_and_passes_of_the_same_function() -> None:
    by_id = {name: TestInfo(id=name, file="tests/test_a.py", duration=d) for name, d in DURATIONS.items()}
    scopes = {"m1": ("a.py", "f"), "m2": ("a.py", "f"), "m3": ("a.py", "g")}
    order = KillOrder(scopes, by_id, RunOptions(root=Path("."), paths=("a.py",), tests=("tests",)))
    tests = ("fast", "medium", "slow")
    for mutant in ("m1", "m2"):
        order.learn(mutant, Outcome(mutant_id=mutant, status=Status.KILLED, killed_by=("slow",),
                                    covered_by=tests, tests_run=3))
    job = order.prepare(Job(mutant_id="m4", module="a", path="a.py", function="f", source="", tests=tests,
                            timeout=10.0, limits=(1.0, 2.0, 3.0)))
    assert order.prepare(Job(mutant_id="m1", module="a", path="a.py", function="f", source="", tests=tests,
                             timeout=10.0, limits=(1.0, 2.0, 3.0))).tests == ("fast", "slow", "medium")
    assert job.tests == tests  # not a mutant of the run: no scope, no history
    assert order.tallies[("a.py", "f")].tries["fast"] == 2
    assert order.tallies["a.py"].kills["slow"] == 2


def test_the_test_that_killed_a_mutant_of_the_same_line_goes_first() -> None:
    """Two tests of one cost: in the function `b` killed rarely and `a` often; on the mutant's
    own line `b` killed the one mutant run so far: it goes first there, and only there."""
    durations = {"a": 0.01, "b": 0.01}
    function = tally({"a": 5, "b": 1}, {"a": 10, "b": 10})
    line = tally({"b": 1}, {"a": 1, "b": 1})
    assert cheapest_kill_order(["a", "b"], durations, function, Tally(), prior=0.5) == ("a", "b")
    assert cheapest_kill_order(["a", "b"], durations, function, Tally(), prior=0.5, line=line) == ("b", "a")
    # no history on the line: the function's estimate, unchanged
    assert kill_probability("b", function, Tally(), 0.5, line=Tally()) == kill_probability("b", function, Tally(), 0.5)


def test_kill_order_learns_the_line_of_each_mutant() -> None:
    """m1 (line 3) was killed by `c`, m3 (line 4) by `a`: the next mutants of line 3 run `c`
    first, those of line 4 `a`, though the function's record of the two is the same."""
    by_id = {name: TestInfo(id=name, file="tests/test_a.py", duration=0.01) for name in "abc"}
    scopes = {m: ("a.py", "f") for m in ("m1", "m2", "m3", "m4", "m5")}
    order = KillOrder(scopes, by_id, RunOptions(root=Path("."), paths=("a.py",), tests=("tests",)),
                      lines={"m1": 3, "m2": 3, "m3": 4, "m4": 3, "m5": 4})
    tests = ("a", "b", "c")
    order.learn("m1", Outcome(mutant_id="m1", status=Status.KILLED, killed_by=("c",), covered_by=("a", "b", "c"),
                              tests_run=3))
    order.learn("m3", Outcome(mutant_id="m3", status=Status.KILLED, killed_by=("a",), covered_by=("c", "b", "a"),
                              tests_run=3))

    def prepared(mutant: str) -> tuple[str, ...]:
        return order.prepare(Job(mutant_id=mutant, module="a", path="a.py", function="f", source="", tests=tests,
                                 timeout=10.0, limits=(1.0, 2.0, 3.0))).tests

    assert prepared("m4")[0] == prepared("m2")[0] == "c"
    assert prepared("m5")[0] == "a"
    assert order.tallies[("a.py", "f", 3)].kills["c"] == 1 and order.tallies[("a.py", "f", 4)].kills["a"] == 1


def test_the_mutants_of_one_function_are_spread_over_the_run() -> None:
    """One mutant of each function per round, in the jobs' order: f's second mutant runs after
    g's first, when f's first has had time to teach the order which test kills there."""
    scopes = {"f1": ("a.py", "f"), "f2": ("a.py", "f"), "f3": ("a.py", "f"), "g1": ("a.py", "g"),
              "h1": ("b.py", "f"), "h2": ("b.py", "f")}
    order = KillOrder(scopes, {}, RunOptions(root=Path("."), paths=("a.py",), tests=("tests",)))
    jobs = [Job(mutant_id=m, module="a", path="a.py", function="f", source="", tests=(), timeout=1.0)
            for m in ("f1", "f2", "f3", "g1", "h1", "h2", "unknown")]
    assert [job.mutant_id for job in order.interleave(jobs)] == ["f1", "g1", "h1", "unknown", "f2", "h2", "f3"]


def test_two_mutants_of_one_line_are_never_sent_back_to_back() -> None:
    """f's mutants on lines 3, 3, 3, 4, 4, 5, alone in the run: the first of each line, then the
    second of each, then the third, so the second on a line is prepared after its sibling's
    verdict (the test that killed it goes first) rather than beside it."""
    lines = {"a": 3, "b": 3, "c": 3, "d": 4, "e": 4, "f": 5}
    order = KillOrder({m: ("a.py", "f") for m in lines}, {}, RunOptions(root=Path("."), paths=("a.py",), tests=("tests",)),
                      lines=lines)
    jobs = [Job(mutant_id=m, module="a", path="a.py", function="f", source="", tests=(), timeout=1.0) for m in lines]
    assert [job.mutant_id for job in order.interleave(jobs)] == ["a", "d", "f", "b", "e", "c"]

