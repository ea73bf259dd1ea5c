"""A step-based inference scheduler, written from the contract only."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    rid: str
    prompt_tokens: int
    max_new_tokens: int


class State(Enum):
    WAITING = "waiting"
    PREFILL = "prefill"
    DECODE = "decode"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    step: int
    decoded: tuple[str, ...]
    prefilled: tuple[str, ...]
    finished: tuple[str, ...]
    tokens_used: int


class Scheduler:
    def __init__(self, token_budget: int, max_running: int | None = None) -> None:
        if max_running is not None and max_running < 1:
            raise ValueError(f"max_running={max_running}: at least one running request is needed")
        if token_budget < 1:
            raise ValueError(f"token_budget={token_budget}: a step must be able to spend a token")
        self._budget = token_budget
        self._cap = max_running
        self._queue: deque[Request] = deque()
        self._decoding: list[Request] = []  # in the order they entered DECODE
        self._status: dict[str, State] = {}
        self._made: dict[str, int] = {}
        self._clock = 0

    def submit(self, request: Request) -> None:
        problems = []
        if request.max_new_tokens < 1:
            problems.append("max_new_tokens must be positive")
        if request.prompt_tokens < 1:
            problems.append("prompt_tokens must be positive")
        elif request.prompt_tokens > self._budget:
            problems.append(f"the prompt ({request.prompt_tokens}) can never fit in one step")
        if request.rid in self._status:
            problems.append(f"request id {request.rid!r} was already submitted")
        if problems:
            raise ValueError("; ".join(problems))
        self._queue.append(request)
        self._status[request.rid] = State.WAITING
        self._made[request.rid] = 0

    def _running(self) -> int:
        return sum(1 for s in self._status.values() if s in (State.PREFILL, State.DECODE))

    def step(self) -> StepResult:
        self._clock += 1
        left = self._budget
        served: list[str] = []
        done: list[str] = []
        still: list[Request] = []
        for req in self._decoding:
            if left == 0:
                still.append(req)
                continue
            left -= 1
            self._made[req.rid] += 1
            served.append(req.rid)
            if self._made[req.rid] >= req.max_new_tokens:
                self._status[req.rid] = State.FINISHED
                done.append(req.rid)
            else:
                still.append(req)
        self._decoding = still
        admitted: list[Request] = []
        while self._queue:
            head = self._queue[0]
            if head.prompt_tokens > left:
                break
            if self._cap is not None and self._running() >= self._cap:
                break
            self._queue.popleft()
            self._status[head.rid] = State.PREFILL
            left -= head.prompt_tokens
            admitted.append(head)
        for req in admitted:
            self._status[req.rid] = State.DECODE
            self._decoding.append(req)
        return StepResult(step=self._clock, decoded=tuple(served),
                          prefilled=tuple(r.rid for r in admitted), finished=tuple(done),
                          tokens_used=self._budget - left)

    def _pending(self) -> bool:
        return any(s is not State.FINISHED for s in self._status.values())

    def run(self, max_steps: int = 10_000) -> list[StepResult]:
        if max_steps < 0:
            raise ValueError(f"max_steps={max_steps} is negative")
        out: list[StepResult] = []
        while self._pending():
            if len(out) >= max_steps:
                raise RuntimeError(f"requests still unfinished when the limit of {max_steps} steps ran out")
            out.append(self.step())
        return out

    def state(self, rid: str) -> State:
        if rid not in self._status:
            raise KeyError(rid)
        return self._status[rid]

    def generated(self, rid: str) -> int:
        if rid not in self._made:
            raise KeyError(rid)
        return self._made[rid]
