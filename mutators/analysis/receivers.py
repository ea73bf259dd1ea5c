"""Whose function a call calls: a module's (`np.mean(x)`), or a method of a value (`s.mean()`).

The difference decides where the data is: a module's function takes it as its first argument,
a method is called on it. Imports are read from the module's statements, not from libcst's
scope analysis, which costs about a second on a large file.
"""

from __future__ import annotations

import libcst as cst

from bugsmith.mutators.context import Context

# Names under which array libraries are usually imported: `np.mean(x)` is a function form whose
# first argument is the array, `x.mean()` a method form whose receiver is.
ARRAY_MODULES = frozenset({"np", "numpy", "jnp", "cp", "cupy", "torch", "xp"})  # xp: array API


def is_module_call(call: cst.Call, ctx: Context) -> bool:
    """`np.mean(x)` or `tf.squeeze(x)`: a module's function, whose first argument is the array."""
    return module_of(call, ctx) is not None


def module_of(call: cst.Call, ctx: Context) -> str | None:
    """`np` for `np.mean(x)`: the namespace whose function a module call calls, else None."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and is_namespace(func.value, ctx):
        return func.value.value
    return None


def imported_names(module: cst.Module) -> frozenset[str]:
    """Names bound by imports at module level (also inside top-level `if` and `try` blocks).

    Read from the statements directly: resolving libcst scopes costs about a second on a large file.
    """
    names: set[str] = set()
    statements: list[cst.CSTNode] = list(module.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (cst.If, cst.Try, cst.Else, cst.ExceptHandler)):
            statements.extend(statement.body.body)
        if isinstance(statement, cst.Try):
            statements.extend(statement.handlers)
        if isinstance(statement, (cst.If, cst.Try)) and statement.orelse is not None:
            statements.append(statement.orelse)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    names.update(_bound_name(alias) for alias in small.names)
    return frozenset(names)


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.evaluated_alias is not None:
        return alias.evaluated_alias
    return alias.evaluated_name.split(".")[0]  # `import a.b` binds `a`


def is_namespace(expr: cst.BaseExpression, ctx: Context) -> bool:
    """`self`, `np`, or any imported name: the call is a function of theirs, not a pandas method."""
    if not isinstance(expr, cst.Name):
        return False
    if expr.value in ("self", "cls", "pd", "pandas") or expr.value in ARRAY_MODULES:
        return True
    return expr.value in imported_names(ctx.module)


def method_receiver(node: cst.Call, ctx: Context) -> cst.BaseExpression | None:
    """The object of a pandas-looking method call, or None for a module's or a class's own method."""
    if not isinstance(node.func, cst.Attribute) or is_namespace(node.func.value, ctx):
        return None
    return node.func.value
