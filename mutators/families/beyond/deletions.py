"""Beyond-classic bugs of a forgotten statement: a call, a state update or a guard deleted.

The side effect that never happens, the counter that never advances, the early exit that a
refactor dropped: the program runs on with stale state, and the happy-path tests still pass.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee
from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_JUMPS = (cst.Return, cst.Continue, cst.Break, cst.Raise)
_MAX_GUARD_STATEMENTS = 3
# Calls whose deletion changes randomness or nothing at all, not the logic.
_NOT_LOGIC = frozenset({"seed", "manual_seed", "sleep", "filterwarnings", "simplefilter", "set_printoptions"})
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "setUp"})


class DeleteCall(Mutator[cst.SimpleStatementLine]):
    """A call made for its effect is deleted: `queue.append(x)`, `seen.add(k)`, `d.pop(k)`.

    Realistic: the forgotten side effect, an item never enqueued, a cache never invalidated,
    an array never shuffled in place. Only statements inside functions are deleted; seeding,
    sleeping and warning filters are configuration, not logic.
    """

    name = "beyond/delete-call"
    family = Family.BEYOND
    explanation = "`{original}` was deleted: the call's side effect never happens"
    matcher = m.SimpleStatementLine(body=[m.Expr(value=m.Call())])
    examples = (
        Example(
            before="def f(q, seen, x):\n    if x not in seen:\n        seen.add(x)  # remember\n        q.append(x)\n",
            after=(
                "def f(q, seen, x):\n    if x not in seen:\n        q.append(x)\n",
                "def f(q, seen, x):\n    if x not in seen:\n        seen.add(x)  # remember\n",
            ),
        ),
        Example(
            before="import numpy as np\nnp.random.seed(0)\n\ndef f(x):\n    np.random.seed(1)\n    return sorted(x)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.SimpleStatementLine, ctx: Context) -> Iterator[cst.RemovalSentinel]:
        call = cst.ensure_type(cst.ensure_type(node.body[0], cst.Expr).value, cst.Call)  # as matched
        if ctx.function(node) is not None and callee(call) not in _NOT_LOGIC:
            yield cst.RemovalSentinel.REMOVE


def _updates_itself(assign: cst.Assign) -> bool:
    """`x = x[order]`, `a, b = b, a + b`: every name assigned is read on the right."""
    targets = [target.target for target in assign.targets]
    names_only = m.Name() | m.Tuple(elements=[m.ZeroOrMore(m.Element(value=m.Name()))])
    if not all(m.matches(target, names_only) for target in targets):
        return False
    names = {name.value for target in targets for name in find_all(target, cst.Name, m.Name())}
    return bool(names) and names <= _loaded_names(assign.value)


class _Loads(cst.CSTVisitor):
    """The variable names an expression reads: `x` in `x.col + 1`, but not `col`."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # not the keyword
        return False


def _loaded_names(expression: cst.BaseExpression) -> set[str]:
    visitor = _Loads()
    expression.visit(visitor)
    return visitor.names


class DeleteUpdate(Mutator[cst.SimpleStatementLine]):
    """A state update is deleted: `count += 1`, `self.state = s`, `d[k] = v`, `del d[k]`, `x = x[keep]`.

    Realistic: the counter never advanced, the status never set, the filter never applied;
    the program runs on with stale state. Initialisation in constructors is left alone, since
    deleting it only makes a loud `AttributeError`.
    """

    name = "beyond/delete-update"
    family = Family.BEYOND
    explanation = "`{original}` was deleted: the state is never updated"
    matcher = m.SimpleStatementLine(body=[m.AugAssign() | m.Assign() | m.Del()])
    examples = (
        Example(
            before=(
                "def f(self, x, keep):\n    x = x[keep]\n    y = x + 1\n"
                "    self.n += 1\n    self.last = y\n    cache[y] = x\n    return y\n"
            ),
            after=(
                "def f(self, x, keep):\n    y = x + 1\n    self.n += 1\n    self.last = y\n    cache[y] = x\n"
                "    return y\n",
                "def f(self, x, keep):\n    x = x[keep]\n    y = x + 1\n    self.last = y\n    cache[y] = x\n"
                "    return y\n",
                "def f(self, x, keep):\n    x = x[keep]\n    y = x + 1\n    self.n += 1\n    cache[y] = x\n"
                "    return y\n",
                "def f(self, x, keep):\n    x = x[keep]\n    y = x + 1\n    self.n += 1\n    self.last = y\n"
                "    return y\n",
            ),
        ),
        Example(
            before="class A:\n    def __init__(self):\n        self.n = 0\n\nLIMIT = 3\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.SimpleStatementLine, ctx: Context) -> Iterator[cst.RemovalSentinel]:
        function = ctx.function(node)
        statement = node.body[0]
        if function is None:
            return
        if isinstance(statement, cst.Assign):
            target = statement.targets[0].target if len(statement.targets) == 1 else None
            if isinstance(target, cst.Attribute) and function.name.value in _CONSTRUCTORS:
                return
            if not isinstance(target, (cst.Attribute, cst.Subscript)) and not _updates_itself(statement):
                return
        if isinstance(statement, cst.Del) and not m.matches(statement.target, m.Subscript()):
            return  # `del d[k]` forgets an entry; `del x` and `del self.x` only unbind
        yield cst.RemovalSentinel.REMOVE


def _ends_in_jump(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.SimpleStatementSuite):
        return isinstance(body.body[-1], _JUMPS)
    statements = body.body
    last = statements[-1]
    return (
        len(statements) <= _MAX_GUARD_STATEMENTS
        and isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[-1], _JUMPS)
    )


class RemoveGuard(Mutator[cst.If]):
    """A guard clause (`if cond: return/continue/break/raise`) is deleted.

    Realistic: the early exit for the empty input, the skip of an already-seen item, the
    validation of an argument: each is one `if` that a refactor drops, and the happy-path tests
    still pass. Deleting the guard is what `if False:` would do, written as a person would.
    """

    name = "beyond/remove-guard"
    family = Family.BEYOND
    explanation = "`{original}` was deleted: the case this guard handled now falls through"
    matcher = m.If(orelse=None)
    examples = (
        Example(
            before=(
                "def f(xs):\n    if not xs:\n        return 0.0\n    total = 0\n    for x in xs:\n"
                "        if x is None: continue\n        total += x\n    return total / len(xs)\n"
            ),
            after=(
                "def f(xs):\n    total = 0\n    for x in xs:\n        if x is None: continue\n"
                "        total += x\n    return total / len(xs)\n",
                "def f(xs):\n    if not xs:\n        return 0.0\n    total = 0\n    for x in xs:\n"
                "        total += x\n    return total / len(xs)\n",
            ),
        ),
        # not guards: an if/else, an elif, a branch that goes on
        Example(
            before=(
                "def f(x):\n    if x:\n        x += 1\n    if x > 2:\n        return 1\n"
                "    elif x:\n        return 2\n    return 0\n"
            ),
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[cst.RemovalSentinel]:
        if isinstance(ctx.parent(node), cst.If) or ctx.function(node) is None:
            return  # an `elif`
        if _ends_in_jump(node.body):
            yield cst.RemovalSentinel.REMOVE


def _lone_if(node: cst.If, ctx: Context) -> cst.BaseStatement | None:
    """The one statement of an `if` without `else` or `elif`, inside a function; else None."""
    if node.orelse is not None or isinstance(ctx.parent(node), cst.If) or ctx.function(node) is None:
        return None
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return None
    return body.body[0]


def _is_last(node: cst.CSTNode, ctx: Context) -> bool:
    siblings = getattr(ctx.parent(node), "body", ())
    return isinstance(siblings, (list, tuple)) and bool(siblings) and siblings[-1] is node


class DropCondition(Mutator[cst.If]):
    """The `if` around a statement is dropped: `if total: total *= scale` -> `total *= scale`.

    Realistic: the special case (`None`, an empty input, a zero) that the statement must not
    run on, which its author never met: the commonest conditional repair in the bug-fix
    studies ("missing null check"). Only an `if` without `else` around one statement; a jump
    (`return`, `raise`, ...) only when the `if` is its block's last statement, since anywhere
    else the code after it would become dead.
    """

    name = "beyond/drop-condition"
    family = Family.BEYOND
    explanation = "`{original}` lost its condition: the statement now runs in the case it must skip"
    matcher = m.If(orelse=None)
    examples = (
        Example(
            before=(
                "def f(total, scale, date):\n    if total:\n        total *= scale  # scaled\n"
                "    if date is not None:\n        return str(date)\n"
            ),
            after=(
                "def f(total, scale, date):\n    total *= scale  # scaled\n"
                "    if date is not None:\n        return str(date)\n",
                "def f(total, scale, date):\n    if total:\n        total *= scale  # scaled\n"
                "    return str(date)\n",
            ),
        ),
        # a guard followed by more code, an if/else, two statements
        Example(
            before=(
                "def f(x):\n    if x is None:\n        return 0\n    if x:\n        x += 1\n    else:\n"
                "        x -= 1\n    if x > 2:\n        x = 2\n        x += 1\n    return x\n"
            ),
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[cst.CSTNode]:
        statement = _lone_if(node, ctx)
        if statement is None:
            return
        jumps = isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[-1], _JUMPS)
        if jumps and not _is_last(node, ctx):
            return
        yield statement.with_changes(leading_lines=node.leading_lines)


_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


def _one_statement(block: cst.BaseSuite) -> _Statement | None:
    """The statement of a block that holds one, else None."""
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        statement = block.body[0]
        return statement if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) else None
    return None


def _standing_in(statement: _Statement, node: cst.If | cst.Try, ctx: Context) -> cst.CSTNode | None:
    """`statement` in place of the compound `node` around it, keeping `node`'s blank lines and
    comments above; None when it jumps (`return`, `raise`, ...) and `node` is not its block's
    last statement, since the code after it would become dead."""
    jumps = isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[-1], _JUMPS)
    if jumps and not _is_last(node, ctx):
        return None
    return statement.with_changes(leading_lines=[*node.leading_lines, *statement.leading_lines])


class FirstBranchOnly(Mutator[cst.If]):
    """An `if`/`else` (or `elif`) is only its first branch: `if return_indexers: return idx,
    lidx, ridx` / `else: return idx` becomes `return idx, lidx, ridx`.

    Realistic: the code was written for the case its author had in mind, and the other case
    (an option turned off, the other axis, a caller that wants no error raised) came with the
    fix (BugsInPy: pandas 4, 5 and 155, matplotlib 5, fastapi 12). Only a first branch of one
    statement; a jump only when the `if` is its block's last statement.
    """

    name = "beyond/first-branch-only"
    family = Family.BEYOND
    explanation = "`{original}` became its first branch: the other case is no longer handled"
    matcher = m.If(orelse=m.Else() | m.If())
    examples = (
        Example(
            before="def f(idx, lidx, ridx, return_indexers):\n    idx = idx.trim()\n"
                   "    if return_indexers:\n        return idx, lidx, ridx\n    else:\n        return idx\n",
            after=("def f(idx, lidx, ridx, return_indexers):\n    idx = idx.trim()\n"
                   "    return idx, lidx, ridx\n",),
        ),
        Example(
            before="def f(lw, default):\n    if lw is None:\n        lw = default\n"
                   "    elif np.iterable(lw):\n        lw = [w or default for w in lw]\n    return lw\n",
            after=("def f(lw, default):\n    lw = default\n    return lw\n",),
        ),
        # a jump before more code; a first branch of two statements; an `if` without `else`
        Example(
            before="def f(x):\n    if x:\n        return 1\n    else:\n        x = 2\n    if x > 2:\n"
                   "        x = 2\n        x += 1\n    else:\n        x = 0\n    if x:\n        x += 1\n    return x\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(ctx.parent(node), cst.If) or ctx.function(node) is None:
            return  # an `elif` is a branch of the `if` that holds it
        statement = _one_statement(node.body)
        kept = None if statement is None else _standing_in(statement, node, ctx)
        if kept is not None:
            yield kept


def _raises_again(handler: cst.ExceptHandler) -> bool:
    """`except ValueError: raise ValueError(msg)`, or a bare `raise`: the same exception escapes."""
    raised = _one_statement(handler.body)
    if raised is None or not m.matches(raised, m.SimpleStatementLine(body=[m.Raise()])):
        return False
    exc = cst.ensure_type(cst.ensure_type(raised, cst.SimpleStatementLine).body[0], cst.Raise).exc
    if exc is None:
        return True
    caught = handler.type
    made = exc.func if isinstance(exc, cst.Call) else exc
    return isinstance(caught, cst.Name) and m.matches(made, m.Name(caught.value))


class DropTry(Mutator[cst.Try]):
    """The `try` around a statement is dropped, with its handlers: `try: parts.pop(i)` / `except
    IndexError: pass` becomes `parts.pop(i)`.

    Realistic: the input that raises (a short list, a malformed number, a missing setting) is
    the one its author never met, and the handler came with the fix (BugsInPy: sanic 4,
    thefuck 9, youtube-dl 28). Only a `try` of one statement, with neither `else` nor
    `finally`; a jump only when the `try` is its block's last statement.
    """

    name = "beyond/drop-try"
    family = Family.BEYOND
    explanation = "`{original}` lost its handler: the exception it caught now escapes"
    matcher = m.Try(orelse=None, finalbody=None)
    examples = (
        Example(
            before="def f(parts, i):\n    try:\n        parts.pop(i)\n    except IndexError:\n        pass\n"
                   "    return parts\n",
            after=("def f(parts, i):\n    parts.pop(i)\n    return parts\n",),
        ),
        # a body of two statements; a `finally`; a jump before more code; a message translated
        Example(
            before="def f(x, lock):\n    try:\n        x = int(x)\n        x += 1\n    except ValueError:\n"
                   "        x = 0\n    try:\n        x = g(x)\n    finally:\n        lock.release()\n"
                   "    try:\n        return int(x)\n    except ValueError:\n        pass\n"
                   "    try:\n        x = int(x)\n    except ValueError as e:\n        raise ValueError('bad') from e\n"
                   "    return 0\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Try, ctx: Context) -> Iterator[cst.CSTNode]:
        statement = _one_statement(node.body)
        if statement is None or ctx.function(node) is None or all(map(_raises_again, node.handlers)):
            return
        kept = _standing_in(statement, node, ctx)
        if kept is not None:
            yield kept


class DeleteConditionalUpdate(Mutator[cst.If]):
    """A one-line special case is deleted: `if encoding is None: encoding = "utf-8"`.

    Realistic: a default filled in, a shape fixed, a value normalised, but only in one case;
    BugsInPy fixes add such an `if` again and again, and every test of the common case passes
    without it. Guards that jump are `beyond/remove-guard`'s.
    """

    name = "beyond/delete-conditional-update"
    family = Family.BEYOND
    explanation = "`{original}` was deleted: the special case is no longer handled"
    matcher = m.If(
        orelse=None,
        body=m.IndentedBlock(body=[m.SimpleStatementLine(body=[m.Assign() | m.AugAssign()])]),
    )
    examples = (
        Example(
            before="def f(path, encoding=None):\n    if encoding is None:\n        encoding = 'utf-8'\n"
                   "    return open(path, encoding=encoding)\n",
            after=("def f(path, encoding=None):\n    return open(path, encoding=encoding)\n",),
        ),
        # a guard that jumps, an if/else, module level
        Example(
            before="if X:\n    Y = 1\n\ndef f(x):\n    if x:\n        return 1\n    if x:\n        x = 1\n"
                   "    else:\n        x = 2\n    return x\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.If, ctx: Context) -> Iterator[cst.RemovalSentinel]:
        if _lone_if(node, ctx) is not None:
            yield cst.RemovalSentinel.REMOVE


_LOOPS = (cst.For, cst.While)


class DeleteRebinding(Mutator[cst.SimpleStatementLine]):
    """A loop-carried variable is not advanced: `prevnode = node` deleted from a loop's body.

    Realistic: the "previous", "best" or "current" value that a loop must carry to its next
    round, set before the loop and read inside it; without the rebinding every round sees the
    first value. `beyond/delete-update` leaves plain local assignments alone, since most of them
    only name a value; this one deletes only those a loop carries.
    """

    name = "beyond/delete-rebinding"
    family = Family.BEYOND
    explanation = "`{original}` was deleted: the loop never carries this value to its next round"
    matcher = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(target=m.Name())])])
    examples = (
        Example(
            before=(
                "def reverse(node):\n    prevnode = None\n    while node:\n        nextnode = node.next\n"
                "        node.next = prevnode\n        prevnode = node\n        node = nextnode\n    return prevnode\n"
            ),
            after=(
                "def reverse(node):\n    prevnode = None\n    while node:\n        nextnode = node.next\n"
                "        node.next = prevnode\n        node = nextnode\n    return prevnode\n",
                "def reverse(node):\n    prevnode = None\n    while node:\n        nextnode = node.next\n"
                "        node.next = prevnode\n        prevnode = node\n    return prevnode\n",
            ),
        ),
        # a value named inside the loop only (`nextnode`), an assignment outside any loop
        Example(
            before="def f(xs):\n    total = 0\n    for x in xs:\n        y = x * 2\n        print(y)\n    total = 1\n"
                   "    return total\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.SimpleStatementLine, ctx: Context) -> Iterator[cst.RemovalSentinel]:
        function = ctx.function(node)
        loop = next((a for a in ctx.ancestors(node) if isinstance(a, (*_LOOPS, cst.FunctionDef))), None)
        if function is None or not isinstance(loop, _LOOPS):
            return
        assign = cst.ensure_type(node.body[0], cst.Assign)
        name = cst.ensure_type(assign.targets[0].target, cst.Name).value
        if name in _loaded_names(assign.value):
            return  # `x = x[keep]` updates itself: `beyond/delete-update`'s
        if _carried(name, loop, function):
            yield cst.RemovalSentinel.REMOVE


def _carried(name: str, loop: cst.For | cst.While, function: cst.FunctionDef) -> bool:
    """Is `name` a parameter or bound before `loop` in `function`, and read inside the loop?"""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    bound_before = any(param.name.value == name for param in every)
    for statement in function.body.body:
        if any(found is loop for found in m.findall(statement, m.For() | m.While())):
            break
        targets = find_all(statement, cst.AssignTarget, m.AssignTarget())
        bound_before = bound_before or any(find_all(t.target, cst.Name, m.Name(name)) for t in targets)
    if not bound_before:
        return False
    if isinstance(loop, cst.While) and name in _loaded_names(loop.test):
        return True
    stores = {id(t.target) for t in find_all(loop.body, cst.AssignTarget, m.AssignTarget())}
    attributes = {id(a.attr) for a in find_all(loop.body, cst.Attribute, m.Attribute())}
    return any(
        id(found) not in stores and id(found) not in attributes
        for found in find_all(loop.body, cst.Name, m.Name(name))
    )
