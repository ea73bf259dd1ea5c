"""Reading and rewriting call arguments and receivers, shared by the shape, window and leakage families.

Every rewrite here keeps the source's own commas and whitespace, so a mutant differs from the
original only in the span that carries the bug.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Mutator, Proposal, Rewrite, as_rewrites
from bugsmith.mutators.context import Context

# Names under which array libraries are usually imported: `np.mean(x)` is a function form whose
# first argument is the array, `x.mean()` a method form whose receiver is.
ARRAY_MODULES = frozenset({"np", "numpy", "jnp", "cp", "cupy", "torch", "xp"})  # xp: array API
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
    cst.SimpleString, cst.List, cst.Dict, cst.Set,
)
# Where an operand may stand without parentheses whatever its precedence.
_LOOSE_PARENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Element,
    cst.Expr, cst.Index, cst.DictElement,
)


def callee(call: cst.Call) -> str | None:
    """The called name: `mean` for both `np.mean(x)` and `x.mean()`."""
    if isinstance(call.func, cst.Name):
        return call.func.value
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def is_module_call(call: cst.Call, ctx: Context) -> bool:
    """`np.mean(x)` or `tf.squeeze(x)`: a module's function, whose first argument is the array."""
    return isinstance(call.func, cst.Attribute) and is_namespace(call.func.value, ctx)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((arg for arg in call.args if arg.keyword and arg.keyword.value == name), None)


def positional(call: cst.Call, index: int) -> cst.Arg | None:
    """The `index`-th positional argument, or None when absent or hidden behind `*args`."""
    for position, arg in enumerate(call.args):
        if arg.keyword is not None or arg.star:
            return None
        if position == index:
            return arg
    return None


def without_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """`call` without `arg`, keeping the layout: a trailing comma, comments, the line of `)`."""
    args = [each for each in call.args if each is not arg]
    if call.args and call.args[-1] is arg and args:
        args[-1] = _now_last(args[-1], arg)
    return call.with_changes(args=args)


def _now_last(previous: cst.Arg, removed: cst.Arg) -> cst.Arg:
    """`previous` in place of the removed last argument: its comment stays, `)` keeps its line."""
    gap = previous.comma.whitespace_after if isinstance(previous.comma, cst.Comma) else None
    if not isinstance(gap, cst.ParenthesizedWhitespace):  # one line: `f(x, axis=0)` → `f(x)`
        return previous.with_changes(comma=removed.comma)
    if isinstance(removed.comma, cst.Comma):  # a trailing comma stays, before the closing line
        closing = _closing(gap, removed.comma.whitespace_after)
        return previous.with_changes(comma=previous.comma.with_changes(whitespace_after=closing))
    return previous.with_changes(
        comma=cst.MaybeSentinel.DEFAULT,
        whitespace_after_arg=_closing(gap, removed.whitespace_after_arg),
    )


def _closing(
    gap: cst.ParenthesizedWhitespace, closing: cst.BaseParenthesizableWhitespace
) -> cst.ParenthesizedWhitespace:
    """`gap`'s comment and newline, then the indentation that `closing` gave to `)`."""
    if isinstance(closing, cst.ParenthesizedWhitespace):
        return gap.with_changes(indent=closing.indent, last_line=closing.last_line)
    return gap.with_changes(indent=True, last_line=cst.SimpleWhitespace(""))


def with_arg(call: cst.Call, arg: cst.Arg, ctx: Context | None = None) -> cst.Call:
    """`call` with `arg` appended, in the call's layout (one line, or one argument per line).

    `ctx` is accepted, unused, because callers were written against a first version that took it.
    """
    if not call.args:
        return call.with_changes(args=[arg])
    last = call.args[-1]
    closing = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else None
    before_last = call.args[-2].comma if len(call.args) > 1 else None
    between = before_last.whitespace_after if isinstance(before_last, cst.Comma) else None
    if isinstance(closing, cst.ParenthesizedWhitespace) and isinstance(between, cst.ParenthesizedWhitespace):
        # One argument per line with a trailing comma: `last` keeps its comment, `arg` gets a line.
        last_comma = last.comma.with_changes(
            whitespace_after=closing.with_changes(indent=between.indent, last_line=between.last_line)
        )
        new_comma = last.comma.with_changes(
            whitespace_after=closing.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
        )
        return call.with_changes(
            args=[*call.args[:-1], last.with_changes(comma=last_comma), arg.with_changes(comma=new_comma)]
        )
    separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return call.with_changes(
        args=[
            *call.args[:-1],
            last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace("")),
            arg.with_changes(comma=last.comma, whitespace_after_arg=last.whitespace_after_arg),
        ]
    )


def replaced_arg(call: cst.Call, arg: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    return call.with_changes(
        args=[each.with_changes(value=value) if each is arg else each for each in call.args]
    )


def in_place_of(original: cst.BaseExpression, new: cst.BaseExpression, ctx: Context) -> cst.BaseExpression:
    """`new`, parenthesised when it would otherwise bind differently where `original` stood."""
    if original.lpar:
        return new.with_changes(lpar=[*original.lpar, *new.lpar], rpar=[*new.rpar, *original.rpar])
    if new.lpar or isinstance(new, _ATOMS) or isinstance(ctx.parent(original), _LOOSE_PARENTS):
        return new
    return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def int_value(expr: cst.BaseExpression) -> int | None:
    """The value of an integer literal, `-1` included; None for anything else."""
    if isinstance(expr, cst.Integer) and not expr.lpar:
        return int(expr.evaluated_value)
    if m.matches(expr, m.UnaryOperation(operator=m.Minus(), expression=m.Integer())):
        return -int(expr.expression.evaluated_value)
    return None


def with_text(string: cst.SimpleString, text: str) -> cst.SimpleString:
    """`string` holding `text` instead, with its own prefix and quotes."""
    return string.with_changes(value=string.prefix + string.quote + text + string.quote)


def imported_names(module: cst.Module) -> frozenset[str]:
    """Names bound by imports at module level (also inside top-level `if` and `try` blocks).

    Read from the statements directly: resolving libcst scopes costs about a second on a large file.
    """
    names: set[str] = set()
    statements = list(module.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (cst.If, cst.Try, cst.Else)):
            statements.extend(statement.body.body)
            statements.extend(getattr(statement, "handlers", ()))
            if getattr(statement, "orelse", None) is not None:
                statements.append(statement.orelse)
        elif isinstance(statement, cst.ExceptHandler):
            statements.extend(statement.body.body)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                imports = isinstance(small, (cst.Import, cst.ImportFrom))
                if imports and not isinstance(small.names, cst.ImportStar):
                    names.update(_bound_name(alias) for alias in small.names)
    return frozenset(names)


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    name = alias.name
    while isinstance(name, cst.Attribute):  # `import a.b` binds `a`
        name = name.value
    return name.value


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


def spelled_out(
    mutate: Callable[[Mutator, cst.CSTNode, Context], Iterable[Proposal]],
) -> Callable[[Mutator, cst.CSTNode, Context], Iterator[Rewrite]]:
    """Give each rewrite that only inserts or deletes text an explanation quoting whole expressions.

    The engine quotes the changed token run, which is empty on one side when the edit is a pure
    insertion or deletion next to a bracket (`len(x)` → `len(x) - 1` reads "`` became ` - 1`"),
    or cuts brackets in half (`.cumsum(` → `.transform("sum"`). Such rewrites get the
    explanation filled in with the target's and the replacement's code.
    """

    @functools.wraps(mutate)
    def wrapper(self: Mutator, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        for rewrite in as_rewrites(mutate(self, node, ctx)):
            target = rewrite.target or node
            if isinstance(rewrite.replacement, cst.RemovalSentinel):
                yield rewrite
                continue
            old, new = ctx.code(target), ctx.code(rewrite.replacement)
            if not _quotable(old, new):
                old, new = _excerpts(old, new)
                text = (rewrite.explanation or self.explanation).format(original=old, mutated=new)
                rewrite = Rewrite(
                    replacement=rewrite.replacement,
                    target=rewrite.target,
                    explanation=text.replace("{", "{{").replace("}", "}}"),
                )
            yield rewrite

    return wrapper


def _common_prefix(a: str, b: str) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return size


def _quotable(old: str, new: str) -> bool:
    """Whether the changed runs of `old` and `new` read well alone: non-empty, brackets balanced."""
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    return all(_balanced(text[prefix : len(text) - suffix]) for text in (old, new))


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return False
    return bool(text) and depth == 0 and text.count('"') % 2 == 0 and text.count("'") % 2 == 0


def _excerpts(old: str, new: str, width: int = 60, context: int = 15) -> tuple[str, str]:
    """Both texts on one line; when long, only the part around the change, marked with "..."."""
    old, new = " ".join(old.split()), " ".join(new.split())
    if max(len(old), len(new)) <= width:
        return old, new
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    # Cut at spaces so that no quoted word is split: `...entity).rolling(w, ...` not `...olling(w`.
    start = old.rfind(" ", 0, max(0, prefix - context)) + 1
    end = old.find(" ", len(old) - max(0, suffix - context))
    cut = 0 if end < 0 else len(old) - end
    return tuple(  # type: ignore[return-value]
        ("..." if start else "") + text[start : len(text) - cut] + ("..." if cut else "")
        for text in (old, new)
    )


_BOUNDARY_FLIP = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
}


def boundary_flips(
    node: cst.Comparison, involved: Callable[[cst.BaseExpression], bool]
) -> Iterator[cst.Comparison]:
    """`<` <-> `<=` and `>` <-> `>=`, one comparison at a time, where an operand is `involved`."""
    left = node.left
    for index, target in enumerate(node.comparisons):
        flip = _BOUNDARY_FLIP.get(type(target.operator))
        if flip is not None and (involved(left) or involved(target.comparator)):
            operator = flip(
                whitespace_before=target.operator.whitespace_before,
                whitespace_after=target.operator.whitespace_after,
            )
            comparisons = list(node.comparisons)
            comparisons[index] = target.with_changes(operator=operator)
            yield node.with_changes(comparisons=comparisons)
        left = target.comparator
