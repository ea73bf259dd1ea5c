"""Seeds take windows of one fixed sequence per problem: disjoint until it runs out."""

from __future__ import annotations

import pytest

from bugsmith.harness.exercises.assemble.pool import window
from bugsmith.harness.exercises.records import ExerciseError


def sequence(length: int):
    return lambda n: list(range(length))[:n]


def test_seeds_take_disjoint_windows_while_the_sequence_lasts():
    taken = [window(sequence(10), seed, 3) for seed in range(3)]
    assert [w.items for w in taken] == [(0, 1, 2), (3, 4, 5), (6, 7, 8)]
    assert all(w.total is None for w in taken)


def test_a_seed_past_the_end_wraps_around_and_says_how_long_the_sequence_is():
    late = window(sequence(10), 3, 3)
    assert late.items == (9, 0, 1) and late.total == 10


def test_a_sequence_shorter_than_the_quota_gives_what_it_has():
    assert window(sequence(2), 0, 3).items == (0, 1)


def test_asking_a_lazy_sequence_only_for_what_the_seed_needs():
    asked = []
    window(lambda n: asked.append(n) or list(range(n)), 2, 4)
    assert asked == [12]


def test_a_negative_seed_is_an_error():
    with pytest.raises(ExerciseError, match="--seed"):
        window(sequence(3), -1, 1)


@pytest.mark.slow
def test_seeds_0_to_4_of_one_problem_hand_out_five_different_instances():
    """`bugsmith exercises --problem auc --count 1 --seed S` for S in 0..4: no instance twice."""
    from bugsmith.harness.config import builtin_root
    from bugsmith.harness.exercises import ExerciseOptions, build_exercises

    notices: list[str] = []
    built = [build_exercises(ExerciseOptions(problems=("auc",), count=1, seed=seed), root=builtin_root(),
                             jobs=2, notice=notices.append)[0] for seed in range(5)]
    assert len({e.instance_id for e in built}) == 5
    assert len({m.id for e in built for m in e.mutants}) == 5
    assert notices == []  # auc has far more than five validated bugs
