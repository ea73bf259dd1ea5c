"""Beyond-classic bugs of a check loosened or tightened by one case: a type, an alternative, an end.

The check that refuses an input is written against the inputs its author thought of: a tuple of
accepted types or prefixes lacks one, `Integral` is written `int` (and `np.int64` is refused), a
range `0 <= i < n` loses its lower end (and -1 indexes from the back). Removing a whole guard is
`beyond/remove-guard`, a clause dropped from a condition `beyond/drop-clause` (the `and not
isinstance(x, bool)` that keeps booleans out), and `<` for `<=` at a limit
`classic/comparison-boundary`, which makes it in every comparison, checks included.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.checks import in_condition
from bugsmith.mutators.analysis.explanations import whole_change
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES, imported_names
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

_TYPE_TESTS = frozenset({"isinstance", "issubclass"})
_AFFIX_TESTS = frozenset({"startswith", "endswith"})
_MOST_ALTERNATIVES = 5  # a longer list is a table of values, not the cases a person enumerates
_TESTING_CALL = m.Call(
    func=m.Name(m.MatchIfTrue(_TYPE_TESTS.__contains__))
    | m.Attribute(attr=m.Name(m.MatchIfTrue(_AFFIX_TESTS.__contains__)))
)
_MEMBERSHIP = m.ComparisonTarget(operator=m.In() | m.NotIn(), comparator=m.Tuple() | m.List() | m.Set())
_ONE_END = "the range is checked at one end only, and a value past the other end passes"
_RISING = (cst.LessThan, cst.LessThanEqual)
_FALLING = (cst.GreaterThan, cst.GreaterThanEqual)


# Types whose instances another named type accepts too: `isinstance(x, (list, Sequence))` less
# `list` is the same test, so dropping it is no bug.
_SUPERTYPES: dict[str, frozenset[str]] = {
    "bool": frozenset({"int", "Integral", "Real", "Number"}),
    "int": frozenset({"Integral", "Real", "Number"}),
    "float": frozenset({"Real", "Number"}),
    **dict.fromkeys(("list", "tuple", "range"), frozenset({"Sequence", "Collection", "Iterable"})),
    "dict": frozenset({"Mapping", "MutableMapping"}),
    **dict.fromkeys(("OrderedDict", "defaultdict", "Counter"), frozenset({"dict", "Mapping", "MutableMapping"})),
    **dict.fromkeys(("set", "frozenset"), frozenset({"Set", "AbstractSet", "Collection", "Iterable"})),
}


def _last_name(expr: cst.BaseExpression) -> str | None:
    """`Sequence` of both `Sequence` and `collections.abc.Sequence`."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _without(display: cst.Tuple | cst.List | cst.Set, dropped: cst.BaseElement) -> cst.BaseExpression:
    """`display` without `dropped`; a single element left stands alone, as a person writes it
    (only where a tuple of one is called for: the type or the affix test's argument)."""
    kept = [element for element in display.elements if element is not dropped]
    if len(kept) == 1:
        return kept[0].value
    kept[-1] = kept[-1].with_changes(comma=display.elements[-1].comma)
    return display.with_changes(elements=kept)


def _alternatives(node: cst.Call | cst.ComparisonTarget) -> cst.Tuple | cst.List | cst.Set | None:
    """The display of the cases a test accepts, when it lists several."""
    if isinstance(node, cst.ComparisonTarget):
        fewest = 3  # `x in (a, b)` less one is `x == a`: a rewrite, not a case forgotten
        display: cst.BaseExpression | None = node.comparator
    else:
        fewest, type_test = 2, callee(node) in _TYPE_TESTS
        arg = positional(node, 1 if type_test else 0)
        exact = len(node.args) == (2 if type_test else 1)  # `s.startswith(p, start)` is a slice's
        display = arg.value if arg is not None and exact else None
    if not isinstance(display, (cst.Tuple, cst.List, cst.Set)):
        return None
    elements = display.elements
    if not fewest <= len(elements) <= _MOST_ALTERNATIVES or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    return display


class DropAlternative(Mutator[cst.Call | cst.ComparisonTarget]):
    """One case is dropped from the cases a test accepts: `isinstance(x, (np.ndarray,
    ExtensionArray))` -> `isinstance(x, np.ndarray)`, `arch.startswith(("armv", "aarch",
    "ppc"))` -> `("armv", "aarch")`, `s in (DONE, FAILED, UNKNOWN)` -> `(DONE, FAILED)`.

    Realistic: the tuple was written for the cases its author met, and the one added later by
    the fix (BugsInPy: pandas 10, ansible 16) is the one a test of the common case never
    exercises: that input is refused, or takes the other branch, and the code runs on.
    """

    name = "beyond/drop-alternative"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: one of the accepted cases is missing"
    matcher = _TESTING_CALL | _MEMBERSHIP
    examples = (
        Example(
            before="def f(new, arch):\n    if isinstance(new, (np.ndarray, ExtensionArray)):\n"
                   "        return arch.startswith(('armv', 'aarch', 'ppc'))\n",
            after=(
                "def f(new, arch):\n    if isinstance(new, ExtensionArray):\n"
                "        return arch.startswith(('armv', 'aarch', 'ppc'))\n",
                "def f(new, arch):\n    if isinstance(new, np.ndarray):\n"
                "        return arch.startswith(('armv', 'aarch', 'ppc'))\n",
                "def f(new, arch):\n    if isinstance(new, (np.ndarray, ExtensionArray)):\n"
                "        return arch.startswith(('aarch', 'ppc'))\n",
                "def f(new, arch):\n    if isinstance(new, (np.ndarray, ExtensionArray)):\n"
                "        return arch.startswith(('armv', 'ppc'))\n",
                "def f(new, arch):\n    if isinstance(new, (np.ndarray, ExtensionArray)):\n"
                "        return arch.startswith(('armv', 'aarch'))\n",
            ),
        ),
        Example(
            before="def f(task):\n    return task.status not in (DONE, DISABLED, UNKNOWN,)\n",
            after=(
                "def f(task):\n    return task.status not in (DISABLED, UNKNOWN,)\n",
                "def f(task):\n    return task.status not in (DONE, UNKNOWN,)\n",
                "def f(task):\n    return task.status not in (DONE, DISABLED,)\n",
            ),
        ),
        # one type, two values for `in`, a table of values, a name holding the cases, outside a function
        Example(
            before="def f(x, s, c, ok):\n    return isinstance(x, int), s in (1, 2), c in 'aeiouy', "
                   "c in ('a', 'b', 'c', 'd', 'e', 'f'), isinstance(x, ok)\n\nY = X in (1, 2, 3)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call | cst.ComparisonTarget, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None:
            return
        display = _alternatives(node)
        if display is None:
            return
        named = {_last_name(element.value) for element in display.elements}
        for element in display.elements:
            if not _SUPERTYPES.get(_last_name(element.value) or "", frozenset()) & named:
                yield Rewrite(replacement=_without(display, element), target=display)



_CASE_USES = (
    m.For(iter=m.Name()) | m.CompFor(iter=m.Name())
    | m.ComparisonTarget(operator=m.In() | m.NotIn(), comparator=m.Name())
)


def _walked(use: cst.CSTNode) -> str:
    """The name a `_CASE_USES` node loops over or tests membership in."""
    if isinstance(use, cst.ComparisonTarget):
        return cst.ensure_type(use.comparator, cst.Name).value
    if isinstance(use, cst.For):
        return cst.ensure_type(use.iter, cst.Name).value
    return cst.ensure_type(cst.ensure_type(use, cst.CompFor).iter, cst.Name).value


def _read_as_cases(name: str, function: cst.FunctionDef) -> bool:
    """Whether every read of the local `name` in `function` (past the one that binds it) walks
    its cases (`for check in name`) or tests membership (`x in name`)."""
    uses = [use for use in m.findall(function.body, _CASE_USES) if _walked(use) == name]
    reads = m.findall(function.body, m.Name(name))
    return bool(uses) and len(reads) == len(uses) + 1


class DropCase(Mutator[cst.Assign]):
    """One case is dropped from the cases a function names once and then walks or tests:
    `excluded = (is_period_dtype, is_interval_dtype, is_categorical_dtype)` then `any(check(dtype)
    for check in excluded)` loses `is_categorical_dtype`.

    Realistic: `beyond/drop-alternative`'s forgotten case, where the cases are given a name
    first (BugsInPy: pandas 1). Only a tuple, list or set of three to five names or strings,
    bound to a local that the function reads only to loop over or to test membership.
    """

    name = "beyond/drop-case"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: one of the cases is missing"
    matcher = m.Assign(targets=[m.AssignTarget(target=m.Name())], value=m.Tuple() | m.List() | m.Set())
    examples = (
        Example(
            before="def f(dtype):\n    checks = (is_period, is_interval, is_categorical)\n"
                   "    return any(check(dtype) for check in checks)\n",
            after=(
                "def f(dtype):\n    checks = (is_interval, is_categorical)\n"
                "    return any(check(dtype) for check in checks)\n",
                "def f(dtype):\n    checks = (is_period, is_categorical)\n"
                "    return any(check(dtype) for check in checks)\n",
                "def f(dtype):\n    checks = (is_period, is_interval)\n"
                "    return any(check(dtype) for check in checks)\n",
            ),
        ),
        # two cases; a name read otherwise too; numbers; outside a function
        Example(
            before="def f(x):\n    two = (a, b)\n    keys = ['a', 'b', 'c']\n    sizes = (1, 2, 3)\n"
                   "    for k in keys:\n        x[k] = len(keys)\n    return x in two or x in sizes\n\n"
                   "CASES = (a, b, c)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Assign, ctx: Context) -> Iterator[Rewrite]:
        function = ctx.function(node)
        display = node.value
        if function is None or not isinstance(display, (cst.Tuple, cst.List, cst.Set)):
            return
        elements = display.elements
        named = all(isinstance(e, cst.Element) and isinstance(e.value, (cst.Name, cst.Attribute, cst.SimpleString))
                    for e in elements)
        name = cst.ensure_type(node.targets[0].target, cst.Name).value  # as matched
        if named and 3 <= len(elements) <= _MOST_ALTERNATIVES and _read_as_cases(name, function):
            for element in elements:
                yield Rewrite(replacement=_without(display, element), target=display)

# A type a check accepts, and the narrower or wider one people write instead: (what the site
# names, what it becomes, why the two differ). Abstract types are read in isinstance() and
# issubclass(), numpy's kinds in np.issubdtype(), pandas' predicates where they are called. The
# repair search of the exercises reads the same pairs the other way, to widen a check back.
TYPE_STEPS: dict[str, tuple[str, str]] = {
    "Integral": ("int", "numpy integers such as the `np.int64` read from an array are refused"),
    "Real": ("float", "integers, and numpy floats other than float64, are refused"),
    "Sequence": ("list", "tuples and every other sequence are refused"),
    "Mapping": ("dict", "read-only and other mappings are refused"),
    "number": ("floating", "integer arrays are refused"),
    "floating": ("number", "integer and complex arrays pass as floats"),
    "is_numeric_dtype": ("is_float_dtype", "integer columns are refused"),
    "is_float_dtype": ("is_numeric_dtype", "integer and boolean columns pass as floats"),
    "is_integer_dtype": ("is_numeric_dtype", "float and boolean columns pass as integers"),
    "is_datetime64_any_dtype": ("is_datetime64_dtype", "time-zone-aware datetimes are refused"),
}
_ABSTRACT = frozenset({"Integral", "Real", "Sequence", "Mapping"})
_KINDS = frozenset({"number", "floating"})


def _type_sites(node: cst.Call, ctx: Context) -> Iterator[cst.Name | cst.Attribute]:
    """The names in `node` that say which type it accepts."""
    name = callee(node)
    if name in _TYPE_TESTS or name == "issubdtype":
        arg = positional(node, 1)
        if arg is None:
            return
        value = arg.value
        named = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
        listed = {_last_name(each) for each in named}
        for each in named:
            last = _last_name(each)
            if last in TYPE_STEPS and TYPE_STEPS[last][0] in listed:
                continue  # `(list, Sequence)`: `Sequence` -> `list` only repeats a type listed already
            if name == "issubdtype" and last in _KINDS and isinstance(each, cst.Attribute):
                if m.matches(each.value, m.Name(m.MatchIfTrue(ARRAY_MODULES.__contains__))):
                    yield each
            elif name != "issubdtype" and last in _ABSTRACT and isinstance(each, (cst.Name, cst.Attribute)):
                yield each
    elif name in TYPE_STEPS and name not in _ABSTRACT | _KINDS:
        func = node.func
        # a predicate imported by name can only become another one imported beside it
        if isinstance(func, cst.Attribute) or (
            isinstance(func, cst.Name) and TYPE_STEPS[name][0] in imported_names(ctx.module)
        ):
            yield func


class TypeCheck(Mutator[cst.Call]):
    """The type a check accepts one step narrower or wider: `isinstance(n, Integral)` ->
    `isinstance(n, int)`, `Real` -> `float`, `np.issubdtype(d, np.number)` -> `np.floating`,
    `is_numeric_dtype` -> `is_float_dtype`, `is_datetime64_any_dtype` -> `is_datetime64_dtype`.

    Realistic: the concrete type is the one its author tested with; `np.int64(3)` from an array,
    an integer column or a time-zone-aware timestamp is then refused (or, the other way, a
    boolean or integer column passes as floats), and only the test that uses such an input sees it.
    """

    name = "beyond/type-check"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the check accepts another kind of value"
    matcher = m.Call(func=m.Name() | m.Attribute())
    examples = (
        Example(
            before="from numbers import Integral\n\ndef f(n, x):\n"
                   "    if not isinstance(n, Integral) or not np.issubdtype(x.dtype, np.number):\n"
                   "        raise TypeError\n",
            after=(
                "from numbers import Integral\n\ndef f(n, x):\n"
                "    if not isinstance(n, int) or not np.issubdtype(x.dtype, np.number):\n"
                "        raise TypeError\n",
                "from numbers import Integral\n\ndef f(n, x):\n"
                "    if not isinstance(n, Integral) or not np.issubdtype(x.dtype, np.floating):\n"
                "        raise TypeError\n",
            ),
        ),
        Example(
            before="import pandas as pd\n\ndef f(s):\n    return pd.api.types.is_datetime64_any_dtype(s)\n",
            after=("import pandas as pd\n\ndef f(s):\n    return pd.api.types.is_datetime64_dtype(s)\n",),
        ),
        # concrete types, a predicate whose sibling is not imported, a kind of another module
        Example(
            before="from pandas.api.types import is_numeric_dtype\n\ndef f(n, s, d):\n"
                   "    return isinstance(n, (int, float)), is_numeric_dtype(s), np.issubdtype(d, mine.number)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None:
            return
        for site in _type_sites(node, ctx):
            token = site.attr if isinstance(site, cst.Attribute) else site
            other, why = TYPE_STEPS[token.value]
            # `numbers.Integral` -> `int`: a builtin needs no module; a kind or a predicate keeps its own
            replacement: cst.BaseExpression = (
                cst.Name(other, lpar=site.lpar, rpar=site.rpar) if token.value in _ABSTRACT
                else site.with_changes(attr=token.with_changes(value=other)) if isinstance(site, cst.Attribute)
                else token.with_changes(value=other)
            )
            yield Rewrite(replacement=replacement, target=site,
                          explanation=f"`{{original}}` became `{{mutated}}`: {why}")


def _direction(target: cst.ComparisonTarget) -> str | None:
    if isinstance(target.operator, _RISING):
        return "rising"
    return "falling" if isinstance(target.operator, _FALLING) else None


class DropRangeEnd(Mutator[cst.Comparison]):
    """A range check loses one end: `0 <= block < n` -> `block < n`, `0 < frac <= 1` -> `0 < frac`.

    Realistic: the end its author did not think could be crossed is left unchecked; a negative
    index then reads from the back of a list, and a fraction of 0 or above 1 goes on as a
    valid one. Only in the condition of an `if`, `while` or `assert`.
    """

    name = "beyond/drop-range-end"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: " + _ONE_END
    matcher = m.Comparison(comparisons=[m.ComparisonTarget(), m.ComparisonTarget()])
    examples = (
        Example(
            before="def f(i, n):\n    if not 0 <= i < n:\n        raise IndexError(i)\n",
            after=(
                "def f(i, n):\n    if not i < n:\n        raise IndexError(i)\n",
                "def f(i, n):\n    if not 0 <= i:\n        raise IndexError(i)\n",
            ),
        ),
        # not a condition, not a range (`==`, `<` then `>`), a literal in the middle
        Example(
            before="def f(a, b, c, x):\n    ok = a < x < c\n"
                   "    if a == b == c or a < 0 < c or a < x > c:\n        return ok\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[Rewrite]:
        first, second = node.comparisons
        middle = first.comparator
        if _direction(first) is None or _direction(first) != _direction(second):
            return  # `a < b > c` or `a == b == c`: not a range
        if isinstance(middle, (cst.Integer, cst.Float, cst.UnaryOperation)) or not in_condition(node, ctx):
            return
        for kept in (node.with_changes(left=middle, comparisons=[second]),
                     node.with_changes(comparisons=[first.with_changes(comparator=middle)])):
            yield Rewrite(replacement=kept, explanation=whole_change(ctx.code(node), ctx.code(kept), _ONE_END))
