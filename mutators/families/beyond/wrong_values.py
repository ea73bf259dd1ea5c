"""Beyond-classic bugs of a value one word off: a sentinel or a caught exception type swapped.

`best = float("inf")` written as `0` or `-inf`, `except KeyError` where the code raises
`IndexError`: the program runs, and is wrong only on the input where the sentinel is beaten
or the error happens (the fault taxonomies of Humbatova et al. 2020 and Islam et al. 2019 list
both).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_MODULES = m.Name("np") | m.Name("numpy") | m.Name("math")


def _float_of(pattern: str) -> m.Call:
    """`float("inf")` and the like: the string matched by `pattern`, in either quotes."""
    string = m.SimpleString(value=m.MatchRegex(f"^['\"]{pattern}['\"]$"))
    return m.Call(func=m.Name("float"), args=[m.Arg(value=string)])


_INFINITY = m.Attribute(value=_MODULES, attr=m.Name("inf"))
_FLOAT_INF = _float_of(r"\+?inf")
_FLOAT_NEG_INF = _float_of("-inf")
_NAN = m.Attribute(value=_MODULES, attr=m.Name("nan"))
_FLOAT_NAN = _float_of("nan")
_NEGATED = m.UnaryOperation(operator=m.Minus(), expression=_INFINITY | _FLOAT_INF)


def _negated(node: cst.BaseExpression) -> cst.BaseExpression:
    return cst.UnaryOperation(operator=cst.Minus(), expression=node.with_changes(lpar=[], rpar=[]), lpar=node.lpar,
                              rpar=node.rpar)


class SwapSentinel(Mutator[cst.BaseExpression]):
    """A sentinel is swapped: `inf` for `-inf` and back, `inf` or `nan` for `0`.

    Realistic: the start value of a running minimum or maximum taken from the wrong end, or a
    missing value filled with 0; the code runs, and is wrong only when every real value is
    beyond the sentinel (all negative, all large) or a value is missing.
    """

    name = "beyond/swap-sentinel"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the sentinel value is the wrong one"
    matcher = _INFINITY | _FLOAT_INF | _FLOAT_NEG_INF | _NAN | _FLOAT_NAN | _NEGATED
    examples = (
        Example(
            before="import numpy as np\n\ndef f(xs):\n    best = np.inf\n    return best, float('-inf')\n",
            after=(
                "import numpy as np\n\ndef f(xs):\n    best = -np.inf\n    return best, float('-inf')\n",
                "import numpy as np\n\ndef f(xs):\n    best = 0\n    return best, float('-inf')\n",
                "import numpy as np\n\ndef f(xs):\n    best = np.inf\n    return best, float('inf')\n",
                "import numpy as np\n\ndef f(xs):\n    best = np.inf\n    return best, 0\n",
            ),
        ),
        Example(
            before="import numpy as np\n\ndef f(x):\n    return np.where(x > 0, x, np.nan)\n",
            after=("import numpy as np\n\ndef f(x):\n    return np.where(x > 0, x, 0.0)\n",),
        ),
        # other attributes, strings that are not infinity; module level
        Example(before="import numpy as np\nINF = np.inf\n\ndef f(x):\n    return np.pi, float('1.5')\n", after=()),
    )

    def mutate(self, node: cst.BaseExpression, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None:
            return
        parent = ctx.parent(node)
        if isinstance(parent, cst.UnaryOperation) and m.matches(parent, _NEGATED):
            return  # `-np.inf`: the negation is the site
        zero = cst.Integer("0")
        if m.matches(node, _NAN | _FLOAT_NAN):
            yield Rewrite(replacement=cst.Float("0.0", lpar=node.lpar, rpar=node.rpar))
        elif m.matches(node, _NEGATED):
            yield Rewrite(replacement=cst.ensure_type(node, cst.UnaryOperation).expression.with_changes(
                lpar=node.lpar, rpar=node.rpar))
            yield Rewrite(replacement=zero.with_changes(lpar=node.lpar, rpar=node.rpar))
        elif m.matches(node, _FLOAT_NEG_INF):
            call = cst.ensure_type(node, cst.Call)
            string = cst.ensure_type(call.args[0].value, cst.SimpleString)
            positive = string.with_changes(value=string.value.replace("-", ""))
            yield Rewrite(replacement=call.with_changes(args=[call.args[0].with_changes(value=positive)]))
            yield Rewrite(replacement=zero.with_changes(lpar=node.lpar, rpar=node.rpar))
        else:
            yield Rewrite(replacement=_negated(node))
            yield Rewrite(replacement=zero.with_changes(lpar=node.lpar, rpar=node.rpar))


# Exceptions that one kind of code raises where another was expected: a lookup in a dict or in
# a list, a bad value or a bad type.
_SIBLING_EXCEPTIONS = {
    "KeyError": "IndexError", "IndexError": "KeyError", "ValueError": "TypeError",
    "TypeError": "ValueError", "AttributeError": "TypeError", "ZeroDivisionError": "ValueError",
}


class SwapException(Mutator[cst.ExceptHandler]):
    """`except KeyError:` becomes `except IndexError:`, `ValueError` and `TypeError` swap.

    Realistic: the handler written for the error its author expected, not the one the code
    raises (a list indexed where a dict was looked up); the error escapes. Exception types in
    `raise` are not changed: bugsmith never mutates a `raise` (its messages are noise).
    """

    name = "beyond/swap-exception"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the handler catches the wrong exception"
    matcher = m.ExceptHandler(type=m.Name())
    examples = (
        Example(
            before="def f(d, k):\n    try:\n        return d[k]\n    except KeyError:\n        return None\n",
            after=("def f(d, k):\n    try:\n        return d[k]\n    except IndexError:\n        return None\n",),
        ),
        # a tuple of types; a handler that only re-raises the type it caught, with a new message
        Example(before="def f(d, k):\n    try:\n        return d[k]\n    except (KeyError, OSError):\n        pass\n",
                after=()),
        Example(
            before=(
                "def f(w):\n    try:\n        return g(w)\n    except ValueError as e:\n"
                "        raise ValueError('bad') from e\n"
            ),
            after=(),
        ),
    )

    def mutate(self, node: cst.ExceptHandler, ctx: Context) -> Iterator[cst.CSTNode]:
        kind = cst.ensure_type(node.type, cst.Name)  # as matched
        sibling = _SIBLING_EXCEPTIONS.get(kind.value)
        if sibling is not None and not _translates_to_itself(node, kind.value):
            yield node.with_changes(type=kind.with_changes(value=sibling))


def _translates_to_itself(handler: cst.ExceptHandler, kind: str) -> bool:
    """`except ValueError: raise ValueError("clearer message")`: missed, the original error
    escapes with the same type, so the swap changes a message only."""
    body = handler.body.body
    raised = m.SimpleStatementLine(body=[m.Raise(exc=m.Call(func=m.Name(kind)) | m.Name(kind))])
    return len(body) == 1 and m.matches(body[0], raised)
