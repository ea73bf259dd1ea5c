"""A statement moved past the neighbour it depends on: the one rewrite every order bug is made of.

A move is proposed only when it is a program a person could have written and shipped:

- the statements are in one block of a function, and each is a plain statement, an `if`, a loop
  or a `with` (no `def`, `class`, `try` or import moves);
- none is a `return`, `raise`, `break` or `continue` (moving one above code makes dead code);
- no name is read before the function first binds it: when the moved statement binds a name its
  partner reads (or the other way round, for a move up), the name must already be bound above
  (a parameter, an earlier line), so the read sees a stale value instead of raising
  `UnboundLocalError`; nor is a name read after a `del` moved above it;
- the pair plays the roles of one of the family's bugs, which each operator states from data
  flow: one statement changes what the other reads. Two independent statements commute, and
  their swap would be an equivalent mutant, so it is never proposed. Statements that share no
  state with the moved one may stand between it and its partner (two at most): it moves past
  them too, which is the same bug as the swap of two neighbours.

Comments and blank lines: each statement keeps the comments above it and on its line; the blank
lines between statements stay where they were.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.nodes import dotted
from bugsmith.mutators.base import Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.order.effects import Methods, binds, may_write, meets, reads, unbinds
from bugsmith.mutators.families.order.roles import EXITS, exits, single

_MOVABLE = (cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.With)
_INERT = (cst.Pass, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


class NeighbourSwap(Mutator[cst.SimpleStatementLine | cst.If]):
    """Base of the order operators: the matched statement moves past the neighbour it depends on.

    A subclass sets `moves_later` (the matched statement moves down, else up), `why` (the
    explanation, naming the `{moved}` statement and the `{other}` one) and `bug`, which says
    whether a pair, in source order, is its kind of bug. The partner is the nearest statement in
    that direction that shares state with the matched one; up to `reach` statements that share
    none may stand between (the check two lines above the append it guards): the matched one
    commutes with them, so passing them is the same bug as the swap of two neighbours.
    """

    moves_later: ClassVar[bool]
    why: ClassVar[str]
    reach: ClassVar[int] = 2
    matcher = m.SimpleStatementLine() | m.If()

    def moves(self, node: cst.SimpleStatementLine | cst.If) -> bool:
        """Can `node` play the role of the statement this bug moves? (A cheap first look.)"""
        raise NotImplementedError

    def bug(self, first: cst.BaseStatement, second: cst.BaseStatement, methods: Methods) -> bool:
        raise NotImplementedError

    def mutate(self, node: cst.SimpleStatementLine | cst.If, ctx: Context) -> Iterator[Rewrite]:
        if not self.moves(node) or not _movable(node):
            return
        block = ctx.parent(node)
        function = ctx.function(node)
        if not isinstance(block, cst.IndentedBlock) or function is None:
            return
        body = list(block.body)
        index = next(i for i, stmt in enumerate(body) if stmt is node)
        methods = class_methods(ctx, function)
        step, modules = (1 if self.moves_later else -1), _modules(ctx.module)
        for position in range(index + step, index + step * (self.reach + 2), step):
            if not 0 <= position < len(body) or not _movable(body[position]):
                return
            other = body[position]
            first, second = (node, other) if self.moves_later else (other, node)
            if self.bug(first, second, methods):
                if self._in_time(body, index, position, ctx, function, methods):
                    yield self._rewrite(ctx, block, body, index, position)
                return
            if other.deep_equals(node) or interact(node, other, methods, modules):
                return

    def _in_time(
        self, body: Sequence[cst.BaseStatement], index: int, position: int, ctx: Context,
        function: cst.FunctionDef, methods: Methods,
    ) -> bool:
        """Is every name still bound when read, once the statement at `index` passes the others?"""
        low, high = sorted((index, position))
        passed = [body[i] for i in range(low, high + 1) if i != index]
        pairs = [(body[index], s) if self.moves_later else (s, body[index]) for s in passed]
        return all(_binds_in_time(a, b, ctx, function, methods) for a, b in pairs)

    def _rewrite(
        self, ctx: Context, block: cst.IndentedBlock, body: list[cst.BaseStatement], index: int, position: int
    ) -> Rewrite:
        explanation = self.why.format(moved=quote(ctx, body[index]), other=quote(ctx, body[position]))
        return Rewrite(replacement=block.with_changes(body=moved(body, index, position)), target=block,
                       explanation=explanation.replace("{", "{{").replace("}", "}}"))


def interact(a: cst.BaseStatement, b: cst.BaseStatement, methods: Methods, modules: frozenset[str]) -> bool:
    """Does one statement change what the other reads or changes? A call into code not at hand may
    change what it is handed (its receiver, its arguments), unless that is an imported module."""
    written_a, written_b = may_write(a, methods, modules), may_write(b, methods, modules)
    return (meets(written_a, reads(b, methods)) or meets(written_b, reads(a, methods))
            or meets(written_a, written_b))


def class_methods(ctx: Context, function: cst.FunctionDef) -> Methods:
    """Look up the methods of the class that `function` belongs to, by name."""
    owner = ctx.parent(ctx.parent(function) or function)
    defs: dict[str, cst.FunctionDef] = {}
    if isinstance(owner, cst.ClassDef) and isinstance(owner.body, cst.IndentedBlock):
        defs = {s.name.value: s for s in owner.body.body if isinstance(s, cst.FunctionDef)}
    return defs.get


def _modules(module: cst.Module) -> frozenset[str]:
    """The names the module's top-level imports bind: `np`, `os`, `pd`."""
    names: set[str] = set()
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    chain = dotted(bound)
                    if chain is not None:
                        names.add(chain.partition(".")[0])
    return frozenset(names)


def _movable(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, _MOVABLE) or exits(stmt):
        return False
    if isinstance(stmt, cst.SimpleStatementLine):
        if any(isinstance(small, _INERT) for small in stmt.body):
            return False
        small = single(stmt)
        if isinstance(small, cst.Expr):
            return not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)) and not _logs(small.value)
    return True


def _logs(value: cst.BaseExpression) -> bool:
    """A print or logging call: moving it changes no result a test could see."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    return m.matches(func, m.Name("print")) or (isinstance(func, cst.Attribute) and func.attr.value in _LOG_METHODS)


def _binds_in_time(
    a: cst.BaseStatement, b: cst.BaseStatement, ctx: Context, function: cst.FunctionDef, methods: Methods
) -> bool:
    """After the swap, does every name `b` reads that `a` binds already have a value, and does
    `a` read nothing that `b` deletes?"""
    read_by_b = {chain.partition(".")[0] for chain in reads(b, methods)}
    read_by_a = {chain.partition(".")[0] for chain in reads(a, methods)}
    if unbinds(b) & read_by_a:
        return False
    needed = read_by_b & binds(a)
    return not needed or needed <= bound_before(a, ctx, function)


def bound_before(stmt: cst.CSTNode, ctx: Context, function: cst.FunctionDef) -> set[str]:
    """Names the function binds before `stmt` runs for the first time: its parameters, the
    statements above it in each enclosing block, and the headers it sits under."""
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    child: cst.CSTNode = stmt
    for ancestor in ctx.ancestors(stmt):
        if ancestor is function:
            break
        if isinstance(ancestor, cst.IndentedBlock):
            for earlier in ancestor.body:
                if earlier is child:
                    break
                names |= binds(earlier)
        elif isinstance(ancestor, cst.For):
            names |= binds(ancestor.target)
        elif isinstance(ancestor, (cst.If, cst.While)):
            names |= binds(ancestor.test)  # a walrus in the condition
        elif isinstance(ancestor, cst.With):
            names |= {n for item in ancestor.items if item.asname for n in binds(item.asname)}
        elif isinstance(ancestor, cst.ExceptHandler) and ancestor.name is not None:
            names |= binds(ancestor.name)
        child = ancestor
    return names


def moved(body: Sequence[cst.BaseStatement], index: int, position: int) -> list[cst.BaseStatement]:
    """`body` with the statement at `index` moved to `position`, past those between; the blank
    lines above each place stay where they were, comments go with their statements."""
    order = [i for i in range(len(body)) if i != index]
    order.insert(position, index)
    layout = [_leading(stmt)[0] for stmt in body]
    return [body[i].with_changes(leading_lines=(*layout[slot], *_leading(body[i])[1]))
            for slot, i in enumerate(order)]


def _leading(stmt: cst.BaseStatement) -> tuple[tuple[cst.EmptyLine, ...], tuple[cst.EmptyLine, ...]]:
    """The blank lines above a statement's comments, and the comments (with any blank lines
    among them)."""
    lines = tuple(getattr(stmt, "leading_lines", ()))
    blank = 0
    while blank < len(lines) and lines[blank].comment is None:
        blank += 1
    return lines[:blank], lines[blank:]


def quote(ctx: Context, stmt: cst.BaseStatement, width: int = 60) -> str:
    """The statement on one line as a reader names it: a line's code, a guard's `if` with its
    exit, a compound statement's header; comments left out, cut at `width`."""
    code = ctx.module.code_for_node
    if isinstance(stmt, cst.SimpleStatementLine):
        text = "; ".join(code(small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)) for small in stmt.body)
    elif isinstance(stmt, cst.If):
        inner = single(stmt.body.body[0]) if isinstance(stmt.body, cst.IndentedBlock) else single(stmt.body)
        exit_ = f" {code(inner.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))}" if isinstance(inner, EXITS) else ""
        text = f"if {code(stmt.test)}:{exit_}"
    elif isinstance(stmt, cst.For):
        text = f"for {code(stmt.target)} in {code(stmt.iter)}:"
    elif isinstance(stmt, cst.While):
        text = f"while {code(stmt.test)}:"
    else:
        text = code(stmt.with_changes(leading_lines=())).splitlines()[0]
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3].rstrip() + "..."
