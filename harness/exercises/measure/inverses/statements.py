"""Undo edits of whole statements: a statement moved back, two `if`s joined into `if`/`elif`, a
condition, a guard or a forgotten update written back.

What a deleted statement said is gone from the buggy program, so these write only what the
program still shows the need of: a loop that never advances a variable it reads, a name the
function binds and never reads, a membership test against a collection nothing adds to, a
statement that runs on values that may be missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import PART, WRITTEN, Undo, names_read, parameters, unused_names
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

MOVE_DISTANCE = 3  # a statement moves back at most this many places


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return m.matches(statement, m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString())]))


def _block_with(block: cst.IndentedBlock, body: Sequence[cst.BaseStatement]) -> cst.IndentedBlock:
    return block.with_changes(body=list(body))


def _inserted(block: cst.IndentedBlock, statement: cst.BaseStatement, *, first: bool = False
              ) -> Iterator[cst.IndentedBlock]:
    """`block` with `statement` at each place (only at the top, after a docstring, if `first`)."""
    body = list(block.body)
    start = 1 if body and _is_docstring(body[0]) else 0
    for place in ([start] if first else range(start, len(body) + 1)):
        yield _block_with(block, [*body[:place], statement, *body[place:]])


def _assigned(node: cst.CSTNode) -> list[str]:
    """Names `node` assigns with `=` (plain names only), in order, each once."""
    found: dict[str, None] = {}
    for target in m.findall(node, m.AssignTarget(target=m.Name())):
        found[cst.ensure_type(cst.ensure_type(target, cst.AssignTarget).target, cst.Name).value] = None
    return list(found)


class MoveBack(Undo[cst.IndentedBlock]):
    """A statement moved back up or down its block: a guard checked before the insertion it guards,
    a transition after the pass that must not see it."""

    name = "undo/move-back"
    family = Family.SCHEDULING
    tier = PART
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        if not self.here(node, ctx):
            return
        body = list(node.body)
        for index, statement in enumerate(body):
            if _is_docstring(statement):
                continue
            rest = body[:index] + body[index + 1:]
            for place in range(max(0, index - MOVE_DISTANCE), min(len(rest), index + MOVE_DISTANCE) + 1):
                if place != index and not (place == 0 and rest and _is_docstring(rest[0])):
                    yield _block_with(node, [*rest[:place], statement, *rest[place:]])


class ElifBack(Undo[cst.IndentedBlock]):
    """Two `if`s in a row joined back into `if`/`elif`: the second no longer sees what the first did."""

    name = "undo/elif-back"
    family = Family.SCHEDULING
    tier = PART
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        if not self.here(node, ctx):
            return
        body = list(node.body)
        for index in range(len(body) - 1):
            first, second = body[index], body[index + 1]
            if isinstance(first, cst.If) and first.orelse is None and isinstance(second, cst.If):
                joined = first.with_changes(orelse=second.with_changes(leading_lines=()))
                yield _block_with(node, [*body[:index], joined, *body[index + 2:]])


class ConditionBack(Undo[cst.IndentedBlock]):
    """A statement put back under a condition on a value it reads: `total *= scale` ->
    `if total: total *= scale`, `return str(date)` -> `if date is not None: return str(date)`."""

    name = "undo/condition-back"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        if not self.here(node, ctx):
            return
        body = list(node.body)
        for index, statement in enumerate(body):
            if not isinstance(statement, cst.SimpleStatementLine) or _is_docstring(statement):
                continue
            for name in names_read(statement)[:3]:
                for test in (name, f"{name} is not None"):
                    guarded = cst.If(test=ctx.expression(test), body=cst.IndentedBlock(
                        body=[statement.with_changes(leading_lines=())]), leading_lines=statement.leading_lines)
                    yield _block_with(node, [*body[:index], guarded, *body[index + 1:]])


class GuardBack(Undo[cst.IndentedBlock]):
    """A guard clause written back: `if not xs: return 0.0` at the top of a function, `if x is
    None: continue` at the top of a loop over `x`."""

    name = "undo/guard-back"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        if not self.here(node, ctx):
            return
        parent = ctx.parent(node)
        guards: list[str] = []
        if isinstance(parent, cst.FunctionDef):
            for name in parameters(parent):
                guards += [f"if {test}:\n    return {value}\n" for test in (f"not {name}", f"{name} is None")
                           for value in ("None", "0", "0.0")]
        elif isinstance(parent, cst.For) and isinstance(parent.target, cst.Name):
            name = parent.target.value
            guards += [f"if {test}:\n    continue\n" for test in (f"{name} is None", f"not {name}")]
        for guard in guards:
            yield from _inserted(node, ctx.statement(guard), first=True)


class UpdateBack(Undo[cst.IndentedBlock]):
    """A forgotten update written back where the program shows its need: `seen.add(x)` under `if
    x not in seen`, `prev = node` in a loop that reads `prev` and never advances it, a statement
    on a name the function never reads (`x = x[keep]`, `q.append(x)`)."""

    name = "undo/update-back"
    family = Family.BEYOND
    tier = WRITTEN
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        function = ctx.function(node)
        if not self.here(node, ctx) or function is None:
            return
        statements: list[str] = []
        parent = ctx.parent(node)
        if isinstance(parent, cst.If) and m.matches(parent.test, m.Comparison(
                left=m.Name(), comparisons=[m.ComparisonTarget(operator=m.NotIn(), comparator=m.Name())])):
            test = cst.ensure_type(parent.test, cst.Comparison)
            item, seen = ctx.code(test.left), ctx.code(test.comparisons[0].comparator)
            statements += [f"{seen}.add({item})\n", f"{seen}.append({item})\n"]
        if isinstance(parent, cst.While):
            statements += self._advances(parent)
        read = names_read(node)
        for unused in unused_names(function):
            for name in (n for n in read if n != unused):
                statements += [f"{name} = {name}[{unused}]\n", f"{unused}.append({name})\n", f"{unused}.add({name})\n"]
        if parent is function:
            for name in parameters(function):
                statements += [f"{name}.sort_index(inplace=True)\n"]
        for statement in dict.fromkeys(statements):
            yield from _inserted(node, ctx.statement(statement))

    @staticmethod
    def _advances(loop: cst.While) -> list[str]:
        """`b = a` for a name `b` the loop reads and never assigns, `a` one it assigns."""
        assigned = _assigned(loop.body)
        stale = [n for n in names_read(loop) if n not in assigned]
        return [f"{b} = {a}\n" for b in stale for a in assigned if a != b]


class LoopTestBack(Undo[cst.While]):
    """`while True:` back to `while queue:`, the queue being what the loop takes from."""

    name = "undo/loop-test-back"
    family = Family.BEYOND
    tier = PART
    matcher = m.While(test=m.Name("True"))

    def mutate(self, node: cst.While, ctx: Context) -> Iterator[cst.While]:
        if not self.here(node, ctx):
            return
        for call in m.findall(node.body, m.Call(func=m.Attribute(value=m.Name()))):
            receiver = cst.ensure_type(cst.ensure_type(cst.ensure_type(call, cst.Call).func, cst.Attribute).value,
                                       cst.Name).value
            if receiver != "self":
                yield node.with_changes(test=cst.Name(receiver))


class ResultBack(Undo[cst.Return]):
    """`return None` back to `return result`, a local the function computed; `return []` back
    to `return [[]]`."""

    name = "undo/result-back"
    family = Family.CLASSIC
    tier = PART
    matcher = m.Return(value=m.Name("None") | m.Name("True") | m.Name("False") | m.List(elements=[]))

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.Return]:
        function = ctx.function(node)
        if not self.here(node, ctx) or function is None:
            return
        if isinstance(node.value, cst.List):
            yield node.with_changes(value=ctx.expression("[[]]"))
            return
        if isinstance(node.value, cst.Name) and node.value.value == "None":
            for name in _assigned(function.body):
                yield node.with_changes(value=cst.Name(name))
            return
        for name in unused_names(function):  # a predicate answers from a value it no longer reads
            for test in (name, f"not {name}", f"{name} == 0", f"{name} > 0", f"{name} is None"):
                yield node.with_changes(value=ctx.expression(test))


# The arrays of a curve (metric/drop-origin): their first point is the origin.
CURVE_NAMES = frozenset({"tps", "fps", "tpr", "fpr", "tp", "fp", "recall", "precision"})


class OriginBack(Undo[cst.IndentedBlock]):
    """A curve's origin put back: `fps = np.r_[0, fps]` for each curve array a function takes."""

    name = "undo/origin-back"
    family = Family.METRIC
    tier = WRITTEN
    matcher = m.IndentedBlock()

    def mutate(self, node: cst.IndentedBlock, ctx: Context) -> Iterator[cst.IndentedBlock]:
        function = ctx.parent(node)
        if not isinstance(function, cst.FunctionDef) or not self.here(node, ctx):
            return
        curves = [name for name in parameters(function) if name in CURVE_NAMES]
        if not curves:
            return
        body = list(node.body)
        start = 1 if body and _is_docstring(body[0]) else 0
        added = [ctx.statement(f"{name} = np.r_[0, {name}]\n") for name in curves]
        yield _block_with(node, [*body[:start], *added, *body[start:]])
