"""Hypothesis strategies for valid scheduler inputs.

Sizes stay small (budgets up to 12, up to 8 requests) so that a whole run takes microseconds,
yet they hit the boundaries that matter: prompts equal to the budget, `max_new_tokens=1`, a cap
of one running request, and queues where a big head blocks small followers.

`call_strategies` keys methods as `"Scheduler.<name>"`; their `args` start with a ready
`Scheduler` instance, so `Scheduler.run(*args, **kwargs)` calls the method generically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from . import Request, Scheduler

Call = tuple[tuple[Any, ...], dict[str, Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """A scheduler configuration and the requests submitted to it, in FCFS order."""

    token_budget: int
    max_running: int | None
    requests: tuple[Request, ...]

    def scheduler(self) -> Scheduler:
        """A fresh scheduler with every request of the workload submitted."""
        scheduler = Scheduler(self.token_budget, max_running=self.max_running)
        for request in self.requests:
            scheduler.submit(request)
        return scheduler


def token_budgets() -> SearchStrategy[int]:
    """Valid per-step token budgets."""
    return st.integers(min_value=1, max_value=12)


def max_runnings() -> SearchStrategy[int | None]:
    """No cap, or a small cap on the running set."""
    return st.none() | st.integers(min_value=1, max_value=4)


_MAX_NEW_TOKENS = st.integers(min_value=1, max_value=4)


def requests(token_budget: int, rid: str) -> SearchStrategy[Request]:
    """Requests named `rid` that a scheduler with `token_budget` accepts."""
    return st.builds(
        Request,
        rid=st.just(rid),
        prompt_tokens=st.integers(min_value=1, max_value=token_budget),
        max_new_tokens=_MAX_NEW_TOKENS,
    )


@st.composite
def workloads(draw: st.DrawFn, min_requests: int = 0, max_requests: int = 8) -> Workload:
    """A budget, an optional cap and a few valid requests with distinct ids."""
    token_budget = draw(token_budgets())
    count = draw(st.integers(min_value=min_requests, max_value=max_requests))
    max_running = draw(max_runnings())
    # Drawn field by field: a `requests()` strategy per request would be built and validated
    # anew for every request of every example, which cost more than running the workload.
    prompt_tokens = st.integers(min_value=1, max_value=token_budget)
    return Workload(
        token_budget=token_budget,
        max_running=max_running,
        requests=tuple(
            Request(rid=f"r{index}", prompt_tokens=draw(prompt_tokens),
                    max_new_tokens=draw(_MAX_NEW_TOKENS))
            for index in range(count)
        ),
    )


@st.composite
def _stepped(draw: st.DrawFn, min_requests: int = 0) -> tuple[Scheduler, Workload]:
    """A workload's scheduler after a few steps, so requests are spread over all states."""
    workload = draw(workloads(min_requests=min_requests))
    scheduler = workload.scheduler()
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        scheduler.step()
    return scheduler, workload


@st.composite
def _request_calls(draw: st.DrawFn) -> Call:
    request = draw(token_budgets().flatmap(lambda budget: requests(budget, "r0")))
    return (), {
        "rid": request.rid,
        "prompt_tokens": request.prompt_tokens,
        "max_new_tokens": request.max_new_tokens,
    }


@st.composite
def _submit_calls(draw: st.DrawFn) -> Call:
    scheduler, workload = draw(_stepped())
    return (scheduler, draw(requests(workload.token_budget, f"r{len(workload.requests)}"))), {}


@st.composite
def _lookup_calls(draw: st.DrawFn) -> Call:
    scheduler, workload = draw(_stepped(min_requests=1))
    return (scheduler, draw(st.sampled_from([request.rid for request in workload.requests]))), {}


def call_strategies() -> dict[str, SearchStrategy[Call]]:
    """For each public callable, a strategy of valid `(args, kwargs)`."""
    return {
        "Request": _request_calls(),
        "Scheduler": st.tuples(token_budgets(), max_runnings()).map(
            lambda pair: ((pair[0],), {"max_running": pair[1]})
        ),
        "Scheduler.submit": _submit_calls(),
        "Scheduler.step": _stepped().map(lambda pair: ((pair[0],), {})),
        "Scheduler.run": workloads().map(lambda workload: ((workload.scheduler(),), {})),
        "Scheduler.state": _lookup_calls(),
        "Scheduler.generated": _lookup_calls(),
    }
