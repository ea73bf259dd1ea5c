"""K-bug exercises: a group that fails together frees its members, and the pool grows until the
quota is met; a problem that truly cannot meet it is named with the reason."""

from __future__ import annotations

import dataclasses

import pytest

from bugsmith.harness.exercises.assemble.pool import next_group
from bugsmith.harness.exercises.assemble.selection import Evidence, ProblemBuilder
from bugsmith.harness.exercises.measure.difficulty import interacting, masked
from bugsmith.harness.exercises.measure.levels import Levels
from bugsmith.harness.exercises.records import HARD_BUGS, ExerciseOptions, Symptom
from tests.exercises.test_difficulty_and_order import mutant


def single(ident: str, function: str) -> Evidence:
    return Evidence(mutants=(dataclasses.replace(mutant(ident), function=function),), fail_to_pass=("t",),
                    pass_to_pass=(), symptoms=(), silent=True)


def builder(pool: list[Evidence], spoils: set[str], bugs: int = 2, seed: int = 0,
            difficulty: str = "") -> ProblemBuilder:
    """A builder whose full runs validate any group (or bug alone) without a member of `spoils`
    (bugs that mask the others), and whose bugs seen failing a visible test are the first
    `wanted` of `pool`."""
    made = object.__new__(ProblemBuilder)
    made.options = ExerciseOptions(problems=("p",), count=1, bugs=bugs, seed=seed, difficulty=difficulty)
    made.levels = Levels(made.options, probes=None, store=None, key=None)  # type: ignore[arg-type]
    made.progress = None
    made.problem = "p"
    made._start([e.mutants[0] for e in pool])
    made.validated = []

    def validate(groups):
        made.validated.extend(groups)
        return [dataclasses.replace(pool[0], mutants=tuple(group)) for group in groups
                if not spoils & {m.id for m in group}]

    def seen(wanted):
        made.quiet = [e.mutants[0] for e in pool[:wanted]]
        return made.quiet

    made._validate = validate
    made._seen = seen
    made._run_ahead = lambda pool, group: None  # what runs is told by `validated`, one group at a time
    return made


def ids(chosen: list[Evidence]) -> list[list[str]]:
    return [sorted(m.id for m in e.mutants) for e in chosen]


def test_next_group_takes_each_function_once_and_skips_tried_groups():
    a, b, c = (dataclasses.replace(mutant(i), function=f) for i, f in (("a", "f"), ("b", "f"), ("c", "g")))
    assert next_group([a, b, c], 2, set()) == [a, c]
    assert next_group([a, b, c], 2, {frozenset({"a", "c"})}) == [b, c]
    assert next_group([a, b, c], 3, set()) is None


def test_groups_of_a_prefix_come_before_any_group_that_needs_a_later_bug():
    """Growing the pool at its end never changes the groups formed from its start: (a, d) is
    lexicographically first but needs d, so (b, c) comes first."""
    a, b, c, d = (dataclasses.replace(mutant(i), function=f) for i, f in
                  (("a", "f"), ("b", "g"), ("c", "h"), ("d", "k")))
    assert next_group([a, b, c, d], 2, {frozenset("ab"), frozenset("ac")}) == [b, c]


def test_a_bug_that_spoils_its_groups_is_dropped_not_the_quota():
    """`a` masks every bug it is paired with: the old greedy pairing burnt a and b and stopped."""
    pool = [single(i, f"f{i}") for i in "abcde"]
    made = builder(pool, spoils={"a"})
    made._group([e.mutants[0] for e in pool], 2)
    assert ids(made.groups) == [["b", "c"], ["d", "e"]]
    assert sum("a" in {m.id for m in g} for g in made.validated) == 2  # dropped after two spoiled groups
    assert [m.id for g in made.validated if len(g) == 1 for m in g] == ["b", "c", "d", "e"]  # alone: the chosen


@pytest.mark.parametrize("fit", [True, False])
def test_the_groups_run_ahead_are_those_tried_next_when_each_has_the_guessed_outcome(fit):
    """A group's run is joined by the ones `_group` would try after it if each made an exercise
    (or if each spoiled); when that guess holds, they are exactly the groups tried next, in order."""
    pool = [single(i, f"f{i}") for i in "abcdef"]
    made = builder(pool, spoils=set() if fit else set("abcdef"))
    bugs = [e.mutants[0] for e in pool]
    made._group(bugs, 10)
    tried = [sorted(m.id for m in g) for g in made.validated if len(g) > 1]
    fresh = builder(pool, spoils=set())
    assert [sorted(m.id for m in g) for g in fresh._ahead(bugs, bugs[:2], 2, fit)] == tried[1:3]
    assert len(fresh._ahead(bugs, bugs[:2], 100, fit)) == len(tried) - 1  # and no further than `_group` goes


def test_the_pool_grows_until_the_quota_is_met():
    """Two 2-bug exercises wanted: the first pool of 8 singles holds only one good pair."""
    pool = [single(i, f"f{i}") for i in "abcdefghijklmnop"]
    made = builder(pool, spoils=set("abcdef"))
    chosen = made._multi(2)
    assert len(chosen) == 2
    assert all(not {"a", "b", "c", "d", "e", "f"} & {m.id for m in e.mutants} for e in chosen)


def test_seeds_take_disjoint_groups_until_the_pool_is_exhausted():
    """Seeds 0-3 of a pool of 8 bugs in 8 functions: four disjoint pairs; seed 4 wraps around."""
    pool = [single(i, f"f{i}") for i in "abcdefgh"]
    chosen = [ids(builder(pool, spoils=set(), seed=seed)._chosen(1)) for seed in range(4)]
    assert sorted(sum(chosen, [])) == [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]
    last = builder(pool, spoils=set(), seed=4)
    assert ids(last._chosen(1)) == chosen[0] and last.repeats == 4


def test_a_problem_that_cannot_meet_its_quota_says_why():
    pool = [single(i, f"f{i}") for i in "abc"]
    made = builder(pool, spoils={"a", "b", "c"})
    assert made._chosen(1) == []
    assert made.shortfall == "3 bugs with a visible symptom, 3 groups tried, of 3 candidate edits"


def test_bugs_in_too_few_functions_are_named_as_the_reason():
    pool = [single(i, "f") for i in "abc"]
    made = builder(pool, spoils=set(), bugs=2)
    assert made._chosen(1) == []
    assert made.shortfall.endswith("the validated bugs lie in 1 functions, 2 needed")


def test_a_seed_that_repeats_exercises_is_told_with_the_problem(monkeypatch, tmp_path):
    """The library never prints: the notice callback hears which problem ran out, and how far."""
    from bugsmith.harness.exercises.assemble import selection
    class Wrapped:
        def __init__(self, problem, options, *rest):
            self.repeats, self.shortfall = 4, ""

        def build(self, quota):
            return []

    monkeypatch.setattr(selection, "ProblemBuilder", Wrapped)
    monkeypatch.setattr(selection, "load_problems", lambda root: {"auc": None})
    heard: list[str] = []
    try:
        selection.build_exercises(ExerciseOptions(problems=("auc",), count=1, seed=6), root=tmp_path,
                                  notice=heard.append)
    except selection.ExerciseError:
        pass  # the fake builds nothing
    assert heard == ["auc: the pool is exhausted (4 distinct exercises with these options for seeds 0 to 3);"
                     " seed 6 repeats exercises of lower seeds"]


def test_a_hard_exercise_pairs_only_bugs_that_share_a_failing_test_and_runs_no_other_pair():
    """Hard: fixing one bug must leave a visible test red. Pairs that share no failing test are
    passed over before their run (the run is what a pair costs)."""
    pool = [single(i, f"f{i}") for i in "abcd"]
    made = builder(pool, spoils=set(), difficulty="hard")
    failing = {"a": ("t1",), "b": ("t2",), "c": ("t3",), "d": ("t2", "t4")}
    for ident, tests in failing.items():
        made.levels.remember(dataclasses.replace(mutant(ident), function=f"f{ident}"),
                             tuple(Symptom(test=t, exception="", message="") for t in tests), True)
    made.levels.fits = lambda mutants, silent: made.levels.may_fit(mutants)  # no findability here
    made._group([e.mutants[0] for e in pool], 1)
    assert ids(made.groups) == [["b", "d"]]
    # the pair ran, then each of its bugs alone (the record of what each fails); no other pair ran
    assert [sorted(m.id for m in g) for g in made.validated] == [["b", "d"], ["b"], ["d"]]


def test_hard_exercises_get_two_bugs_unless_asked_otherwise():
    assert ExerciseOptions(difficulty="hard").bug_count == HARD_BUGS == 2
    assert ExerciseOptions(difficulty="hard", bugs=1).bug_count == 1
    assert ExerciseOptions(difficulty="medium").bug_count == ExerciseOptions().bug_count == 1


def test_bugs_are_masked_when_each_ones_failures_lie_within_anothers():
    """Masked: the first run shows one bug's symptom; each fix uncovers the next. Bugs that only
    share a test each show a symptom of their own at once, so they interact but are not masked."""
    assert masked([["t1", "t2"], ["t2"]])
    assert masked([["t3"], ["t1", "t2", "t3"], ["t2", "t3"]])
    assert not masked([["t1", "t2"], ["t2", "t3"]]) and interacting([["t1", "t2"], ["t2", "t3"]])
    assert not masked([["t1"], ["t2"]]) and not masked([["t1"]]) and not masked([["t1"], []])
