"""A continuous-batching scheduler for LLM inference requests.

Each step spends a fixed token budget: first one decode token for every running request, then
prompt prefills for waiting requests taken strictly first come, first served. The contract is in
`problem.md` beside this module.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass


# Keyword-only, as problem.md declares them: another implementation may order the fields its own way.
@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One inference request: a prompt to prefill, then up to `max_new_tokens` tokens to decode."""

    rid: str
    prompt_tokens: int
    max_new_tokens: int


class State(enum.Enum):
    """Where a request is in its life.

    PREFILL lasts only inside `Scheduler.step`: a prefill completes in the step that admits it,
    so between steps a request is WAITING, DECODE or FINISHED.
    """

    WAITING = enum.auto()
    PREFILL = enum.auto()
    DECODE = enum.auto()
    FINISHED = enum.auto()


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    """What one step did; each tuple holds request ids in the order the step served them."""

    step: int
    decoded: tuple[str, ...]
    prefilled: tuple[str, ...]
    finished: tuple[str, ...]
    tokens_used: int


@dataclass
class _Entry:
    """The scheduler's mutable bookkeeping for one submitted request."""

    request: Request
    state: State = State.WAITING
    generated: int = 0


class Scheduler:
    """Decode-first, FCFS scheduler with a per-step token budget and an optional batch cap."""

    def __init__(self, token_budget: int, max_running: int | None = None) -> None:
        if token_budget < 1:
            raise ValueError(f"token_budget must be at least 1, got {token_budget}")
        if max_running is not None and max_running < 1:
            raise ValueError(f"max_running must be at least 1 or None, got {max_running}")
        self._token_budget = token_budget
        self._max_running = max_running
        self._entries: dict[str, _Entry] = {}
        self._waiting: deque[_Entry] = deque()
        # Running requests in the order they entered DECODE, which is the order they decode in.
        self._running: list[_Entry] = []
        self._steps = 0

    def submit(self, request: Request) -> None:
        """Queue `request` behind every request submitted before it."""
        if request.rid in self._entries:
            raise ValueError(f"duplicate request id {request.rid!r}")
        if request.prompt_tokens < 1:
            raise ValueError(f"prompt_tokens must be at least 1, got {request.prompt_tokens}")
        if request.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {request.max_new_tokens}")
        if request.prompt_tokens > self._token_budget:
            raise ValueError(
                f"prompt_tokens {request.prompt_tokens} exceeds the token budget "
                f"{self._token_budget}, so request {request.rid!r} could never be scheduled"
            )
        entry = _Entry(request)
        self._entries[request.rid] = entry
        self._waiting.append(entry)

    def step(self) -> StepResult:
        """Run one step: decode every running request, then admit waiting ones that fit."""
        self._steps += 1
        decoded, finished = self._decode()
        prefilled = self._admit(self._token_budget - len(decoded))
        return StepResult(
            step=self._steps,
            decoded=tuple(entry.request.rid for entry in decoded),
            prefilled=tuple(entry.request.rid for entry in prefilled),
            finished=tuple(entry.request.rid for entry in finished),
            tokens_used=len(decoded) + sum(entry.request.prompt_tokens for entry in prefilled),
        )

    def run(self, max_steps: int = 10_000) -> list[StepResult]:
        """Step until every submitted request is finished; return the steps this call ran."""
        if max_steps < 0:
            raise ValueError(f"max_steps must be at least 0, got {max_steps}")
        results: list[StepResult] = []
        while self._waiting or self._running:
            if len(results) == max_steps:
                raise RuntimeError(f"requests still unfinished after {max_steps} steps")
            results.append(self.step())
        return results

    def state(self, rid: str) -> State:
        """The current state of request `rid`."""
        return self._entry(rid).state

    def generated(self, rid: str) -> int:
        """How many tokens request `rid` has generated so far."""
        return self._entry(rid).generated

    def _entry(self, rid: str) -> _Entry:
        if rid not in self._entries:
            raise KeyError(f"unknown request id {rid!r}")
        return self._entries[rid]

    def _decode(self) -> tuple[list[_Entry], list[_Entry]]:
        # Every admission paid at least one token from a budget that had already covered this
        # step's decodes, so the running set never outgrows the budget: all of it decodes.
        decoded = self._running
        for entry in decoded:
            entry.generated += 1
            if entry.generated == entry.request.max_new_tokens:
                entry.state = State.FINISHED
        self._running = [entry for entry in decoded if entry.state is State.DECODE]
        return decoded, [entry for entry in decoded if entry.state is State.FINISHED]

    def _admit(self, budget: int) -> list[_Entry]:
        admitted: list[_Entry] = []
        while self._waiting:
            entry = self._waiting[0]
            if not self._fits(entry.request, budget):
                break  # FCFS: a head that does not fit blocks everyone behind it
            self._waiting.popleft()
            budget -= entry.request.prompt_tokens
            entry.state = State.DECODE
            self._running.append(entry)
            admitted.append(entry)
        return admitted

    def _fits(self, request: Request, budget: int) -> bool:
        if request.prompt_tokens > budget:
            return False
        return self._max_running is None or len(self._running) < self._max_running
