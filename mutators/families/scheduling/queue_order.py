"""Scheduling bugs that break first-come-first-served order: the wrong end of a queue.

A queue is recognised by how it is used (a deque, served with `popleft()` or `pop(0)`) or by a
queue-like name, never by a name of ours.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, keyword_arg, method_of, with_arg, without_arg
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import dotted
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.scheduling.dataflow import identifiers
from bugsmith.mutators.families.scheduling.queue_facts import ModuleFacts, queueish
from bugsmith.mutators.family import Family

_TIME = frozenset({"arrival", "arrived", "time", "timestamp", "ts", "submit", "submitted",
                   "enqueued", "created", "priority", "deadline", "seq", "age", "tick"})


def _renamed(call: cst.Call, method: str) -> cst.Call:
    """`q.method(...)` in place of the method call `call`."""
    func = method_of(call)
    return call.with_changes(func=func.with_changes(attr=func.attr.with_changes(value=method)))


class PopWrongEnd(Mutator[cst.Call]):
    """`q.popleft()` or `q.pop(0)` becomes `q.pop()`: the newest item is served first.

    Realistic: `pop()` is the method everyone types first; on a FIFO queue it silently turns
    first-come-first-served into last-come-first-served.
    """

    name = "scheduling/pop-wrong-end"
    family = Family.SCHEDULING
    explanation = "`{original}` became `{mutated}`: the queue is served newest first, breaking FCFS order"
    matcher = m.Call(func=m.Attribute(attr=m.Name("popleft") | m.Name("pop")))
    examples = (
        Example(
            before="def f(q, xs):\n    q.popleft()\n    return xs.pop(0)\n",
            after=("def f(q, xs):\n    q.pop()\n    return xs.pop(0)\n",
                   "def f(q, xs):\n    q.popleft()\n    return xs.pop()\n"),
        ),
        Example(before="def f(d, xs):\n    d.pop('k')\n    return xs.pop()\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if callee(node) == "popleft" and not node.args:
            yield _renamed(node, "pop")
        elif callee(node) == "pop" and m.matches(node, m.Call(args=[m.Arg(value=m.Integer("0"), keyword=None)])):
            yield node.with_changes(args=())


class PeekWrongEnd(ModuleFacts, Mutator[cst.Subscript]):
    """`queue[0]` becomes `queue[-1]`: the admission check looks at the newest request.

    Realistic: the head check and the pop must agree on which end is the front; one stray `-1`
    makes the scheduler test one request and admit another.
    """

    name = "scheduling/peek-wrong-end"
    family = Family.SCHEDULING
    explanation = (
        "`{original}` became `{mutated}`: the check looks at the newest queued item instead of the "
        "head of the queue"
    )
    matcher = m.Subscript(slice=[m.SubscriptElement(slice=m.Index(value=m.Integer("0")))])
    examples = (
        Example(
            before="def f(waiting):\n    return waiting[0].cost\n",
            after=("def f(waiting):\n    return waiting[-1].cost\n",),
        ),
        Example(before="def f(x, rows):\n    return x.shape[0] + rows[0]\n", after=()),
    )

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.CSTNode]:
        facts = self.queues(ctx)
        if queueish(node.value, facts) or dotted(node.value) in facts.front_served:
            index = node.slice[0].slice
            element = node.slice[0].with_changes(slice=index.with_changes(value=ctx.expression("-1")))
            yield node.with_changes(slice=[element])


class EnqueueWrongEnd(ModuleFacts, Mutator[cst.Call]):
    """`q.append(x)` ↔ `q.appendleft(x)` on a deque that is served from one end.

    Realistic: with a deque both ends look alike; enqueueing at the serving end makes the
    newest request jump the queue.
    """

    name = "scheduling/enqueue-wrong-end"
    family = Family.SCHEDULING
    explanation = "`{original}` became `{mutated}`: new items are queued at the serving end and jump the queue"
    matcher = m.Call(func=m.Attribute(attr=m.Name("append") | m.Name("appendleft")))
    examples = (
        Example(
            before="from collections import deque\n\ndef f(x):\n    q = deque()\n    q.append(x)\n"
            "    return q.popleft()\n",
            after=("from collections import deque\n\ndef f(x):\n    q = deque()\n    q.appendleft(x)\n"
                   "    return q.popleft()\n",),
        ),
        Example(before="def f(xs, x):\n    xs.append(x)\n    return xs.pop()\n", after=()),  # a list
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        func = method_of(node)  # `q.append` or `q.appendleft`
        if func.attr.value == "appendleft":
            yield _renamed(node, "append")
            return
        facts, owner = self.queues(ctx), dotted(func.value)
        if owner in facts.deques and owner in facts.served:
            yield _renamed(node, "appendleft")


class IterateReversed(ModuleFacts, Mutator[cst.For]):
    """`for r in queue:` becomes `for r in reversed(queue):`: the queue is served back to front.

    Realistic: a `reversed` added to "process the most recent first", or left over from a
    debugging session, inverts FCFS for every pass over the queue.
    """

    name = "scheduling/iterate-reversed"
    family = Family.SCHEDULING
    explanation = "`{original}` became `{mutated}`: the queue is visited newest first, breaking FCFS order"
    matcher = m.For()
    examples = (
        Example(
            before="def f(self):\n    for r in self.pending:\n        self.admit(r)\n"
            "    return self.pending.popleft()\n",
            after=("def f(self):\n    for r in reversed(self.pending):\n        self.admit(r)\n"
                   "    return self.pending.popleft()\n",),
        ),
        Example(  # a queue by name only: it may be a set or a generator, which cannot be reversed
            before="def f(pending):\n    for r in pending:\n        print(r)\n", after=()),
    )

    def mutate(self, node: cst.For, ctx: Context) -> Iterator[cst.CSTNode]:
        # Not by name: a `pending` set or generator cannot be reversed.
        facts, name = self.queues(ctx), dotted(node.iter)
        if node.asynchronous is None and (name in facts.deques or name in facts.front_served):
            yield node.with_changes(iter=cst.Call(func=cst.Name("reversed"), args=[cst.Arg(node.iter)]))


class SortReversed(Mutator[cst.Call]):
    """A sort by arrival time, priority or deadline flips direction.

    Realistic: `reverse=True` (or pandas' `ascending=False`) is one keyword, and which end is
    "first" for a timestamp or a priority number is a coin toss nobody writes down.
    """

    name = "scheduling/sort-reversed"
    family = Family.SCHEDULING
    explanation = "`{original}` became `{mutated}`: items are ordered latest (or lowest priority) first"
    matcher = m.Call(func=m.Name("sorted") | m.Attribute(attr=m.Name("sort") | m.Name("sort_values")))
    examples = (
        Example(
            before="def f(reqs):\n    return sorted(reqs, key=lambda r: r.arrival_time)\n",
            after=("def f(reqs):\n    return sorted(reqs, key=lambda r: r.arrival_time, reverse=True)\n",),
        ),
        Example(
            before="def f(df):\n    return df.sort_values('deadline', ascending=False)\n",
            after=("def f(df):\n    return df.sort_values('deadline')\n",),
        ),
        Example(before="def f(xs):\n    return sorted(xs, key=len)\n", after=()),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        pandas = callee(node) == "sort_values"
        keys = [
            arg.value for arg in node.args
            if (arg.keyword is not None and arg.keyword.value in ("key", "by")) or (pandas and arg.keyword is None)
        ]
        if not any(words(name) & _TIME for key in keys for name in identifiers(key, strings=True)):
            return
        flag, flipped = ("ascending", "False") if pandas else ("reverse", "True")
        current = keyword(node, flag)
        if current is None:
            yield with_arg(node, keyword_arg(flag, cst.Name(flipped)))
        elif m.matches(current.value, m.Name(flipped)):
            yield without_arg(node, current)
        elif m.matches(current.value, m.Name("True") | m.Name("False")):
            yield node.with_changes(args=[
                arg.with_changes(value=cst.Name(flipped)) if arg is current else arg for arg in node.args
            ])
