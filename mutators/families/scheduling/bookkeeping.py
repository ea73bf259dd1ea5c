"""Scheduling bugs in budgets and bookkeeping: a capacity check after the insertion it guards,
a budget comparison off by one, the cleanup of finished items deleted or run a step late.

Sites are found by code shape (a guard before an insertion, a filter reassignment after a
loop), never by our reference scheduler's names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, method_of
from bugsmith.mutators.analysis.expressions import boundary_flips
from bugsmith.mutators.analysis.names import words
from bugsmith.mutators.analysis.nodes import dotted, find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.scheduling.dataflow import (
    LOOPS,
    binds,
    block_of,
    chains,
    identifiers,
    moved,
    only,
    reads,
)
from bugsmith.mutators.family import Family

_EXITS = (cst.Break, cst.Continue, cst.Return, cst.Raise)
_INSERTS = frozenset({"append", "appendleft", "add", "insert", "extend", "put", "put_nowait",
                      "push", "setdefault", "update"})
_MODULES = frozenset({"os", "shutil", "sys", "pathlib", "tempfile", "glob"})
_BUDGET = frozenset({"budget", "capacity", "cap", "remaining", "limit", "free", "used", "quota",
                     "max", "maxsize", "maxlen", "allowance", "headroom"})


def _exit_guard(stmt: cst.CSTNode) -> bool:
    """`if cond: break` (or continue/return/raise) with no else."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return False
    body: cst.BaseSuite | cst.SimpleStatementLine = stmt.body
    if isinstance(body, cst.IndentedBlock):
        if len(body.body) != 1 or not isinstance(body.body[0], cst.SimpleStatementLine):
            return False
        body = body.body[0]
    return len(body.body) == 1 and isinstance(body.body[0], _EXITS)


def _insertion_key(stmt: cst.CSTNode) -> str | None:
    """The collection or counter that `stmt` grows or spends, e.g. `batch` or `used`."""
    small = only(stmt)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _INSERTS:
            return dotted(call.func.value)
        if callee(call) == "heappush" and call.args:
            return dotted(call.args[0].value)
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        return dotted(target.value) if isinstance(target, cst.Subscript) else None
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
        return dotted(small.target)
    return None


def _checks(test: cst.BaseExpression, key: str) -> bool:
    """Does the guard look at `key`, directly or through a method of its owner?

    A membership guard (`if k in seen: raise`) is not one: moved after `seen.add(k)` it would
    always fire, a bug nobody would ship.
    """
    membership = m.ComparisonTarget(operator=m.In() | m.NotIn())
    if any(dotted(t.comparator) == key for t in find_all(test, cst.ComparisonTarget, membership)):
        return False
    if key in chains(test):
        return True
    owner = key.rpartition(".")[0]
    return bool(owner) and any(called == owner for called in _method_owners(test))


def _method_owners(node: cst.CSTNode) -> Iterator[str]:
    """The name chains whose methods `node` calls: `r` for `r.step()`, `self.q` for `self.q.pop()`."""
    for call in find_all(node, cst.Call, m.Call(func=m.Attribute())):
        owner = dotted(method_of(call).value)
        if owner is not None:
            yield owner


class CheckAfterInsert(Mutator[cst.If]):
    """A capacity guard moved after the insertion it should guard.

    Realistic: "add, then check" reads naturally and works until the batch is exactly full; then
    one request too many is admitted, or the budget goes negative before the loop stops.
    """

    name = "scheduling/check-after-insert"
    family = Family.SCHEDULING
    explanation = "the capacity check now runs after the insertion it guards, so one item too many gets in"
    matcher = m.If()
    examples = (
        Example(
            before="def f(queue, batch, cap):\n    while queue:\n        if len(batch) >= cap:\n"
            "            break\n        item = queue.popleft()\n        batch.append(item)\n",
            after=("def f(queue, batch, cap):\n    while queue:\n        item = queue.popleft()\n"
                   "        batch.append(item)\n        if len(batch) >= cap:\n            break\n",),
        ),
        Example(  # a membership guard would always fire after the insertion
            before="def f(seen, x):\n    if x in seen:\n        return\n    seen.add(x)\n", after=()),
        Example(  # the guard checks something the insertion does not touch
            before="def f(xs, out):\n    for x in xs:\n        if x is None: continue\n        out.append(x)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[Rewrite]:
        found = block_of(node, ctx) if _exit_guard(node) else None
        if found is None:
            return
        block, index = found
        body, needs = list(block.body), reads(node.test)
        for later in range(index + 1, min(index + 4, len(body))):
            stmt = body[later]
            if not isinstance(stmt, cst.SimpleStatementLine) or any(isinstance(s, _EXITS) for s in stmt.body):
                return
            key = _insertion_key(stmt)
            if key is not None and _checks(node.test, key):
                yield Rewrite(replacement=block.with_changes(body=moved(body, index, later)), target=block)
                return
            if binds(stmt) & needs:
                return


def _budgetish(expr: cst.BaseExpression) -> bool:
    return any(words(name) & _BUDGET for name in identifiers(expr))


class BudgetOffByOne(Mutator[cst.Comparison]):
    """`<` ↔ `<=` (or `>` ↔ `>=`) in a comparison against a budget, capacity or limit.

    Realistic: whether a request that exactly fills the budget fits is the one case nobody
    writes down; the two spellings differ only at that boundary.
    """

    name = "scheduling/budget-off-by-one"
    family = Family.SCHEDULING
    explanation = (
        "`{original}` became `{mutated}`: a request that exactly fills the budget is now treated "
        "the other way"
    )
    matcher = m.Comparison()
    examples = (
        Example(
            before="def fits(cost, budget):\n    return cost <= budget\n",
            after=("def fits(cost, budget):\n    return cost < budget\n",),
        ),
        Example(before="def f(i, n):\n    return i < n and max(i, 0) > 2\n", after=()),
    )

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[cst.CSTNode]:
        yield from boundary_flips(node, _budgetish)


def _is_filter(value: cst.BaseExpression) -> cst.CompFor | None:
    """`[x for x in xs if ...]`: the comprehension's single `for`, when it only filters."""
    if not isinstance(value, (cst.ListComp, cst.SetComp)):
        return None
    comp = value.for_in
    if comp.inner_for_in is not None or not comp.ifs or comp.asynchronous is not None:
        return None
    same = isinstance(value.elt, cst.Name) and m.matches(comp.target, m.Name(value.elt.value))
    return comp if same else None


def _cleaned(stmt: cst.CSTNode, ctx: Context) -> set[str] | None:
    """What `stmt` drops finished items from (`xs.remove(x)`, `del d[k]`, `xs = [x for x in xs if
    ...]`, or `if done: <those>`), as name chains; None if it is not such a cleanup."""
    if isinstance(stmt, cst.If):
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else (stmt.body,)
        lines = (cst.SimpleStatementLine, cst.SimpleStatementSuite)
        keys = [_cleaned(s, ctx) if isinstance(s, lines) else None for s in body]
        cleaned = [k for k in keys if k is not None]
        if stmt.orelse is not None or len(cleaned) != len(keys):
            return None
        tested = chains(stmt.test)
        leaves = {c for c in tested if "." in c and not any(o.startswith(c + ".") for o in tested)}
        return leaves.union(*cleaned)
    small = only(stmt)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call, func = small.value, small.value.func
        owner = dotted(func.value) if isinstance(func, cst.Attribute) else None
        if not isinstance(func, cst.Attribute) or owner is None or owner.partition(".")[0] in _MODULES:
            return None
        # `q.popleft()` is how an item is admitted, not how a finished one is dropped.
        arity = {"remove": 1, "discard": 1}.get(func.attr.value)
        removes = len(call.args) == arity or (func.attr.value == "pop" and bool(call.args))
        return {owner} if removes else None
    if isinstance(small, cst.Del):
        deleted = small.target
        targets = [e.value for e in deleted.elements] if isinstance(deleted, cst.Tuple) else [deleted]
        # Each target an item of a named container: `del d[k]`, `del self.cache[k], seen[k]`.
        owners = {dotted(t.value) if isinstance(t, cst.Subscript) else None for t in targets}
        return None if None in owners else {owner for owner in owners if owner is not None}
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        comp = _is_filter(small.value)
        target, source = dotted(small.targets[0].target), dotted(comp.iter) if comp else None
        if target is None or source is None:
            return None
        if target == source or _aliases(source, target, ctx.function(stmt)):
            return {target, source}
    return None


def _touches(stmts: Sequence[cst.CSTNode], keys: set[str]) -> bool:
    """Do `stmts` read one of `keys`, or call a method on the owner of one (`r.step()`, `r.done`)?"""
    if any(keys & chains(stmt) for stmt in stmts):
        return True
    owners = {key.rpartition(".")[0] for key in keys if "." in key} - {"self", "cls"}
    return any(owner in owners for stmt in stmts for owner in _method_owners(stmt))


def _aliases(name: str, chain: str, function: cst.FunctionDef | None) -> bool:
    """Was `name = chain` assigned in `function` (`decoded = self.running`)?"""
    alias = m.Assign(targets=[m.AssignTarget(target=m.Name(name))])
    return function is not None and any(
        dotted(a.value) == chain for a in find_all(function.body, cst.Assign, alias)
    )


class LateCleanup(Mutator[cst.SimpleStatementLine | cst.If]):
    """The cleanup of finished items deleted, or moved so it runs a step late.

    Realistic: where to drop finished requests (before the decode loop, after it, at the top of
    the next iteration) looks like a matter of taste; only one place drops them in time.
    """

    name = "scheduling/late-cleanup"
    family = Family.SCHEDULING
    explanation = (
        "the removal of finished items `{original}` was deleted: finished items stay in the "
        "collection and are served again"
    )
    matcher = m.SimpleStatementLine() | m.If()
    examples = (
        Example(
            before="def step(self):\n    for r in self.running:\n        r.tick()\n"
            "    self.running = [r for r in self.running if not r.done]\n",
            after=(
                "def step(self):\n    for r in self.running:\n        r.tick()\n",
                "def step(self):\n    self.running = [r for r in self.running if not r.done]\n"
                "    for r in self.running:\n        r.tick()\n",
            ),
        ),
        Example(  # a filter into a fresh local, not a cleanup of existing state
            before="def f(xs):\n    for x in xs:\n        print(x)\n    ys = [x for x in xs if x]\n    return ys\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.SimpleStatementLine | cst.If, ctx: Context) -> Iterator[Rewrite | cst.RemovalSentinel]:
        found = block_of(node, ctx)
        keys = _cleaned(node, ctx) if found else None
        if found is None or keys is None:
            return
        block, index = found
        owner = ctx.parent(block)
        if isinstance(owner, cst.If) and _cleaned(owner, ctx) is not None:
            return  # the whole `if done: remove` statement is the site
        yield cst.RemovalSentinel.REMOVE
        body, needs = list(block.body), reads(node)

        def movable(over: Sequence[cst.CSTNode]) -> bool:
            # Only past statements that touch the cleaned collection: else nothing changes.
            others = [s for s in over if _cleaned(s, ctx) is None]  # two removals commute
            return _touches(others, keys) and not any(binds(s) & needs for s in over)

        if index > 0 and isinstance(body[index - 1], LOOPS) and movable(body[index - 1 : index]):
            yield self._move(block, body, index, index - 1)
        if isinstance(owner, LOOPS) and index > 0 and movable(body[:index]):
            yield self._move(block, body, index, 0)
        if index + 1 < len(body) and isinstance(body[index + 1], LOOPS) and movable(body[index + 1 : index + 2]):
            yield self._move(block, body, index, index + 1)

    @staticmethod
    def _move(block: cst.IndentedBlock, body: list[cst.BaseStatement], index: int, to: int) -> Rewrite:
        why = "`{original}` moved: finished items are removed only after the next pass has served them again"
        return Rewrite(replacement=block.with_changes(body=moved(body, index, to)), target=block, explanation=why)
