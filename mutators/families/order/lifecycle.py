"""An item's life out of order: removed a statement late, or given its new state a statement early."""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.base import Example
from bugsmith.mutators.families.order.effects import Methods, meets, reads, writes
from bugsmith.mutators.families.order.roles import removal_shaped, removed, transition
from bugsmith.mutators.families.order.swap import NeighbourSwap
from bugsmith.mutators.family import Family


class RemovalAfterRead(NeighbourSwap):
    """A removal (`pop`, `popleft`, `remove`, `discard`, `del d[k]`, a release) moved after the
    statement that reads the collection and must not see what was removed.

    Realistic: "use it, then clean up" is the usual order, so moving a cleanup one line down
    looks tidy; but the line it moves past still counts, ranks or serves the item that should
    already be gone: a finished request decoded again, a freed block counted as held.
    """

    name = "order/removal-after-read"
    family = Family.ORDER
    explanation = "a removal now runs after a read that should not see the removed item"
    why = "`{moved}` now runs after `{other}`, which still sees what should already be gone"
    moves_later = True
    examples = (
        Example(
            before="def close(self, key):\n    del self.open[key]\n    self.count = len(self.open)\n",
            after=("def close(self, key):\n    self.count = len(self.open)\n    del self.open[key]\n",),
        ),
        Example(
            before="def step(self):\n    self.live = [r for r in self.live if not r.done]\n"
            "    for r in self.live:\n        r.tick()\n",
            after=("def step(self):\n    for r in self.live:\n        r.tick()\n"
                   "    self.live = [r for r in self.live if not r.done]\n",),
        ),
        Example(
            before="def top(stack):\n    stack.pop()\n    return stack[-1]\n",
            after=(),  # the read is a `return`: it never moves
        ),
        Example(  # the next line adds to the collection, it does not read it
            before="def f(q, x):\n    q.pop()\n    q.append(x)\n", after=()),
        Example(  # the item taken is what the next line uses: it is not bound before
            before="def f(q):\n    item = q.popleft()\n    handle(item, q)\n", after=()),
    )

    def moves(self, node: cst.SimpleStatementLine | cst.If) -> bool:
        return removal_shaped(node)

    def bug(self, first: cst.BaseStatement, second: cst.BaseStatement, methods: Methods) -> bool:
        gone = removed(first, methods)
        if not gone or meets(gone, writes(second, methods)):
            return False  # a second change of the same collection is not a read of it
        return meets(gone, reads(second, methods))


class TransitionBeforeWork(NeighbourSwap):
    """A state transition (a state, status or flag attribute set to a constant or an enum
    member, an item appended to a "done" or "running" collection) moved before the statement
    that does the work which earns it, and which reads that state.

    Realistic: marking a job done "as soon as we start it" or moving a request into the running
    list "when it is admitted" looks like the same thing; the work in between now sees the new
    state: it skips the job it is doing, or serves the request in the step that admitted it.
    """

    name = "order/transition-before-work"
    family = Family.ORDER
    explanation = "a state transition now runs before the work that earns it"
    why = ("`{moved}` now runs before `{other}`: the state changes before the work that earns "
           "it, and the work already sees the new state")
    moves_later = False
    examples = (
        Example(
            before="class Job:\n    def run(self):\n        self.execute()\n        self.done = True\n\n"
            "    def execute(self):\n        if not self.done:\n            self.result = 1\n",
            after=("class Job:\n    def run(self):\n        self.done = True\n        self.execute()\n\n"
                   "    def execute(self):\n        if not self.done:\n            self.result = 1\n",),
        ),
        Example(
            before="def step(running, req):\n    for r in running:\n        r.decode()\n    running.append(req)\n",
            after=("def step(running, req):\n    running.append(req)\n    for r in running:\n        r.decode()\n",),
        ),
        Example(  # the work does not read the state it earns: the two commute
            before="def f(job, log):\n    log.write(job.name)\n    job.done = True\n", after=()),
        Example(  # the value assigned is computed, not a state
            before="def f(job):\n    job.run()\n    job.cost = job.measure()\n", after=()),
    )

    def moves(self, node: cst.SimpleStatementLine | cst.If) -> bool:
        return transition(node) is not None

    def bug(self, first: cst.BaseStatement, second: cst.BaseStatement, methods: Methods) -> bool:
        state = transition(second)
        return state is not None and meets({state}, reads(first, methods))
