"""Golden, edge-case and behaviour tests for the scheduling family."""

from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import scheduling
from bugsmith.mutators.testing import check_example, mutated_sources

OPERATORS = {cls.name: cls for cls in scheduling.MUTATORS}
CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in scheduling.MUTATORS
    for index in range(len(cls.examples))
]

# A small continuous-batching scheduler written for these tests (not the reference one, which
# other people edit): FCFS admission under a token budget and a batch cap, decode first.
SCHEDULER = textwrap.dedent(
    """
    from collections import deque


    class Scheduler:
        def __init__(self, budget, max_running):
            self.budget = budget
            self.max_running = max_running
            self.waiting = deque()
            self.running = []

        def submit(self, rid, cost, steps):
            self.waiting.append([rid, cost, steps])

        def step(self):
            decoded = self.running
            for r in decoded:
                r[2] -= 1
            # finished requests leave the batch
            self.running = [r for r in decoded if r[2] > 0]
            used = len(decoded)
            admitted = []
            while self.waiting:
                head = self.waiting[0]
                if used + head[1] > self.budget:
                    break
                if len(self.running) >= self.max_running:
                    break
                self.waiting.popleft()
                used += head[1]
                self.running.append(head)
                admitted.append(head[0])
            return [r[0] for r in decoded], admitted
    """
)


def _trace(source: str) -> list:
    """Run a fixed workload through the scheduler in `source`; an exception is part of the trace."""
    namespace: dict = {}
    exec(compile(source, "scheduler.py", "exec"), namespace)
    # Chosen so that the budget is met exactly once and the batch cap binds.
    scheduler = namespace["Scheduler"](budget=6, max_running=1)
    for rid, cost, steps in (("a", 4, 2), ("b", 5, 1), ("c", 4, 2), ("d", 2, 3), ("e", 1, 2)):
        scheduler.submit(rid, cost, steps)
    trace: list = []
    try:
        for _ in range(8):
            trace.append(scheduler.step())
    except Exception as error:  # a loud mutant still differs
        trace.append(type(error).__name__)
    return trace


def _mutants(source: str):
    mutators = [cls() for cls in scheduling.MUTATORS]
    return mutants_of_source(source, file="s.py", module="s", mutators=mutators).mutants


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator turns its example into exactly the listed mutants, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_operators_are_well_formed():
    """Names are unique and prefixed `scheduling/`; each mutator has a docstring and a near miss."""
    names = [cls.name for cls in scheduling.MUTATORS]
    assert len(names) == len(set(names))
    for cls in scheduling.MUTATORS:
        assert cls.name.startswith("scheduling/") and cls.family.value == "scheduling"
        assert cls.__doc__ and "Realistic" in cls.__doc__
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_small_scheduler_gets_the_expected_bugs():
    """The card's scheduling bugs all appear on a typical scheduler, each a plausible number of times."""
    counts = Counter(mutant.operator for mutant in _mutants(SCHEDULER))
    assert counts == {
        "scheduling/budget-off-by-one": 2,  # `> self.budget` and `>= self.max_running`
        "scheduling/check-after-insert": 1,  # the batch cap checked after `running.append`
        "scheduling/late-cleanup": 2,  # the finished-request filter deleted, or moved before decode
        "scheduling/pop-wrong-end": 1,
        "scheduling/peek-wrong-end": 1,
        "scheduling/enqueue-wrong-end": 1,
    }


def test_every_mutant_of_the_small_scheduler_changes_its_behaviour():
    """No mutant is equivalent: each changes which requests decode or are admitted, or crashes."""
    expected = _trace(SCHEDULER)
    for mutant in _mutants(SCHEDULER):
        assert _trace(mutant.apply(SCHEDULER)) != expected, (mutant.operator, mutant.diff)


def test_guard_moves_with_its_comment():
    """A moved guard keeps its own comment and the formatting of every other line."""
    source = (
        "def admit(queue, batch, cap):\n    while queue:\n        # keep the batch small\n"
        "        if len(batch) >= cap:  # full\n            break\n        item = queue.popleft()\n"
        "        batch.append(item)   # odd spacing kept\n"
    )
    (mutant,) = mutated_sources(OPERATORS["scheduling/check-after-insert"](), source)
    assert mutant == (
        "def admit(queue, batch, cap):\n    while queue:\n        item = queue.popleft()\n"
        "        batch.append(item)   # odd spacing kept\n        # keep the batch small\n"
        "        if len(batch) >= cap:  # full\n            break\n"
    )


def test_cleanup_is_not_moved_past_a_loop_that_binds_what_it_reads():
    """Moving `del d[k]` before the loop that computes `k` would read it unbound: only deletion."""
    source = "def f(d, xs):\n    for k in xs:\n        d[k] += 1\n    del d[k]\n"
    assert mutated_sources(OPERATORS["scheduling/late-cleanup"](), source) == [
        "def f(d, xs):\n    for k in xs:\n        d[k] += 1\n",
    ]


def test_cleanup_in_an_event_loop_moves_to_the_top():
    """A removal after the work of an iteration moves to the top: it now sees last step's state."""
    source = "def run(live):\n    while live:\n        for r in live:\n            r.tick()\n        if live[0].done:\n            live.pop(0)\n"
    got = mutated_sources(OPERATORS["scheduling/late-cleanup"](), source)
    assert "def run(live):\n    while live:\n        if live[0].done:\n            live.pop(0)\n        for r in live:\n            r.tick()\n" in got
    assert len(got) == 2  # deleted, or moved above the loop (here the same as the top)


def test_state_transition_moves_before_the_pass_that_reads_states():
    """`req.state = ...` moves above a loop that reads `.state`, not above one that does not."""
    source = (
        "def step(self, req):\n    for r in self.running:\n        if r.state == 'decode':\n"
        "            r.emit()\n    req.state = 'decode'\n"
    )
    assert mutated_sources(OPERATORS["scheduling/early-transition"](), source) == [
        "def step(self, req):\n    req.state = 'decode'\n    for r in self.running:\n"
        "        if r.state == 'decode':\n            r.emit()\n"
    ]
    blind = "def step(self, req):\n    for r in self.running:\n        r.emit()\n    req.state = 'decode'\n"
    assert mutated_sources(OPERATORS["scheduling/early-transition"](), blind) == []


def test_a_deque_that_is_a_list_elsewhere_is_not_enqueued_at_the_left():
    """`self._queue` is a deque in one class and a list in another: `appendleft` could crash."""
    source = (
        "from collections import deque\n\nclass Q:\n    def __init__(self):\n        self._queue = deque()\n"
        "    def put(self, x):\n        self._queue.append(x)\n    def get(self):\n        return self._queue.popleft()\n\n"
        "class Lifo(Q):\n    def __init__(self):\n        self._queue = []\n"
    )
    assert mutated_sources(OPERATORS["scheduling/enqueue-wrong-end"](), source) == []


def test_phases_swap_only_when_one_feeds_the_other():
    """Two loops over state swap when one writes what the other reads; the method bodies are read."""
    source = (
        "class S:\n    def step(self):\n        self._decode()\n        self._log()\n\n"
        "    def _decode(self):\n        for r in self.running:\n            r.emit()\n\n"
        "    def _log(self):\n        print(len(self.done))\n"
    )
    assert mutated_sources(OPERATORS["scheduling/swap-phases"](), source) == []  # neither writes state


def test_elif_is_split_only_at_the_top_of_its_chain():
    """An `elif` inside a chain is left alone; the split happens where the first branch changes state."""
    source = (
        "def tick(r):\n    if r.state == 0:\n        r.state = 1\n    elif r.state == 1:\n        r.state = 2\n"
        "    elif r.state == 2:\n        r.done = True\n"
    )
    (mutant,) = mutated_sources(OPERATORS["scheduling/elif-falls-through"](), source)
    assert mutant == (
        "def tick(r):\n    if r.state == 0:\n        r.state = 1\n    if r.state == 1:\n        r.state = 2\n"
        "    elif r.state == 2:\n        r.done = True\n"
    )


UNUSUAL = textwrap.dedent(
    """
    import heapq
    from collections import deque


    async def serve(queue: deque, budget: int, *, cap=3):
        batch = []
        while (head := queue[0] if queue else None) is not None:
            if len(batch) >= cap: break
            batch.append(queue.popleft())
        async for item in source():
            if item.cost <= budget:
                budget -= item.cost
        match batch:
            case [first, *rest] if first.state == "wait":
                first.state = "run"
            case _:
                pass
        heapq.heappush(queue, (1, 2)); heapq.heappop(queue)
        del queue[0], batch[-1]
        pending = {r for r in batch if r.live}
        return [r for r in sorted(batch, key=lambda r: (r.priority, r.arrival))]
    """
)


def test_unusual_syntax_does_not_crash_and_every_mutant_compiles():
    """Walrus, async, match, one-line suites, `del a, b` and heapq calls give valid mutants only."""
    mutants = _mutants(UNUSUAL)
    assert mutants, "expected some sites in the unusual snippet"
    for mutant in mutants:
        compile(mutant.apply(UNUSUAL), "unusual.py", "exec")
        assert "{" not in mutant.explanation or "}" in mutant.explanation


def test_elif_split_needs_the_branch_to_enter_the_tested_state():
    """`state = "decode"` then `elif state in ("decode", "done")` is split; a clamp is not."""
    source = (
        "def tick(job):\n    if job.state == 'prefill':\n        job.state = 'decode'\n"
        "    elif job.state in ('decode', 'done'):\n        job.emit()\n"
    )
    assert len(mutated_sources(OPERATORS["scheduling/elif-falls-through"](), source)) == 1
    other = source.replace("job.state = 'decode'", "job.state = 'queued'")
    assert mutated_sources(OPERATORS["scheduling/elif-falls-through"](), other) == []
