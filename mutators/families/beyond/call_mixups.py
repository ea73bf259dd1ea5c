"""Beyond-classic bugs of a call: unwrapped, replaced by its sibling, or by one of its arguments.

`max(0, x)` that lost its clamp, `argmax` for `argmin`, `popleft` for `pop`, `side="right"` for
`side="left"`: one token, each a bug found again and again in real code. The functions named
here are generic numpy, pandas and standard-library names, matched wherever they appear.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m
from libcst.metadata.scope_provider import BuiltinAssignment, GlobalScope, ImportAssignment

from bugsmith.mutators.analysis.arguments import callee, leading_positional, method_of
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import is_literal
from bugsmith.mutators.family import Family

# Calls whose result is their first argument, transformed: dropping the call is the bug.
_UNWRAP_FUNCTIONS = frozenset(
    {"abs", "absolute", "fabs", "sqrt", "clip", "round", "around", "sort", "sorted", "reversed",
     "unique", "copy", "deepcopy", "nan_to_num"}
)
# Methods whose result is their receiver, transformed, with the most positional arguments the
# method takes (`x.clip(lo, hi)`): a call with more is a namespace's function (`xp.clip(x, lo,
# hi)`, `xp.abs(x)`), whose value is its first argument.
_METHOD_ARITY = {
    "copy": 0, "abs": 0, "clip": 2, "round": 1, "unique": 0, "sort_values": 9, "sort_index": 9,
    "dropna": 9, "fillna": 9, "reset_index": 9, "drop_duplicates": 9,
    # string normalisers and a reindex, whose loss BugsInPy fixes show (`table.lower() in out`)
    "lower": 0, "upper": 0, "casefold": 0, "strip": 1, "reindex": 9,
}
# `max(0, x)` and `np.maximum(x, 0)` clamp; `np.max(x, 0)` is a reduction over axis 0.
_BUILTIN_CLAMPS = frozenset({"max", "min"})
_ARRAY_CLAMPS = frozenset({"maximum", "minimum"})


def _both_ways(*pairs: tuple[str, str]) -> dict[str, tuple[str, ...]]:
    forward: dict[str, tuple[str, ...]] = {a: (b,) for a, b in pairs}
    return forward | {b: (a,) for a, b in pairs}


_SIBLINGS: dict[str, tuple[str, ...]] = _both_ways(
    ("argmin", "argmax"), ("nanargmin", "nanargmax"), ("min", "max"), ("amin", "amax"),
    ("nanmin", "nanmax"), ("minimum", "maximum"), ("fmin", "fmax"), ("idxmin", "idxmax"),
    ("cummin", "cummax"), ("mean", "median"), ("nanmean", "nanmedian"), ("std", "var"),
    ("nanstd", "nanvar"), ("floor", "ceil"), ("startswith", "endswith"), ("any", "all"),
    ("head", "tail"), ("nlargest", "nsmallest"), ("bisect_left", "bisect_right"),
    ("lstrip", "rstrip"), ("triu", "tril"), ("union", "intersection"),
    ("issubset", "issuperset"), ("lower", "upper"),
) | {
    # one way only: a list has `pop` and `append`, but no `popleft` or `appendleft`
    "popleft": ("pop",),
    "appendleft": ("append",),
    "sum": ("mean",),
}
_BUILTIN_SIBLINGS = frozenset({"any", "all", "min", "max"})
_KEYWORD_SIBLINGS: dict[str, dict[str, str]] = {
    "side": {"left": "right", "right": "left"},
    "closed": {"left": "right", "right": "left", "both": "neither", "neither": "both"},
    "label": {"left": "right", "right": "left"},
    "keep": {"first": "last", "last": "first"},
    "how": {"left": "right", "right": "left", "inner": "outer", "outer": "inner"},
}
# Where an expression may stand without parentheses whatever its precedence.
_LOOSE = (cst.Arg, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Index, cst.Element, cst.Expr)
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseString, cst.Integer, cst.Float,
          cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _bound_by(node: cst.Name, ctx: Context) -> str:
    """How the name `node` is bound where it is used: "builtin", "import", "local" or "unknown"."""
    scope = ctx.scope(node)
    if scope is None or node.value not in scope:
        return "unknown"
    assignments = scope[node.value]
    if assignments and all(isinstance(a, BuiltinAssignment) for a in assignments):
        return "builtin"
    if assignments and all(isinstance(a, ImportAssignment) for a in assignments):
        return "import"
    return "local"


def _is_imported_function_call(call: cst.Call, ctx: Context) -> bool:
    """`np.clip(x, ...)`: a module's function, whose first argument is the value, not a method."""
    owner = call.func.value if isinstance(call.func, cst.Attribute) else None
    while isinstance(owner, cst.Attribute):  # np.random.shuffle
        owner = owner.value
    return isinstance(owner, cst.Name) and _bound_by(owner, ctx) == "import"


def _parenthesized(expression: cst.BaseExpression, where: cst.CSTNode, ctx: Context) -> cst.BaseExpression:
    """`expression` with parentheses if it will stand where `where` stood and need them.

    Not the shared `in_place_of`: that one keeps the parentheses around `where` and counts fewer
    node types as atoms, so using it here would change the mutants this family makes.
    """
    if expression.lpar or isinstance(expression, _ATOMS) or isinstance(ctx.parent(where), _LOOSE):
        return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _unwrapped(node: cst.Call, ctx: Context) -> cst.BaseExpression | None:
    """The value `node` transforms, or None when dropping the call is not a plausible bug."""
    name = callee(node)
    args = leading_positional(node)
    keywords = [arg.keyword.value for arg in node.args if arg.keyword is not None]
    if name is None or any(word == "inplace" or word.startswith("return_") for word in keywords):
        return None  # in place, the call returns None; `return_*`, it returns a tuple
    if isinstance(node.func, cst.Name):
        if _bound_by(node.func, ctx) not in ("builtin", "import"):
            return None  # a local function: what it does is unknown
        if name in _BUILTIN_CLAMPS:
            return _clamped(node, args)
        return args[0].value if name in _UNWRAP_FUNCTIONS and args else None
    if name in _ARRAY_CLAMPS:
        return _clamped(node, args)
    if not _is_imported_function_call(node, ctx) and _is_method_form(name, args):
        return method_of(node).value  # named, and not a plain name: `x.copy()`
    return args[0].value if name in _UNWRAP_FUNCTIONS and args else None


def _is_method_form(name: str, args: list[cst.Arg]) -> bool:
    if name not in _METHOD_ARITY or len(args) > _METHOD_ARITY[name]:
        return False
    return name != "round" or not args or is_literal(args[0].value)  # `s.round(2)`, not `xp.round(x)`


def _clamped(node: cst.Call, args: list[cst.Arg]) -> cst.BaseExpression | None:
    """`x` of `max(0, x)`: only a clamp of one value against one constant."""
    if len(node.args) != 2 or len(args) != 2:
        return None
    literal = [is_literal(arg.value) for arg in args]
    return args[literal.index(False)].value if literal.count(True) == 1 else None


class UnwrapCall(Mutator[cst.Call]):
    """A call is dropped and its argument used as it is: `max(0, x)` -> `x`, `x.copy()` -> `x`.

    Realistic: the clamp, the absolute value, the square root, the sort or the copy that was
    forgotten; the result has the right type and shape and is wrong only for some inputs (or,
    for `copy`, only once someone mutates the alias).
    """

    name = "beyond/unwrap-call"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the value is used without the call that should transform it"
    matcher = m.Call()
    examples = (
        Example(
            before="import numpy as np\n\ndef f(x, d):\n    return max(0, x - d), np.sqrt(x) * 2, d.copy()\n",
            after=(
                "import numpy as np\n\ndef f(x, d):\n    return x - d, np.sqrt(x) * 2, d.copy()\n",
                "import numpy as np\n\ndef f(x, d):\n    return max(0, x - d), x * 2, d.copy()\n",
                "import numpy as np\n\ndef f(x, d):\n    return max(0, x - d), np.sqrt(x) * 2, d\n",
            ),
        ),
        Example(
            before="import numpy as np\n\ndef f(x, y):\n    return np.sqrt(x + y) * 2\n",
            after=("import numpy as np\n\ndef f(x, y):\n    return (x + y) * 2\n",),
        ),
        # in place (`None` back), a tuple back, a reduction, two values, a local function
        Example(
            before=(
                "import numpy as np\n\ndef f(x, y, df):\n    df.dropna(inplace=True)\n"
                "    return np.unique(x, return_counts=True), np.max(x, 0), max(x, y), norm(x)\n"
            ),
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(ctx.parent(node), cst.Expr):
            return  # the result is unused: dropping the call is `beyond/delete-call`
        value = _unwrapped(node, ctx)
        if value is not None:
            yield _parenthesized(value, node, ctx)


class SiblingCall(Mutator[cst.Call]):
    """A call is replaced by its sibling: `argmin`/`argmax`, `any`/`all`, `floor`/`ceil`, ...

    Realistic: the pair is one word apart and returns the same type, so only the values are
    wrong. A bare name changes only to a builtin or an imported sibling, so the mutant runs.
    """

    name = "beyond/sibling-call"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the code calls the sibling of the function it needs"
    matcher = m.Call(func=m.Name() | m.Attribute())
    examples = (
        Example(
            before="import numpy as np\n\ndef f(q, x):\n    return q.popleft(), np.argmin(x), all(x)\n",
            after=(
                "import numpy as np\n\ndef f(q, x):\n    return q.pop(), np.argmin(x), all(x)\n",
                "import numpy as np\n\ndef f(q, x):\n    return q.popleft(), np.argmax(x), all(x)\n",
                "import numpy as np\n\ndef f(q, x):\n    return q.popleft(), np.argmin(x), any(x)\n",
            ),
        ),
        # a local `all` is not the builtin; `floor` is imported without `ceil`
        Example(
            before="from math import floor\n\ndef f(x, all):\n    return all(x), floor(x), x.pop()\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        name, func = callee(node), node.func
        for sibling in _SIBLINGS.get(name or "", ()):
            if isinstance(func, cst.Attribute):
                attr = func.attr.with_changes(value=sibling)
                yield node.with_changes(func=func.with_changes(attr=attr))
            elif isinstance(func, cst.Name) and self._name_available(func, sibling, ctx):
                yield node.with_changes(func=func.with_changes(value=sibling))

    @staticmethod
    def _name_available(func: cst.Name, sibling: str, ctx: Context) -> bool:
        bound = _bound_by(func, ctx)
        if bound == "builtin":
            return func.value in _BUILTIN_SIBLINGS
        scope = ctx.scope(func)
        return bound == "import" and scope is not None and sibling in scope


class SiblingKeyword(Mutator[cst.Arg]):
    """A keyword's string value becomes its sibling: `side="left"` -> `side="right"`, and so on.

    Realistic: which end of a tie `searchsorted` returns, which end of a window is closed,
    which duplicate `drop_duplicates` keeps, which side of a merge is kept: each is a word to
    remember, and the code runs either way.
    """

    name = "beyond/sibling-keyword"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the option picks the other side"
    matcher = m.Arg(keyword=m.Name(), value=m.SimpleString())
    examples = (
        Example(
            before="def f(a, v, df):\n    return a.searchsorted(v, side='left'), df.drop_duplicates(keep=\"last\")\n",
            after=(
                "def f(a, v, df):\n    return a.searchsorted(v, side='right'), df.drop_duplicates(keep=\"last\")\n",
                "def f(a, v, df):\n    return a.searchsorted(v, side='left'), df.drop_duplicates(keep=\"first\")\n",
            ),
        ),
        Example(before="def f(df):\n    return df.merge(df, how='cross', on='left')\n", after=()),
    )

    def mutate(self, node: cst.Arg, ctx: Context) -> Iterator[cst.CSTNode]:
        # What the matcher matched: `keyword="string"`.
        keyword, string = cst.ensure_type(node.keyword, cst.Name), cst.ensure_type(node.value, cst.SimpleString)
        text = string.value
        quote = text[-1]
        if len(text) < 2 or text[0] != quote or text.startswith(quote * 3):
            return  # a prefixed or triple-quoted string
        sibling = _KEYWORD_SIBLINGS.get(keyword.value, {}).get(text[1:-1])
        if sibling is not None:
            yield node.with_changes(value=string.with_changes(value=quote + sibling + quote))


# Calls whose value is of another kind than their arguments (a count, an iterator, a flag, a
# file) or that only reach an argument through a protocol: the bare argument in their place is
# a loud `TypeError`, not a plausible bug.
_NOT_TRANSFORMS = frozenset(
    {"len", "range", "enumerate", "zip", "iter", "next", "isinstance", "issubclass", "type", "id",
     "hash", "open", "print", "super", "getattr", "hasattr", "setattr", "delattr", "callable",
     "repr", "vars", "dir", "map", "filter", "join", "get", "pop", "index",
     "count", "find", "split", "format", "startswith", "endswith", "append", "extend", "add",
     "setdefault", "partial", "cast", "ensure_type", "field", "dataclass", "lru_cache",
     # array constructors and generators: a size or a seed is not the array it makes
     "arange", "eye", "identity", "zeros", "ones", "empty", "full", "linspace", "default_rng",
     "RandomState", "Generator", "seed",
     # numeric coercions: `int(x)` of a numpy integer differs from `x` in its type alone,
     # which no contract pins down (all four survived the corpus as equivalents)
     "int", "float", "bool", "complex",
     # positions and masks made from values (`np.argsort(-s)`, `np.isnan(x)`): another kind
     "argsort", "argmax", "argmin", "argwhere", "nonzero", "flatnonzero", "searchsorted",
     "digitize", "bincount", "isnan", "isfinite", "isinf", "isna", "isnull", "notna", "notnull",
     "shape", "ndim", "size"}
)
# The builtins that reduce an iterable to a number or a flag; `np.any(a != b)` on arrays is
# an elementwise test made scalar, whose argument is a plausible stand-in.
_BUILTIN_REDUCTIONS = frozenset({"sum", "any", "all"})


def _arguments_kept(node: cst.Call, ctx: Context) -> list[cst.BaseExpression]:
    """The arguments that could stand for the call: the one value that a module, imported,
    builtin or `self` function transforms, or either value of a two-value `max`/`min`; not a
    constant, a lambda, or the argument of a constructor."""
    name = callee(node)
    func = node.func
    if name is None or name in _NOT_TRANSFORMS or name.lstrip("_")[:1].isupper() or name.startswith("__"):
        return []
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return []  # `f(x).state`: whether `x` has the attribute too is a guess
    if isinstance(func, cst.Attribute) and not m.matches(func.value, m.Name("self") | m.Name("cls")):
        if not _is_imported_function_call(node, ctx):
            return []  # `rng.choice(x)`, `d.get(k)`: a method of a value, whose argument is no stand-in
    if isinstance(func, cst.Name) and (name in _BUILTIN_REDUCTIONS or _is_passed_in(func, ctx)):
        return []
    if any(arg.keyword is not None or arg.star for arg in node.args):
        return []  # options make it more than a transform of its arguments
    values = [arg.value for arg in node.args]
    # `max(0, x)`, a clamp against a constant, is `beyond/unwrap-call`'s
    two_way = name in _BUILTIN_CLAMPS | _ARRAY_CLAMPS and len(values) == 2 and not any(map(is_literal, values))
    if (len(values) != 1 and not two_way) or (name in _BUILTIN_CLAMPS and not two_way):
        return []  # which of several arguments it stands for is a guess; `max(xs)` reduces
    lazy = (cst.Lambda, cst.GeneratorExp)  # `tuple(x for x in xs)` -> a generator: another kind
    return [value for value in values if not is_literal(value) and not isinstance(value, lazy)]


def _is_passed_in(func: cst.Name, ctx: Context) -> bool:
    """`key(item)` where `key` is a parameter or a local: a callback, which higher-order code
    applies everywhere; unwrapping each call would flood a module such as toolz."""
    scope = ctx.scope(func)
    if scope is None or func.value not in scope:
        return False
    return any(
        not isinstance(a, (BuiltinAssignment, ImportAssignment)) and not isinstance(a.scope, GlobalScope)
        for a in scope[func.value]
    )


class UnwrapArgument(Mutator[cst.Call]):
    """A call is replaced by one of its arguments: `max(longest, length + 1)` -> `length + 1`,
    `create_cloned_field(f)` -> `f`, `np.any(a != b)` -> `a != b`.

    Realistic: the "wrap/unwrap with a method call" repair pattern of the Defects4J study (5 of
    BugsInPy's 149 one-statement fixes): the conversion, the clamp or the helper that normalises
    a value was never applied, and the raw value flows on. `beyond/unwrap-call` knows which
    library calls transform their first argument; this one also unwraps module and `self`
    functions of one argument and either side of a two-value `max`/`min`, but never a callback
    (a parameter or local called: `key(item)`), a generator made a tuple, a call
    with options (keywords), a call whose value is of another kind (`len`, `range`, `zip`,
    ...), a constructor, or a method of a value (`d.get(k)`).
    """

    name = "beyond/unwrap-argument"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the argument is used without the call that should transform it"
    matcher = m.Call()
    examples = (
        Example(
            before="def f(longest, length, field):\n    longest = max(longest, length + 1)\n    return clone(field)\n",
            after=(
                "def f(longest, length, field):\n    longest = length + 1\n    return clone(field)\n",
                "def f(longest, length, field):\n    longest = max(longest, length + 1)\n    return field\n",
            ),
        ),
        Example(
            before="import numpy as np\n\ndef f(a, b):\n    return 2 * np.any(a != b)\n",
            after=("import numpy as np\n\ndef f(a, b):\n    return 2 * (a != b)\n",),
        ),
        # a count, a reduction of one iterable, a constructor, a method of a value, a constant,
        # a numeric coercion, a callback, a generator made a tuple
        Example(
            before=(
                "def f(xs, d, k, key):\n    g(xs)\n"
                "    return len(xs), max(xs), Request(xs), d.get(k), h(0), int(k), key(k), tuple(x for x in xs)\n"
            ),
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if isinstance(ctx.parent(node), cst.Expr) or ctx.function(node) is None:
            return  # an unused result: dropping the call is `beyond/delete-call`
        parent = ctx.parent(node)
        targets = {ctx.code(t.target).strip() for t in parent.targets} if isinstance(parent, cst.Assign) else set()
        for value in _arguments_kept(node, ctx):
            if ctx.code(value).strip() not in targets:  # `x = x` is a linter's warning, not a bug
                yield _parenthesized(value, node, ctx)
