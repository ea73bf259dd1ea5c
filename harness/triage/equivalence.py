"""Why a survivor no input told apart may be equivalent, where the code shows it.

Two cheap arguments, read from the original file and the mutant alone (nothing is run):
- a dead store: the mutated assignment's target is a local name never read after it;
- a condition implied by an earlier guard: the mutated comparison and the original disagree only
  on values that a dominating `if ...: return/raise` (or the `if` whose `else` holds it) has
  already sent elsewhere.
Either is an argument for a reader to check, not a proof: the classification stays "possibly
equivalent".
"""

from __future__ import annotations

import ast
import copy
import itertools
from collections.abc import Iterator
from typing import Any

from bugsmith.mutators.mutant import Mutant

_EXITS = (ast.Return, ast.Raise)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def equivalence_argument(source: str, mutant: Mutant) -> str:
    """A one-sentence argument that the mutant cannot change behaviour, or ""."""
    try:
        tree = ast.parse(source)
        mutated = ast.parse(mutant.apply(source))
    except (SyntaxError, ValueError):
        return ""
    function = _innermost_function(tree, mutant.span.line)
    if function is None:
        return ""
    return _dead_store(function, mutant) or _implied(function, mutated, mutant)


def _innermost_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno <= line <= (node.end_lineno or 0):
            if found is None or node.lineno > found.lineno:
                found = node
    return found


def _within(node: ast.AST, mutant: Mutant) -> bool:
    """Whether the mutant's span lies inside `node`."""
    span = mutant.span
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return start <= (span.line, span.column) and (span.end_line, span.end_column) <= end


def _dead_store(function: ast.AST, mutant: Mutant) -> str:
    statement = _smallest(function, mutant, (ast.Assign, ast.AugAssign, ast.AnnAssign))
    if statement is None or statement.value is None:
        return ""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return ""
    name = targets[0].id
    whole = mutant.mutated.strip() in ("", "pass") and _within(statement, mutant)
    if not (whole or _within(statement.value, mutant)) or _has_effects(statement.value, mutant.mutated):
        return ""
    if any(isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(function)) or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars")
            for n in ast.walk(function)):
        return ""
    after = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
    loop = _enclosing_loop(function, statement)
    for node in ast.walk(function):
        if not _reads(node, name):
            continue
        where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        if where > after or (loop is not None and _contains(loop, node)) or _nested_scope(function, node):
            return ""
    return (f"a dead store: `{name}` is assigned on line {statement.lineno} and never read after it, so the "
            f"value the mutant changes is never used")


def _has_effects(value: ast.expr, mutated: str) -> bool:
    """Whether the stored value could do more than compute (a call, an await, a yield)."""
    nodes = list(ast.walk(value))
    try:
        nodes += list(ast.walk(ast.parse(mutated.strip() or "None", mode="eval")))
    except SyntaxError:
        pass
    return any(isinstance(n, ast.Call | ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr) for n in nodes)


def _reads(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load | ast.Del):
        return True
    return isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name


def _smallest(function: ast.AST, mutant: Mutant, kinds: tuple[type, ...]) -> Any:
    found = None
    for node in ast.walk(function):
        if isinstance(node, kinds) and _within(node, mutant):
            if found is None or _contains(found, node):
                found = node
    return found


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _enclosing_loop(function: ast.AST, statement: ast.AST) -> ast.AST | None:
    loops = [n for n in ast.walk(function) if isinstance(n, _LOOPS) and _contains(n, statement)]
    return loops[-1] if loops else None  # ast.walk is breadth-first: the last is the innermost


def _nested_scope(function: ast.AST, node: ast.AST) -> bool:
    """Whether `node` is in a function or lambda nested in `function` (a closure reads late)."""
    return any(n is not function and _contains(n, node) for n in ast.walk(function)
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))


def _implied(function: ast.AST, mutated_tree: ast.AST, mutant: Mutant) -> str:
    compare = _smallest(function, mutant, (ast.Compare,))
    if compare is None or len(compare.ops) != 1:
        return ""
    changed = next((n for n in ast.walk(mutated_tree) if isinstance(n, ast.Compare) and len(n.ops) == 1
                    and (n.lineno, n.col_offset) == (compare.lineno, compare.col_offset)), None)
    if changed is None or ast.dump(changed) == ast.dump(compare):
        return ""
    operands = [ast.unparse(e) for e in (compare.left, *compare.comparators) if not isinstance(e, ast.Constant)]
    if not 1 <= len(operands) <= 2 or len(set(operands)) != len(operands):
        return ""
    facts = list(_facts(function, compare))
    for guard, holds, line in facts:
        if _reassigned(function, operands, line, compare.lineno):
            continue
        verdict = _decided(compare, changed, guard, holds, operands)
        if verdict:
            kind = "returned or raised" if not holds else "left the other branch"
            return (f"a condition implied by an earlier guard: `{ast.unparse(compare)}` and "
                    f"`{ast.unparse(changed)}` disagree only at {verdict}, where the guard on line {line} "
                    f"(`if {ast.unparse(guard)}`) has already {kind}")
    return ""


def _facts(function: ast.AST, target: ast.AST) -> Iterator[tuple[ast.expr, bool, int]]:
    """Conditions known at `target`: (test, whether it holds there, its line), from the `if`s
    that enclose it and the earlier `if`s of its blocks whose body always returns or raises."""
    for node in ast.walk(function):
        if not isinstance(node, ast.If) or _contains(node.test, target):
            continue
        if any(_contains(s, target) for s in node.body):
            yield node.test, True, node.lineno
        elif any(_contains(s, target) for s in node.orelse):
            yield node.test, False, node.lineno
        elif _exits(node.body) and _dominates(function, node, target):
            yield node.test, False, node.lineno


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _EXITS)


def _dominates(function: ast.AST, guard: ast.If, target: ast.AST) -> bool:
    """Whether `guard` is an earlier statement of a block that holds `target` (at any depth)."""
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or guard not in block:
                continue
            after = block[block.index(guard) + 1:]
            return any(_contains(s, target) for s in after)
    return False


def _reassigned(function: ast.AST, operands: list[str], start: int, end: int) -> bool:
    names = {n.id for e in operands for n in ast.walk(ast.parse(e, mode="eval")) if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
               and start <= n.lineno <= end for n in ast.walk(function))


def _decided(original: ast.Compare, mutated: ast.Compare, guard: ast.expr, holds: bool,
             operands: list[str]) -> str:
    """The points where the two comparisons disagree, if every one is ruled out by the guard
    (and the guard speaks only of the comparison's operands); else ""."""
    placeholders = {text: f"_v{i}" for i, text in enumerate(operands)}
    try:
        first, second, condition = (compile(ast.Expression(_substituted(e, placeholders)), "<guard>", "eval")
                                    for e in (original, mutated, guard))
    except ValueError:
        return ""
    numbers = {float(n.value) for e in (original, mutated, guard) for n in ast.walk(e)
               if isinstance(n, ast.Constant) and isinstance(n.value, int | float) and not isinstance(n.value, bool)}
    grid = sorted({v + d for v in numbers | {0.0} for d in (-1.0, -0.5, 0.0, 0.5, 1.0)})
    disagree = []
    for point in itertools.product(grid, repeat=len(operands)):
        scope = {f"_v{i}": v for i, v in enumerate(point)}
        try:
            differ = eval(first, {"__builtins__": {}}, scope) != eval(second, {"__builtins__": {}}, scope)  # noqa: S307
            if differ and bool(eval(condition, {"__builtins__": {}}, scope)) is not holds:  # noqa: S307
                disagree.append(point)
                continue
            if differ:
                return ""
        except Exception:  # noqa: BLE001 - a guard that is not arithmetic on these operands
            return ""
    if not disagree:
        return ""
    shown = [", ".join(f"{o} = {_number(v)}" for o, v in zip(operands, p)) for p in disagree[:3]]
    return " and ".join(shown) + (" and others" if len(disagree) > 3 else "")


def _substituted(expression: ast.expr, placeholders: dict[str, str]) -> ast.expr:
    """`expression` with each operand replaced by its placeholder; ValueError if any other name
    remains (the guard then speaks of something else)."""

    class Replace(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if isinstance(node, ast.expr) and ast.unparse(node) in placeholders:
                return ast.copy_location(ast.Name(id=placeholders[ast.unparse(node)], ctx=ast.Load()), node)
            return super().visit(node)

    replaced = Replace().visit(copy.deepcopy(expression))
    if not isinstance(replaced, ast.expr):
        raise ValueError("not an expression")
    nodes = list(ast.walk(replaced))
    if any(isinstance(n, ast.Name) and n.id not in placeholders.values() for n in nodes) or any(
            isinstance(n, ast.Call | ast.Attribute | ast.Subscript) for n in nodes):
        raise ValueError("the condition reads more than the comparison's operands")
    return ast.fix_missing_locations(replaced)


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
