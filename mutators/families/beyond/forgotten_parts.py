"""Beyond-classic bugs of a forgotten part: a clause, an operand, a keyword, a call's parentheses
or `.iloc` left out.

The fix of a real bug often *adds* a part to an expression that was right in every other way:
`and freq is None` to a condition, `+ K.epsilon()` to a divisor, `encoding="utf-8"` to an
`open` call (BugsInPy: 14 of its 149 one-statement fixes add a clause, 9 a keyword). Each
mutator here takes such a part away again, so the code is the one that was written first.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import read_for_truth
from bugsmith.mutators.analysis.receivers import imported_names
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import is_literal
from bugsmith.mutators.family import Family

# Operands that need no parentheses wherever they stand.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseString, cst.Integer, cst.Float,
          cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp)
# Keywords whose loss changes nothing a test could see (configuration, messages, output), or
# that another mutator already drops with a sharper explanation.
_NOT_SEMANTIC = frozenset(
    {"verbose", "verbosity", "n_jobs", "stacklevel", "flush", "file", "end", "sep", "msg",
     "message", "err_msg", "match", "desc", "help", "doc", "debug", "quiet", "copy",
     "keepdims", "axis", "min_periods", "closed", "kind", "stable", "center", "inplace",
     # numpy infers the same integer or float dtype from the data in most calls: in the corpus
     # both `np.array(xs, dtype=np.intp)` mutants survived as equivalents
     "dtype"}
)
# Calls whose keywords only decide which warnings are shown: dropping one changes what is
# printed, never a value (in the corpus every such mutant survived as an equivalent).
_WARNING_CALLS = frozenset({"errstate", "seterr", "catch_warnings", "simplefilter", "filterwarnings"})


def _standing_alone(node: cst.BaseExpression, part: cst.BaseExpression) -> cst.BaseExpression:
    """`part` in place of `node`, of which it was an operand: it binds at least as tightly as
    `node` did, so it needs only the parentheses `node` had, and none when it is an atom."""
    if not node.lpar or part.lpar or isinstance(part, _ATOMS):
        return part
    return part.with_changes(lpar=node.lpar, rpar=node.rpar)


class DropClause(Mutator[cst.BooleanOperation]):
    """One clause of a boolean condition is dropped: `if a is None or b is None:` -> `if b is None:`.

    Realistic: the "more/less specific if" of the bug-fix studies; the missing clause is the
    special case (`freq is None`, `self.target is not None`) its author did not think of, and
    a value defaulted with `x or default` loses its default. The code runs on every input and
    is wrong only in the case the clause was written for.
    """

    name = "beyond/drop-clause"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the condition lost one of its clauses"
    matcher = m.BooleanOperation()
    examples = (
        Example(
            before="def f(a, b):\n    if a is None or b is None:\n        return 0\n",
            after=(
                "def f(a, b):\n    if b is None:\n        return 0\n",
                "def f(a, b):\n    if a is None:\n        return 0\n",
            ),
        ),
        Example(
            before="def f(x, ok, n):\n    return (x > 0 and ok) * n\n",
            after=("def f(x, ok, n):\n    return ok * n\n", "def f(x, ok, n):\n    return (x > 0) * n\n"),
        ),
        # outside a function: configuration, not logic
        Example(before="DEBUG = env and flag\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.BooleanOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None:
            return
        for kept in (node.right, node.left):
            yield _standing_alone(node, kept)


_DROPPABLE = m.Add() | m.Subtract() | m.Multiply() | m.Divide() | m.FloorDivide() | m.Power()


class DropOperand(Mutator[cst.BinaryOperation]):
    """One operand of `+ - * / // **` is dropped: `k - n` -> `k`, `rest + [x]` -> `[x]`, `s / n` -> `s`.

    Realistic: the correction term (`+ eps`, `- offset`), the scale (`* weight`), the
    normalising division or the accumulated part (`rest + ...`) that was never written; the
    result keeps its type. Only removals that leave a value, not a bare constant, are made;
    a quotient or power keeps its numerator or base, and `"%s" % x` (formatting) and `[0] * n`
    (repetition) are left alone.
    """

    name = "beyond/drop-operand"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: one operand of the expression is missing"
    matcher = m.BinaryOperation(operator=_DROPPABLE)
    examples = (
        Example(
            before="def kth(above, k, n, rest, x):\n    return kth(above, k - n), rest + [x]\n",
            after=(
                "def kth(above, k, n, rest, x):\n    return kth(above, k), rest + [x]\n",
                "def kth(above, k, n, rest, x):\n    return kth(above, n), rest + [x]\n",
                "def kth(above, k, n, rest, x):\n    return kth(above, k - n), rest\n",
                "def kth(above, k, n, rest, x):\n    return kth(above, k - n), [x]\n",
            ),
        ),
        Example(
            before="def f(s, m):\n    return s / (m + 1e-9)\n",
            after=("def f(s, m):\n    return s / m\n", "def f(s, m):\n    return s\n"),
        ),
        # a constant left alone is no code anyone writes; `%` formats; not in a function
        Example(before="def f(x):\n    return 2 * 3, 'a%s' % x\n\nN = M + 1\n", after=()),
    )

    @spelled_out
    def mutate(self, node: cst.BinaryOperation, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None:
            return
        left, right = node.left, node.right
        repeated = isinstance(node.operator, cst.Multiply) and (_is_display(left) or _is_display(right))
        if repeated:
            return  # `[0] * n` repeats a list: no operand of it is a forgotten term
        # A quotient or a power without its numerator or base is no code anyone writes.
        kept = (left, right) if isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)) else (left,)
        for part in kept:
            dropped = right if part is left else left
            if m.matches(dropped, m.Integer("1")) and isinstance(node.operator, (cst.Add, cst.Subtract)):
                continue  # `n - 1` -> `n` is an off-by-one: `beyond/drop-one`'s, at bounds only
            if not is_literal(part) or _is_display(part):
                yield _standing_alone(node, part)


def _is_display(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple, cst.Dict, cst.Set))


def _is_record(call: cst.Call) -> bool:
    """`Request(id=1, prompt=p)`: a record of this project built field by field, where a missing
    field is a loud `TypeError`, not a bug that runs. A library's class (`tempfile.
    NamedTemporaryFile(mode="w", encoding="utf8")`) takes options, not fields."""
    func = call.func
    return (
        isinstance(func, cst.Name)
        and func.value.lstrip("_")[:1].isupper()
        and all(arg.keyword is not None for arg in call.args)
    )


class DropKeyword(Mutator[cst.Call]):
    """A keyword argument that carries meaning is dropped: `open(p, encoding="utf-8")` -> `open(p)`.

    Realistic: `ddof=1`, `sample_weight=w`, `random_state=seed`, `fill_value=0`, `name=...`:
    the call still runs with the default, which is right for the common case and wrong for
    the one the keyword was written for (Yang et al. 2022 find dropped semantic keywords among
    the commonest notebook bugs). `None` values (usually the default), configuration and
    message keywords, `dtype` (numpy infers the same one from the data in most calls), and
    keywords other mutators drop (`axis`, `keepdims`, `min_periods`, `closed`, `kind`) are left
    alone, as are records built field by field.
    """

    name = "beyond/drop-keyword"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the call falls back to the default of a keyword it needed"
    matcher = m.Call(args=[m.ZeroOrMore(), m.Arg(keyword=m.Name()), m.ZeroOrMore()])
    examples = (
        Example(
            before="def f(p, x, w):\n    return open(p, encoding='utf-8'), x.std(ddof=1), fit(x, sample_weight=w)\n",
            after=(
                "def f(p, x, w):\n    return open(p), x.std(ddof=1), fit(x, sample_weight=w)\n",
                "def f(p, x, w):\n    return open(p, encoding='utf-8'), x.std(), fit(x, sample_weight=w)\n",
                "def f(p, x, w):\n    return open(p, encoding='utf-8'), x.std(ddof=1), fit(x)\n",
            ),
        ),
        # a `None` value, configuration, a keyword another mutator owns, a record, `**kwargs`
        Example(
            before=(
                "def f(x, kw):\n    g(x, out=None, verbose=2, dtype=int)\n    return x.sum(axis=0), "
                "Point(x=1, y=2), h(x, **kw)\n"
            ),
            after=(),
        ),
        # keywords that only silence warnings
        Example(before="def f(a, b):\n    with np.errstate(invalid='ignore', divide='ignore'):\n        return a / b\n",
                after=()),
    )

    @spelled_out
    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if ctx.function(node) is None or _is_record(node) or callee(node) in _WARNING_CALLS:
            return
        for arg in node.args:
            keyword = arg.keyword
            if keyword is None or keyword.value in _NOT_SEMANTIC or m.matches(arg.value, m.Name("None")):
                continue
            yield Rewrite(
                replacement=without_arg(node, arg),
                explanation=f"`{keyword.value}=` was dropped: the call falls back to its default",
            )


# Calls whose list argument is a set of keys: leaving one out still runs, on coarser groups.
_KEY_LIST_CALLS = frozenset({"groupby", "sort_values", "drop_duplicates", "duplicated", "merge", "set_index",
                             "pivot_table", "lexsort"})
_KEY_KEYWORDS = frozenset({"by", "subset", "on", "keys", "index", "columns"})


class DropKey(Mutator[cst.Element]):
    """A key is left out of a key list: `df.groupby(["user", "day"])` -> `df.groupby(["user"])`.

    Realistic: the groups, the sort order or the duplicates are then decided by fewer columns:
    one entity's rows pool with another's, ties are broken in file order, distinct rows count
    as duplicates; the frame keeps its columns and nothing crashes (Yang et al. 2022).
    """

    name = "beyond/drop-key"
    family = Family.BEYOND
    explanation = "`{original}` was left out of the keys: rows are grouped, sorted or matched by fewer columns"
    matcher = m.Element()
    examples = (
        Example(
            before="def f(df):\n    return df.sort_values(by=['user', 'time']).groupby(['user', 'day']).sum()\n",
            after=(
                "def f(df):\n    return df.sort_values(by=['time']).groupby(['user', 'day']).sum()\n",
                "def f(df):\n    return df.sort_values(by=['user']).groupby(['user', 'day']).sum()\n",
                "def f(df):\n    return df.sort_values(by=['user', 'time']).groupby(['day']).sum()\n",
                "def f(df):\n    return df.sort_values(by=['user', 'time']).groupby(['user']).sum()\n",
            ),
        ),
        # one key only; a list that is data, not keys
        Example(before="def f(df, x):\n    return df.groupby(['user']).sum(), np.array([x, 1])\n", after=()),
    )

    def mutate(self, node: cst.Element, ctx: Context) -> Iterator[Rewrite]:
        keys = ctx.parent(node)
        arg = ctx.parent(keys) if isinstance(keys, cst.List) else None
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(keys, cst.List) or not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call):
            return
        if len(keys.elements) < 2 or callee(call) not in _KEY_LIST_CALLS:
            return
        if arg.keyword is not None and arg.keyword.value not in _KEY_KEYWORDS:
            return
        elements = [element for element in keys.elements if element is not node]
        elements[-1] = elements[-1].with_changes(comma=keys.elements[-1].comma)
        yield Rewrite(replacement=keys.with_changes(elements=elements), target=keys)


class LabelToIndex(Mutator[cst.Subscript]):
    """`self.classes_[proba.argmax(axis=1)]` becomes `proba.argmax(axis=1)`: an index for a label.

    Realistic: the position of the best class returned where its label was meant (Islam et al.
    2019); with labels 0..k-1 the two agree, so only tests with other labels see it.
    """

    name = "beyond/label-to-index"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the position is returned instead of the label at it"
    matcher = m.Subscript(
        value=m.Attribute(attr=m.Name("classes_")) | m.Name("classes_") | m.Name("classes"),
        slice=[m.SubscriptElement(slice=m.Index())],
    )
    examples = (
        Example(
            before="class C:\n    def predict(self, proba):\n        return self.classes_[proba.argmax(axis=1)]\n",
            after=("class C:\n    def predict(self, proba):\n        return proba.argmax(axis=1)\n",),
        ),
        Example(before="def f(classes_, x):\n    return classes_[0], x.classes_[1:]\n", after=()),
    )

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.CSTNode]:
        index = cst.ensure_type(node.slice[0].slice, cst.Index).value  # as matched
        if ctx.function(node) is not None and not is_literal(index):
            yield index.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else index


# Builtins whose call nobody leaves off: each is called where it is written.
_ALWAYS_CALLED = frozenset(dir(builtins))


class Uncalled(Mutator[cst.Call]):
    """A predicate tested without calling it: `if not str_op(attr, value)` becomes `if not
    str_op`, `if self.is_full():` becomes `if self.is_full:`.

    Realistic: a function or a bound method is always true, so the test takes one branch
    whatever the state, and nothing fails loudly (BugsInPy: youtube-dl 12; a method taken
    for a property is the classic form). Only where the call's truth is all that is read, and
    only for the code's own functions and methods: a builtin (`len`, `isinstance`) or an
    imported module's function (`np.any`) is called wherever it is written.
    """

    name = "beyond/uncalled"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the function is tested instead of its result"
    matcher = m.Call(func=m.Name() | m.Attribute())
    examples = (
        Example(
            before="def f(str_op, attr, value, queue):\n"
                   "    if not str_op(attr, value) and queue.full():\n        return 1\n",
            after=(
                "def f(str_op, attr, value, queue):\n    if not str_op and queue.full():\n        return 1\n",
                "def f(str_op, attr, value, queue):\n"
                "    if not str_op(attr, value) and queue.full:\n        return 1\n",
            ),
        ),
        # a builtin, an imported function, a value that is not only tested, a method with arguments
        Example(
            before="import numpy as np\n\ndef f(x, q, k):\n"
                   "    if len(x) and np.any(x) and q.get(k):\n        return g(x)\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is None or not read_for_truth(node, ctx):
            return
        func = node.func
        if isinstance(func, cst.Name):
            if func.value in _ALWAYS_CALLED or func.value in imported_names(ctx.module):
                return
        elif node.args and not m.matches(func, m.Attribute(value=m.Name("self") | m.Name("cls"))):
            return  # `q.get(k)`: a method of another object with arguments is written as called
        elif _root(func) in imported_names(ctx.module):
            return  # `np.linalg.norm`: an imported module's function
        yield func.with_changes(lpar=node.lpar, rpar=node.rpar)


def _root(expr: cst.BaseExpression) -> str | None:
    """`np` of `np.linalg.norm`: the name an attribute chain starts from."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


class PositionToLabel(Mutator[cst.Subscript]):
    """`s.iloc[i]` becomes `s[i]`: a position read as a label.

    Realistic: on the default index of a fresh frame the two agree, so the code works until a
    filter, a sort or a `groupby` leaves labels that are not positions; then `s[i]` reads
    another row, a column of a frame, or raises `KeyError` (BugsInPy: pandas 140). Only one
    position, not a slice (a slice of `[]` is positional too) nor a row and a column.
    """

    name = "beyond/position-to-label"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the position is read as an index label"
    matcher = m.Subscript(value=m.Attribute(attr=m.Name("iloc")), slice=[m.SubscriptElement(slice=m.Index())])
    examples = (
        Example(
            before="import pandas as pd\n\ndef f(result, idx):\n    return is_object_dtype(result.dtypes.iloc[idx])\n",
            after=("import pandas as pd\n\ndef f(result, idx):\n    return is_object_dtype(result.dtypes[idx])\n",),
        ),
        # a slice, a row and a column, a label, outside a function
        Example(
            before="def f(s, df, i):\n    return s.iloc[:i], df.iloc[i, 0], s.loc[i]\n\nX = s.iloc[0]\n",
            after=(),
        ),
    )

    def mutate(self, node: cst.Subscript, ctx: Context) -> Iterator[cst.CSTNode]:
        if ctx.function(node) is not None:
            owner = cst.ensure_type(node.value, cst.Attribute).value  # as matched
            yield node.with_changes(value=owner)
