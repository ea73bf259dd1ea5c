"""Held-back tests for the scheduler: a brute-force oracle, invariants and the remaining edges."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.scheduler import Request, Scheduler, State, StepResult
from reference.scheduler.strategies import Workload, call_strategies, workloads

pytestmark = pytest.mark.hidden


def req(rid: str, prompt: int, new: int) -> Request:
    return Request(rid=rid, prompt_tokens=prompt, max_new_tokens=new)


@dataclass
class Oracle:
    """The contract of problem.md written out longhand, with plain lists and nothing clever."""

    budget: int
    cap: int | None
    queue: list[Request] = field(default_factory=list)
    running: list[list] = field(default_factory=list)  # [request, generated] pairs
    done: dict[str, int] = field(default_factory=dict)
    steps: int = 0

    def step(self) -> StepResult:
        self.steps += 1
        left = self.budget
        decoded: list[str] = []
        for item in self.running:
            if left > 0:  # a decoder that does not fit waits (unreachable with these costs)
                left -= 1
                item[1] += 1
                decoded.append(item[0].rid)
        finished = [item[0].rid for item in self.running if item[1] == item[0].max_new_tokens]
        self.done.update({item[0].rid: item[1] for item in self.running if item[0].rid in finished})
        self.running = [item for item in self.running if item[0].rid not in finished]
        prefilled: list[str] = []
        while self.queue:
            head = self.queue[0]
            if head.prompt_tokens > left or (self.cap is not None and len(self.running) >= self.cap):
                break
            self.queue.pop(0)
            left -= head.prompt_tokens
            self.running.append([head, 0])
            prefilled.append(head.rid)
        return StepResult(
            step=self.steps,
            decoded=tuple(decoded),
            prefilled=tuple(prefilled),
            finished=tuple(finished),
            tokens_used=self.budget - left,
        )

    def snapshot(self) -> dict[str, tuple[State, int]]:
        view = {rid: (State.FINISHED, n) for rid, n in self.done.items()}
        view.update({item[0].rid: (State.DECODE, item[1]) for item in self.running})
        view.update({request.rid: (State.WAITING, 0) for request in self.queue})
        return view

    def busy(self) -> bool:
        return bool(self.queue or self.running)


def observe(scheduler: Scheduler, rids: list[str]) -> dict[str, tuple[State, int]]:
    return {rid: (scheduler.state(rid), scheduler.generated(rid)) for rid in rids}


def submitted(workload: Workload) -> list[str]:
    return [request.rid for request in workload.requests]


def run_all(workload: Workload) -> list[StepResult]:
    return workload.scheduler().run()


@given(workload=workloads(), data=st.data())
def test_matches_oracle_with_arrivals_between_steps(workload: Workload, data: st.DataObject) -> None:
    """Step by step, with requests arriving between steps, results and states match the oracle."""
    count = len(workload.requests)
    # arrivals[i] = how many steps have run when request i is submitted; sorted keeps FCFS = ids.
    arrivals = sorted(data.draw(st.lists(st.integers(0, 5), min_size=count, max_size=count)))
    scheduler = Scheduler(workload.token_budget, max_running=workload.max_running)
    oracle = Oracle(workload.token_budget, workload.max_running)
    pending = list(zip(arrivals, workload.requests))
    seen: list[str] = []
    while pending:
        for request in [request for at, request in pending if at == oracle.steps]:
            scheduler.submit(request)
            oracle.queue.append(request)
            seen.append(request.rid)
        pending = [(at, request) for at, request in pending if at > oracle.steps]
        assert observe(scheduler, seen) == oracle.snapshot()
        assert scheduler.step() == oracle.step()
        assert observe(scheduler, seen) == oracle.snapshot()
    expected = []
    while oracle.busy():
        expected.append(oracle.step())
    assert scheduler.run() == expected
    assert observe(scheduler, seen) == oracle.snapshot()


@given(workload=workloads())
def test_invariants_of_a_whole_run(workload: Workload) -> None:
    """Budget respected, FCFS admission, decode only after prefill, exact token counts."""
    results = run_all(workload)
    by_rid = {request.rid: request for request in workload.requests}
    admitted = [rid for result in results for rid in result.prefilled]
    assert admitted == submitted(workload), "admission is strictly first come, first served"
    assert [result.step for result in results] == list(range(1, len(results) + 1))
    prefill_step: dict[str, int] = {}
    finish_step: dict[str, int] = {}
    for result in results:
        assert result.tokens_used <= workload.token_budget
        assert result.tokens_used == len(result.decoded) + sum(
            by_rid[rid].prompt_tokens for rid in result.prefilled
        )
        assert len(set(result.decoded)) == len(result.decoded)
        assert set(result.finished) <= set(result.decoded)
        for rid in result.decoded:
            assert prefill_step.get(rid, result.step) < result.step, f"{rid} decoded unprefilled"
            assert rid not in finish_step, f"{rid} decoded after it finished"
        prefill_step.update({rid: result.step for rid in result.prefilled})
        finish_step.update({rid: result.step for rid in result.finished})
    for rid, request in by_rid.items():
        decode_steps = [result.step for result in results if rid in result.decoded]
        # Every running request decodes every step, from the step after its prefill.
        first = prefill_step[rid] + 1
        assert decode_steps == list(range(first, first + request.max_new_tokens))
        assert finish_step[rid] == decode_steps[-1]
    if results:
        assert results[-1].finished, "run() stops right after the last request finishes"


@given(workload=workloads())
def test_admission_is_greedy_and_capped(workload: Workload) -> None:
    """After each step the running set respects max_running and the head really could not fit."""
    scheduler = workload.scheduler()
    queue = list(workload.requests)
    running: set[str] = set()
    while queue or running:
        result = scheduler.step()
        running = (running - set(result.finished)) | set(result.prefilled)
        queue = queue[len(result.prefilled):]
        states = {rid for rid in submitted(workload) if scheduler.state(rid) is State.DECODE}
        assert states == running
        if workload.max_running is not None:
            assert len(running) <= workload.max_running
        if queue:
            head_fits = queue[0].prompt_tokens <= workload.token_budget - result.tokens_used
            capped = workload.max_running is not None and len(running) == workload.max_running
            assert capped or not head_fits, f"step {result.step} left {queue[0]} waiting"


@given(workload=workloads(min_requests=1))
def test_max_steps_is_an_exact_limit(workload: Workload) -> None:
    """A run needing n steps succeeds with max_steps=n and raises with max_steps=n-1."""
    needed = len(run_all(workload))
    assert len(workload.scheduler().run(max_steps=needed)) == needed
    with pytest.raises(RuntimeError):
        workload.scheduler().run(max_steps=needed - 1)


@given(workload=workloads(), steps=st.integers(0, 4))
def test_states_between_steps(workload: Workload, steps: int) -> None:
    """Each request is in one state, never PREFILL between steps, and generated() agrees."""
    scheduler = workload.scheduler()
    for _ in range(steps):
        scheduler.step()
    for request in workload.requests:
        state, count = scheduler.state(request.rid), scheduler.generated(request.rid)
        assert state in {State.WAITING, State.DECODE, State.FINISHED}
        assert (count == request.max_new_tokens) == (state is State.FINISHED)
        assert count == 0 or state is not State.WAITING


def test_step_on_idle_scheduler_counts_an_empty_step() -> None:
    """step() with nothing to do is step 1 with empty tuples and no tokens."""
    expected = StepResult(step=1, decoded=(), prefilled=(), finished=(), tokens_used=0)
    assert Scheduler(3).step() == expected


def test_run_after_run_continues_numbering_and_returns_only_new_steps() -> None:
    """A second run() returns only its own steps, numbered after the first run's."""
    scheduler = Scheduler(3)
    scheduler.submit(req("a", 3, 1))
    assert [r.step for r in scheduler.run()] == [1, 2]
    scheduler.step()
    scheduler.submit(req("b", 2, 1))
    assert scheduler.run() == [
        StepResult(step=4, decoded=(), prefilled=("b",), finished=(), tokens_used=2),
        StepResult(step=5, decoded=("b",), prefilled=(), finished=("b",), tokens_used=1),
    ]
    assert scheduler.run() == []


def test_run_zero_steps() -> None:
    """run(max_steps=0) returns [] when idle and raises when anything is pending."""
    scheduler = Scheduler(3)
    assert scheduler.run(max_steps=0) == []
    scheduler.submit(req("a", 1, 1))
    with pytest.raises(RuntimeError):
        scheduler.run(max_steps=0)
    assert scheduler.state("a") is State.WAITING, "a refused run takes no step"


@pytest.mark.parametrize("max_steps", [-1, -5])
def test_run_rejects_negative_max_steps(max_steps: int) -> None:
    """max_steps below zero is a caller error, not a silent unbounded run; it changes nothing."""
    idle = Scheduler(3)
    with pytest.raises(ValueError):
        idle.run(max_steps=max_steps)
    busy = Scheduler(3)
    busy.submit(req("a", 1, 1))
    with pytest.raises(ValueError):
        busy.run(max_steps=max_steps)
    assert (busy.state("a"), busy.generated("a")) == (State.WAITING, 0), "a refused run took a step"
    assert busy.step().step == 1, "a refused run counted a step"


def test_max_running_one_serialises_requests() -> None:
    """With max_running=1 the next request enters only in the step the previous one finishes."""
    scheduler = Scheduler(10, max_running=1)
    for rid in "ab":
        scheduler.submit(req(rid, 2, 1))
    assert scheduler.run() == [
        StepResult(step=1, decoded=(), prefilled=("a",), finished=(), tokens_used=2),
        StepResult(step=2, decoded=("a",), prefilled=("b",), finished=("a",), tokens_used=3),
        StepResult(step=3, decoded=("b",), prefilled=(), finished=("b",), tokens_used=1),
    ]


def test_prompt_equal_to_remaining_budget_after_decodes() -> None:
    """b's prompt equals exactly what a's decode leaves, so it is admitted in that step."""
    scheduler = Scheduler(5)
    scheduler.submit(req("a", 3, 2))
    scheduler.submit(req("b", 4, 1))
    scheduler.step()
    got = scheduler.step()
    assert got == StepResult(step=2, decoded=("a",), prefilled=("b",), finished=(), tokens_used=5)


def test_duplicate_ids_are_rejected_in_every_state() -> None:
    """An id stays taken while its request waits, decodes and after it finished."""
    scheduler = Scheduler(3)
    scheduler.submit(req("a", 1, 2))
    scheduler.submit(req("w", 3, 1))
    scheduler.step()  # a decodes from now on; w waits behind a's decode
    assert (scheduler.state("a"), scheduler.state("w")) == (State.DECODE, State.WAITING)
    for rid in ("a", "w"):
        with pytest.raises(ValueError):
            scheduler.submit(req(rid, 1, 1))
    scheduler.run()
    for rid in ("a", "w"):
        with pytest.raises(ValueError):
            scheduler.submit(req(rid, 1, 1))
    assert scheduler.run() == [], "a refused duplicate must not be queued"


@pytest.mark.parametrize(
    "request_",
    [req("a", 1, 1), req("b", 0, 1), req("b", -1, 1), req("b", 1, 0), req("b", 1, -2),
     req("b", 4, 1), req("b", -1, -1)],
)
def test_rejected_submit_changes_nothing(request_: Request) -> None:
    """Validation happens before anything is queued: the schedule is as if it never came."""
    scheduler = Scheduler(3)
    scheduler.submit(req("a", 1, 1))
    with pytest.raises(ValueError):
        scheduler.submit(request_)
    with pytest.raises(KeyError):
        scheduler.state("b")
    assert [result.prefilled for result in scheduler.run()] == [("a",), ()]


def test_prompt_one_over_budget_is_rejected_and_equal_is_accepted() -> None:
    """prompt_tokens > token_budget is rejected; prompt_tokens == token_budget is fine."""
    scheduler = Scheduler(4)
    scheduler.submit(req("a", 4, 1))
    with pytest.raises(ValueError):
        scheduler.submit(req("b", 5, 1))
    assert [result.prefilled for result in scheduler.run()] == [("a",), ()]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"token_budget": 0}, {"token_budget": -3}, {"token_budget": 0, "max_running": 2},
        {"token_budget": 2, "max_running": 0}, {"token_budget": 2, "max_running": -3},
    ],
)
def test_constructor_rejects_bad_limits(kwargs: dict[str, int]) -> None:
    """A budget or cap below 1 could never schedule anything: ValueError."""
    with pytest.raises(ValueError):
        Scheduler(**kwargs)


def test_smallest_limits_are_accepted() -> None:
    """token_budget=1 and max_running=1 form a working, if slow, scheduler."""
    scheduler = Scheduler(1, max_running=1)
    scheduler.submit(req("a", 1, 2))
    assert [r.tokens_used for r in scheduler.run()] == [1, 1, 1]


@pytest.mark.parametrize("name", sorted(call_strategies()))
def test_call_strategies_give_valid_calls(name: str) -> None:
    """Every strategy yields arguments the public callable accepts without error."""
    target = Scheduler if name.startswith("Scheduler") else Request
    function = getattr(target, name.split(".")[1]) if "." in name else target

    @settings(max_examples=5)
    @given(call=call_strategies()[name])
    def check(call: tuple[tuple, dict]) -> None:
        args, kwargs = call
        function(*args, **kwargs)

    check()


def test_default_max_steps_is_ten_thousand() -> None:
    """run() allows 10_000 steps by default: 10_000 steps of work pass, 10_001 raise."""
    fits = Scheduler(1)
    fits.submit(req("a", 1, 9_999))
    assert len(fits.run()) == 10_000
    too_long = Scheduler(1)
    too_long.submit(req("a", 1, 10_000))
    with pytest.raises(RuntimeError):
        too_long.run()


def test_records_are_frozen_keyword_only_dataclasses() -> None:
    """Request and StepResult are built by keyword, compare by value and cannot be changed."""
    request = Request(rid="a", prompt_tokens=3, max_new_tokens=2)
    assert request == Request(rid="a", prompt_tokens=3, max_new_tokens=2)
    assert (request.rid, request.prompt_tokens, request.max_new_tokens) == ("a", 3, 2)
    result = StepResult(step=1, decoded=("a",), prefilled=(), finished=("a",), tokens_used=1)
    assert (result.step, result.decoded, result.prefilled, result.finished, result.tokens_used) == (
        1, ("a",), (), ("a",), 1)
    for record, name in ((request, "rid"), (result, "step")):
        with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError is one
            setattr(record, name, None)
    with pytest.raises(TypeError):
        Request("a", 3, 2)  # type: ignore[misc]


def test_state_has_exactly_the_four_states() -> None:
    """State names WAITING, PREFILL, DECODE and FINISHED, and nothing else."""
    assert sorted(state.name for state in State) == ["DECODE", "FINISHED", "PREFILL", "WAITING"]
