"""Classic mutations of what a function hands back or a loop does next.

A result never returned, a predicate answering the opposite, a `break` that should have been a
`continue`: each is one word, and the caller runs on with a plausible value.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family


def _returns_values(node: cst.Return, ctx: Context) -> bool:
    """Is `node` in a function whose callers use what it returns?"""
    function = ctx.function(node)
    if function is None or function.name.value.startswith("__"):
        return False  # dunders must return their type: `None` there is a loud TypeError
    return not _is_generator(function)


class _YieldFinder(cst.CSTVisitor):
    """Finds a `yield` of the visited function itself, not of a function nested in it."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Yield, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            self.found = self.found or isinstance(node, cst.Yield)
            return False
        return not self.found


def _is_generator(function: cst.FunctionDef) -> bool:
    finder = _YieldFinder()
    function.body.visit(finder)
    return finder.found


class ReturnNone(Mutator[cst.Return]):
    """`return result` becomes `return None`: the function forgets to hand back its result.

    Realistic: a result built in place and never returned, or a return lost in a refactor;
    the caller gets `None`, which often flows on until far from the bug. Generators and dunder
    methods are skipped.
    """

    name = "classic/return-none"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the function no longer returns its result"
    matcher = m.Return(value=~m.Name("None") & ~m.Name("True") & ~m.Name("False"))
    examples = (
        Example(
            before="def f(x):\n    if x:\n        return None\n    return(x + 1)\n",
            after=("def f(x):\n    if x:\n        return None\n    return None\n",),
        ),
        Example(
            before="def f(x):\n    yield x\n    return x\n\nclass A:\n    def __len__(self):\n        return 0\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        if node.value is None or not _returns_values(node, ctx):
            return
        space = node.whitespace_after_return
        if isinstance(space, cst.SimpleWhitespace) and not space.value:
            space = cst.SimpleWhitespace(" ")
        yield node.with_changes(value=cst.Name("None"), whitespace_after_return=space)


class ReturnBool(Mutator[cst.Return]):
    """`return True` becomes `return False`, and back: a predicate answers the opposite."""

    name = "classic/return-bool"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: the predicate now answers the opposite in this case"
    matcher = m.Return(value=m.Name("True") | m.Name("False"))
    examples = (
        Example(
            before="def f(x):\n    if x < 0:\n        return False\n    return True\n",
            after=(
                "def f(x):\n    if x < 0:\n        return True\n    return True\n",
                "def f(x):\n    if x < 0:\n        return False\n    return False\n",
            ),
        ),
        Example(before="def f(x):\n    return x\n", after=()),
    )

    def mutate(self, node: cst.Return, ctx: Context) -> Iterator[cst.CSTNode]:
        value = cst.ensure_type(node.value, cst.Name)  # `True` or `False`, as matched
        yield node.with_changes(value=value.with_changes(value="False" if value.value == "True" else "True"))


class BreakContinue(Mutator[cst.Break | cst.Continue]):
    """`break` becomes `continue`, and back: a loop that should stop goes on, or stops early."""

    name = "classic/break-continue"
    family = Family.CLASSIC
    explanation = (
        "`{original}` became `{mutated}`: the loop goes on where it should stop, or stops where it "
        "should go on"
    )
    matcher = m.Break() | m.Continue()
    examples = (
        Example(
            before="def f(xs):\n    for x in xs:\n        if x:\n            break\n    return x\n",
            after=("def f(xs):\n    for x in xs:\n        if x:\n            continue\n    return x\n",),
        ),
        Example(before="def f(xs):\n    for x in xs:\n        pass\n", after=()),
    )

    def mutate(self, node: cst.Break | cst.Continue, ctx: Context) -> Iterator[cst.CSTNode]:
        new_type = cst.Continue if isinstance(node, cst.Break) else cst.Break
        yield new_type(semicolon=node.semicolon)
