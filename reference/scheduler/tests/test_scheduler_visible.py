"""Worked examples of the scheduler contract in `problem.md`."""

from __future__ import annotations

import pytest

from reference.scheduler import Request, Scheduler, State, StepResult


def req(rid: str, prompt: int, new: int) -> Request:
    return Request(rid=rid, prompt_tokens=prompt, max_new_tokens=new)


def res(
    step: int,
    decoded: tuple[str, ...] = (),
    prefilled: tuple[str, ...] = (),
    finished: tuple[str, ...] = (),
    tokens: int = 0,
) -> StepResult:
    return StepResult(
        step=step, decoded=decoded, prefilled=prefilled, finished=finished, tokens_used=tokens
    )


def scheduler_with(budget: int, *requests: Request, max_running: int | None = None) -> Scheduler:
    scheduler = Scheduler(budget, max_running=max_running)
    for request in requests:
        scheduler.submit(request)
    return scheduler


def assert_steps(got: list[StepResult], expected: list[StepResult]) -> None:
    for want, have in zip(expected, got):
        assert have == want, f"step {want.step}: expected {want}, got {have}"
    assert len(got) == len(expected), f"expected {len(expected)} steps, got {len(got)}: {got}"


def test_problem_example() -> None:
    """The example of problem.md: b waits for a's decode to free budget, then both finish."""
    scheduler = scheduler_with(8, req("a", 5, 2), req("b", 4, 1))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a",), tokens=5),
            res(2, decoded=("a",), prefilled=("b",), tokens=5),
            res(3, decoded=("a", "b"), finished=("a", "b"), tokens=2),
        ],
    )


def test_one_request_moves_waiting_decode_finished() -> None:
    """A request waits, is prefilled into DECODE without a token, then decodes one per step."""
    scheduler = scheduler_with(10, req("a", 4, 2))
    seen = [(scheduler.state("a"), scheduler.generated("a"))]
    for _ in range(3):
        scheduler.step()
        seen.append((scheduler.state("a"), scheduler.generated("a")))
    expected = [
        (State.WAITING, 0),
        (State.DECODE, 0),
        (State.DECODE, 1),
        (State.FINISHED, 2),
    ]
    assert seen == expected, f"(state, generated) after each step: expected {expected}, got {seen}"


def test_prompt_exactly_equal_to_budget_is_admitted() -> None:
    """A prompt that uses the whole budget fits: the check is prompt <= remaining budget."""
    scheduler = scheduler_with(6, req("a", 6, 1))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a",), tokens=6),
            res(2, decoded=("a",), finished=("a",), tokens=1),
        ],
    )


def test_max_new_tokens_one_finishes_the_step_after_prefill() -> None:
    """With max_new_tokens=1 the only token comes in the step after prefill, which finishes it."""
    scheduler = scheduler_with(5, req("a", 2, 1))
    first = scheduler.step()
    assert first == res(1, prefilled=("a",), tokens=2), f"got {first}"
    assert scheduler.state("a") is State.DECODE, f"got {scheduler.state('a')}"
    second = scheduler.step()
    assert second == res(2, decoded=("a",), finished=("a",), tokens=1), f"got {second}"
    assert scheduler.state("a") is State.FINISHED, f"got {scheduler.state('a')}"


def test_decode_comes_before_admission() -> None:
    """Decodes are served first; c (3 tokens) must wait while a and b decode with budget 4."""
    scheduler = scheduler_with(4, req("a", 2, 2), req("b", 2, 2), req("c", 3, 1))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a", "b"), tokens=4),
            res(2, decoded=("a", "b"), tokens=2),
            res(3, decoded=("a", "b"), finished=("a", "b"), tokens=2),
            res(4, prefilled=("c",), tokens=3),
            res(5, decoded=("c",), finished=("c",), tokens=1),
        ],
    )


def test_budget_exhausted_by_decodes_blocks_the_head() -> None:
    """When decodes use the whole budget, even a 1-token prompt waits for the next step."""
    scheduler = scheduler_with(2, req("a", 1, 2), req("b", 1, 2), req("c", 1, 1))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a", "b"), tokens=2),
            res(2, decoded=("a", "b"), tokens=2),
            res(3, decoded=("a", "b"), finished=("a", "b"), tokens=2),
            res(4, prefilled=("c",), tokens=1),
            res(5, decoded=("c",), finished=("c",), tokens=1),
        ],
    )


def test_max_running_caps_admission_and_frees_on_finish() -> None:
    """With max_running=2, c waits despite spare budget and enters in the step a and b finish."""
    scheduler = scheduler_with(10, req("a", 1, 2), req("b", 1, 2), req("c", 1, 1), max_running=2)
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a", "b"), tokens=2),
            res(2, decoded=("a", "b"), tokens=2),
            res(3, decoded=("a", "b"), prefilled=("c",), finished=("a", "b"), tokens=3),
            res(4, decoded=("c",), finished=("c",), tokens=1),
        ],
    )


def test_big_head_blocks_small_followers() -> None:
    """FCFS without overtaking: c (1 token) fits in step 1 but waits behind b (5 tokens)."""
    scheduler = scheduler_with(6, req("a", 4, 2), req("b", 5, 1), req("c", 1, 1))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("a",), tokens=4),
            res(2, decoded=("a",), prefilled=("b",), tokens=6),
            res(3, decoded=("a", "b"), prefilled=("c",), finished=("a", "b"), tokens=3),
            res(4, decoded=("c",), finished=("c",), tokens=1),
        ],
    )


def test_tuples_list_requests_in_service_order() -> None:
    """decoded, prefilled and finished list ids in DECODE-entry and FCFS order, not by name."""
    scheduler = scheduler_with(9, req("z", 1, 2), req("m", 1, 1), req("a", 1, 2))
    assert_steps(
        scheduler.run(),
        [
            res(1, prefilled=("z", "m", "a"), tokens=3),
            res(2, decoded=("z", "m", "a"), finished=("m",), tokens=3),
            res(3, decoded=("z", "a"), finished=("z", "a"), tokens=2),
        ],
    )


def test_run_on_empty_scheduler_returns_no_steps() -> None:
    """With nothing submitted, run() has no work and returns an empty list."""
    got = Scheduler(4).run()
    assert got == [], f"expected [], got {got}"


def test_submit_between_steps_joins_the_queue() -> None:
    """A request submitted mid-run is served after the earlier ones; step numbers continue."""
    scheduler = scheduler_with(3, req("a", 2, 2))
    first = scheduler.step()
    scheduler.submit(req("b", 2, 1))
    assert first == res(1, prefilled=("a",), tokens=2), f"got {first}"
    assert_steps(
        scheduler.run(),
        [
            res(2, decoded=("a",), prefilled=("b",), tokens=3),
            res(3, decoded=("a", "b"), finished=("a", "b"), tokens=2),
        ],
    )


def test_run_raises_when_work_remains_after_max_steps() -> None:
    """A request needing 3 steps cannot finish in 2: run(max_steps=2) raises RuntimeError."""
    with pytest.raises(RuntimeError):
        scheduler_with(5, req("a", 1, 2)).run(max_steps=2)


def test_run_with_exactly_enough_steps_succeeds() -> None:
    """run(max_steps=k) raises only if work remains after k steps, so k=3 suffices here."""
    got = scheduler_with(5, req("a", 1, 2)).run(max_steps=3)
    assert [result.step for result in got] == [1, 2, 3], f"got {got}"


def test_unknown_request_id_raises_key_error() -> None:
    """state() and generated() reject an id that was never submitted."""
    scheduler = scheduler_with(5, req("a", 1, 1))
    with pytest.raises(KeyError):
        scheduler.state("b")
    with pytest.raises(KeyError):
        scheduler.generated("b")


@pytest.mark.parametrize(
    "request_",
    [req("a", 0, 1), req("a", 1, 0), req("a", 6, 1)],
    ids=["empty prompt", "nothing to generate", "prompt over the budget"],
)
def test_submit_rejects_invalid_requests(request_: Request) -> None:
    """Empty prompts, zero tokens to generate and prompts over the budget raise ValueError."""
    scheduler = Scheduler(5)
    with pytest.raises(ValueError):
        scheduler.submit(request_)


def test_submit_rejects_duplicate_id() -> None:
    """A second request with an id already submitted is rejected."""
    scheduler = scheduler_with(5, req("a", 1, 1))
    with pytest.raises(ValueError):
        scheduler.submit(req("a", 2, 2))
