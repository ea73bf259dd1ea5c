"""Which public functions of a module reach a private one: the way a user's test gets to it.

A survivor in `_helper` is shown by a call a user makes, `parse(text)`, when `parse` calls
`_helper`; a witness that calls `_helper` itself pins an implementation detail. Callers are
found by name in the same module's source (`_helper(...)`, `self._helper(...)`,
`cls._helper(...)`), through private callers up to a few levels. Pure: source text only, so
the coordinator records their calls and sends them with the probe (harness.child.triage.search
plans inputs from them). `is_private` is the child's rule (harness.child.triage.search), restated:
the coordinator imports nothing of the child side.
"""

from __future__ import annotations

import ast

_DEPTH = 3  # private callers looked through on the way up
_MOST = 4  # public callers kept per survivor


def is_private(qualname: str) -> bool:
    """`_weights`, `Scheduler._admit`, `f.<locals>.g`: not a name the problem's users call."""
    return any(part.startswith("_") and not part.endswith("__") or part == "<locals>"
               for part in qualname.split("."))


def public_callers(source: str, qualname: str) -> tuple[str, ...]:
    """The public functions and methods of `source` that call `qualname`, nearest first."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    calls = _calls_by_function(tree)
    found: list[str] = []
    wanted, seen = [qualname], {qualname}
    for _ in range(_DEPTH):
        names = {name.rpartition(".")[2] for name in wanted}
        callers = [f for f, called in calls.items() if f not in seen and called & names]
        seen.update(callers)
        found += [f for f in callers if not is_private(f)]
        wanted = [f for f in callers if is_private(f)]
        if not wanted:
            break
    return tuple(found[:_MOST])


def _calls_by_function(tree: ast.Module) -> dict[str, set[str]]:
    """For each function of the module (qualified name), the names it calls."""
    found: dict[str, set[str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found[prefix + child.name] = {
                    name for call in ast.walk(child) if isinstance(call, ast.Call)
                    for name in [_called(call.func)] if name}

    visit(tree, "")
    return found


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return func.attr
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr  # `Box._helper(...)`, `module._helper(...)`
    return ""
