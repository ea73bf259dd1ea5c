"""Reading and editing a call's arguments, keeping the source's own commas and whitespace.

A mutant should differ from the original only in the span that carries the bug, so an argument
that is dropped or appended leaves the call's layout (one line, or one argument per line with a
trailing comma and comments) as it was.
"""

from __future__ import annotations

import libcst as cst

# `key=value` as PEP 8 writes a keyword argument: what an added keyword looks like in any code.
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def callee(call: cst.Call) -> str | None:
    """The called name: `mean` for both `np.mean(x)` and `x.mean()`."""
    if isinstance(call.func, cst.Name):
        return call.func.value
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def method_of(call: cst.Call) -> cst.Attribute:
    """The `x.mean` of a method call `x.mean()`, for a call that its mutator's matcher (or a check
    before) has shown to call an attribute: the class is asserted, not tested."""
    return cst.ensure_type(call.func, cst.Attribute)


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


def leading_positional(call: cst.Call) -> list[cst.Arg]:
    """The positional arguments before any keyword or star argument."""
    args: list[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        args.append(arg)
    return args


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`, to append to a call with `with_arg`."""
    return cst.Arg(keyword=cst.Name(name), value=value, equal=_EQUAL)


def without_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """`call` without `arg`, keeping the layout: a trailing comma, comments, the line of `)`."""
    args = [each for each in call.args if each is not arg]
    if call.args and call.args[-1] is arg and args:
        args[-1] = _now_last(args[-1], arg)
    return call.with_changes(args=args)


def _now_last(previous: cst.Arg, removed: cst.Arg) -> cst.Arg:
    """`previous` in place of the removed last argument: its comment stays, `)` keeps its line."""
    comma = previous.comma
    gap = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    if not isinstance(comma, cst.Comma) or not isinstance(gap, cst.ParenthesizedWhitespace):
        return previous.with_changes(comma=removed.comma)  # one line: `f(x, axis=0)` → `f(x)`
    if isinstance(removed.comma, cst.Comma):  # a trailing comma stays, before the closing line
        closing = _closing(gap, removed.comma.whitespace_after)
        return previous.with_changes(comma=comma.with_changes(whitespace_after=closing))
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


def with_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """`call` with `arg` appended, in the call's layout (one line, or one argument per line)."""
    if not call.args:
        return call.with_changes(args=[arg])
    last = call.args[-1]
    trailing = last.comma
    closing = trailing.whitespace_after if isinstance(trailing, cst.Comma) else None
    before_last = call.args[-2].comma if len(call.args) > 1 else None
    between = before_last.whitespace_after if isinstance(before_last, cst.Comma) else None
    if (
        isinstance(trailing, cst.Comma)
        and isinstance(closing, cst.ParenthesizedWhitespace)
        and isinstance(between, cst.ParenthesizedWhitespace)
    ):
        # One argument per line with a trailing comma: `last` keeps its comment, `arg` gets a line.
        last_comma = trailing.with_changes(
            whitespace_after=closing.with_changes(indent=between.indent, last_line=between.last_line)
        )
        new_comma = trailing.with_changes(
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
