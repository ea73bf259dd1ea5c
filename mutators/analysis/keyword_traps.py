"""The keywords of numpy, pandas and scikit-learn calls that people set the wrong way, in one table.

Each row names a call and how to recognise it, one keyword, the trap values (added where the
keyword is absent, or put in place of a value written), and the reason people get it wrong. The
operators `<family>/keyword-trap` of the shape, window, metric and beyond families each make
the rows of their own family; the reason becomes the mutant's explanation.

Traps that other operators already make are not rows, so no mutant is made twice and no
existing mutant changes its operator: `keepdims=True` dropped (`shape/drop-keepdims`), `axis`
flipped or dropped (`shape/swap-axis`), `center=True` (`leakage/center-window`), `closed="left"`
widened or dropped (`leakage/closed-window`), `min_periods` one off or dropped
(`window/min-periods`), `side`, `closed`, `how` or `keep` to the other side
(`beyond/sibling-keyword`), `kind="stable"` dropped (`metric/unstable-sort`), ordinal ranks
(`metric/ordinal-ranks`), `ddof` one off (`classic/number`), a flag flipped (`classic/true-false`),
any meaningful keyword dropped (`beyond/drop-keyword`).

How a row's `apis` spell a call: `np.std(a, axis, dtype, out)` is numpy's function (`np.` or
`numpy.`), `pd.cut(x, bins)` pandas' one, `sklearn.metrics.f1_score(y_true, y_pred)` a function
imported by name or called through any module; `ndarray.max(axis, out)` is a method of a value
in a module that does not import pandas, `Series.std(axis, skipna)` one in a module that does
(on a value not visibly numpy's), and any other `Class.method(...)` a method of any value. The
names in parentheses are the positional arguments a call may have: one with more is left alone,
since it may give the keyword by position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import callee, keyword, keyword_arg, leading_positional, with_arg
from bugsmith.mutators.analysis.expressions import int_value, with_text
from bugsmith.mutators.analysis.receivers import is_namespace, method_receiver
from bugsmith.mutators.base import Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

Condition = Callable[[cst.Call, Context], bool]


@dataclass(frozen=True, slots=True, kw_only=True)
class KeywordTrap:
    """One keyword of one kind of call, the values that make it a bug, and why."""

    family: Family
    apis: tuple[str, ...]  # how the calls are spelled (see the module's docstring)
    keyword: str
    absent: tuple[str, ...] = ()  # source of the values added where the keyword is not written
    present: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # value written -> traps
    needs: Condition | None = None  # a further condition on the call
    reason: str  # why people get it wrong: the mutant's explanation, after the quoted change


def _reduces_last_axis(call: cst.Call, ctx: Context) -> bool:
    """`axis=1` or `axis=-1`: only then does a kept axis broadcast against the (n,) vectors beside
    it (a kept axis 0 is a leading length-1 axis, which broadcasting adds anyway)."""
    axis = keyword(call, "axis")
    return axis is not None and int_value(axis.value) in (1, -1)


def _counts_rows(call: cst.Call, ctx: Context) -> bool:
    """A window of a number of rows: an offset such as "7D" already needs one observation."""
    window = keyword(call, "window") or next(iter(leading_positional(call)), None)
    return window is not None and not isinstance(
        window.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
    )


def _draws_several(call: cst.Call, ctx: Context) -> bool:
    """`rng.choice(a, size)`: a sample, not the one draw of `random.choice(seq)`."""
    return len(leading_positional(call)) >= 2 or keyword(call, "size") is not None


_REDUCTIONS = "sum mean std var min max prod argmin argmax any all".split()
_RATE_SCORES = ("f1_score", "precision_score", "recall_score", "fbeta_score", "jaccard_score")
_AVERAGES = {"macro": ('"micro"', '"weighted"'), "micro": ('"macro"',), "weighted": ('"macro"',)}

TRAPS: tuple[KeywordTrap, ...] = (
    KeywordTrap(
        family=Family.SHAPE,
        apis=(*(f"np.{name}(a)" for name in (*_REDUCTIONS, "amax", "amin", "median", "nansum", "nanmean",
                                              "nanmax", "nanmin", "nanstd", "nanvar", "nanmedian")),
              *(f"ndarray.{name}()" for name in _REDUCTIONS)),
        keyword="keepdims", absent=("True",), needs=_reduces_last_axis,
        reason="the reduced axis stays as a length-1 column, so the (n, 1) result broadcasts against "
        "(n,) vectors into an (n, n) matrix instead of failing",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("Series.rolling(window)",), keyword="min_periods", absent=("1",),
        needs=_counts_rows,
        reason="the first rows of each series get a statistic of fewer values instead of NaN, and "
        "partial windows pass for full ones",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("Series.rolling(window)",), keyword="closed", absent=('"both"', '"left"'),
        reason="which ends of the window count: with both, each window holds one row more than its "
        "length; with left, the current row drops out",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("Series.between(left, right)",), keyword="inclusive", absent=('"left"',),
        present={"both": ('"left"', '"neither"'), "left": ('"both"',), "right": ('"both"',),
                 "neither": ('"both"',)},
        reason="pandas includes both ends by default; a value exactly on a bound is now on the "
        "other side of it",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("pd.cut(x, bins)",), keyword="right", absent=("False",),
        reason="bins are closed on the right by default, (a, b]; a value exactly on an edge now "
        "falls into the next bin",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("np.digitize(x, bins)",), keyword="right", absent=("True",),
        reason="a value exactly on a bin edge now falls into the bin below it",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("np.searchsorted(a, v)", "ndarray.searchsorted(v)", "Series.searchsorted(v)"),
        keyword="side", absent=('"right"',),
        reason="for a value equal to an element, the position after it is returned instead of its "
        "own: every tie moves by one",
    ),
    KeywordTrap(
        family=Family.WINDOW, apis=("np.linspace(start, stop, num)",), keyword="endpoint", absent=("False",),
        reason="the grid stops one step before `stop`, and every step becomes (stop - start) / num",
    ),
    KeywordTrap(
        family=Family.METRIC, apis=("Series.rank()", "scipy.stats.rankdata(a)"), keyword="method",
        present={"average": ('"min"',), "min": ('"average"',), "max": ('"average"',),
                 "first": ('"average"',), "dense": ('"average"',), "ordinal": ('"average"',)},
        reason="tied values get other ranks: rank statistics such as the Mann-Whitney AUC need the "
        "average rank of each tie group",
    ),
    KeywordTrap(
        family=Family.METRIC,
        apis=("np.std(a)", "np.var(a)", "np.nanstd(a)", "np.nanvar(a)", "ndarray.std()", "ndarray.var()"),
        keyword="ddof", absent=("1",),
        reason="numpy divides by n and pandas by n - 1: code moved between the two keeps the other "
        "library's normalisation",
    ),
    KeywordTrap(
        family=Family.METRIC, apis=("Series.std()", "Series.var()", "Series.sem()"), keyword="ddof", absent=("0",),
        reason="pandas divides by n - 1 and numpy by n: code moved between the two keeps the other "
        "library's normalisation",
    ),
    KeywordTrap(
        family=Family.METRIC, apis=tuple(f"sklearn.metrics.{name}(y_true, y_pred)" for name in _RATE_SCORES),
        keyword="average", absent=('"micro"',), present=_AVERAGES,
        reason="macro weighs each class alike, micro pools every sample (on two classes: the "
        "accuracy), weighted weighs by support: on imbalanced classes each is another number",
    ),
    KeywordTrap(
        family=Family.METRIC,
        apis=("sklearn.metrics.roc_auc_score(y_true, y_score)",
              "sklearn.metrics.average_precision_score(y_true, y_score)"),
        keyword="average", present=_AVERAGES,
        reason="macro weighs each class alike, micro pools every sample, weighted weighs by "
        "support: on imbalanced classes each is another number",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("Series.value_counts()",), keyword="normalize", absent=("True",),
        reason="shares come back instead of counts: a flag copied from exploratory code",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("Series.value_counts()",), keyword="sort", absent=("False",),
        reason="counts come back in order of first appearance instead of most frequent first, so "
        "the first entry is no longer the mode",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("Series.value_counts()", "Series.nunique()"), keyword="dropna",
        absent=("False",),
        reason="missing values are left out by default; counted, NaN becomes one more category",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("DataFrame.sample(n)",), keyword="replace", absent=("True",),
        reason="rows are drawn with replacement and repeat: a bootstrap where a subsample was meant",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("np.random.choice(a, size)", "Generator.choice(a, size)"), keyword="replace",
        absent=("False",), needs=_draws_several,
        reason="numpy draws with replacement by default; without it a bootstrap sample becomes a "
        "permutation of distinct items",
    ),
    KeywordTrap(
        family=Family.BEYOND, apis=("sklearn.model_selection.train_test_split(X, y)",), keyword="shuffle",
        absent=("False",),
        reason="unshuffled, the test set is the last rows of the data: a file sorted by label or by "
        "time gives a test set of one class or one period",
    ),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Spelling:
    """One way a row's call is written, parsed from its text."""

    owner: str  # `np`, `pd`, a module path, or a class for a method
    name: str
    method: bool
    positional: int  # the most positional arguments a call may have


def _spelling(text: str) -> _Spelling:
    path, _, parameters = text.partition("(")
    owner, _, name = path.rpartition(".")
    names = [each for each in parameters.rstrip(")").split(",") if each.strip()]
    method = owner == "ndarray" or owner[:1].isupper()
    return _Spelling(owner=owner, name=name, method=method, positional=len(names))


_ALIASES = {"np": ("np", "numpy"), "pd": ("pd", "pandas")}


def _dotted(expr: cst.BaseExpression) -> list[str] | None:
    """`np.random.choice` as ["np", "random", "choice"]; None for anything but names and attributes."""
    if isinstance(expr, cst.Name):
        return [expr.value]
    if isinstance(expr, cst.Attribute):
        head = _dotted(expr.value)
        return None if head is None else [*head, expr.attr.value]
    return None


def _imports_pandas(ctx: Context) -> bool:
    """Whether the module imports pandas: only then may `x.std()` be a pandas object's method."""
    for statement in ctx.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import) and any(
                ctx.code(alias.name).split(".")[0] == "pandas" for alias in small.names
            ):
                return True
            module = small.module if isinstance(small, cst.ImportFrom) else None
            if module is not None and ctx.code(module).split(".")[0] == "pandas":
                return True
    return False


def _visibly_numpy(receiver: cst.BaseExpression) -> bool:
    """`np.asarray(s)`, `s.to_numpy()`, `s.values`: an array, whatever the module imports."""
    if m.matches(receiver, m.Attribute(attr=m.Name("values"))):
        return True
    if not isinstance(receiver, cst.Call):
        return False
    path = _dotted(receiver.func)
    return callee(receiver) == "to_numpy" or (path is not None and path[0] in _ALIASES["np"])


def _called_as(call: cst.Call, spelling: _Spelling, ctx: Context) -> bool:
    """Whether `call` is the call `spelling` names, with no more positional arguments than it lists."""
    if len(leading_positional(call)) > spelling.positional:
        return False
    if spelling.method:
        receiver = method_receiver(call, ctx)
        if receiver is None:
            return False
        if spelling.owner == "ndarray":
            return not _imports_pandas(ctx)
        if spelling.owner in ("Series", "DataFrame"):
            return _imports_pandas(ctx) and not _visibly_numpy(receiver)
        return True
    path = _dotted(call.func)
    if path is None:
        return False
    head, *rest = spelling.owner.split(".")
    if head in _ALIASES:
        return path[0] in _ALIASES[head] and path[1:] == [*rest, spelling.name]
    # `f1_score(...)` imported by name, or called through a module: `metrics.f1_score(...)`
    return path[-1] == spelling.name and is_namespace(cst.Name(path[0]), ctx)


def _by_name(traps: tuple[KeywordTrap, ...]) -> dict[str, tuple[tuple[KeywordTrap, _Spelling], ...]]:
    """Each called name's rows with the spelling that names it, so a call looks up only its own."""
    found: dict[str, list[tuple[KeywordTrap, _Spelling]]] = {}
    for trap in traps:
        for spelling in map(_spelling, trap.apis):
            found.setdefault(spelling.name, []).append((trap, spelling))
    return {name: tuple(rows) for name, rows in found.items()}


_INDEX = _by_name(TRAPS)


def _written(value: cst.BaseExpression, ctx: Context) -> str:
    """A keyword's value as the table writes it: a string's content, else the code."""
    if isinstance(value, cst.SimpleString):
        return str(value.evaluated_value)
    return ctx.code(value).strip()


def _in_place_of(value: cst.BaseExpression, trap: str, ctx: Context) -> cst.BaseExpression:
    """`trap` where `value` stood, in `value`'s quotes when both are strings."""
    new = ctx.expression(trap)
    if isinstance(value, cst.SimpleString) and isinstance(new, cst.SimpleString):
        return with_text(value, str(new.evaluated_value))
    return new


def trap_rewrites(call: cst.Call, ctx: Context, family: Family) -> Iterator[Rewrite]:
    """Every trap of `family`'s rows for `call`: a keyword added, or its value replaced."""
    rows = _INDEX.get(callee(call) or "", ())
    if not rows or ctx.function(call) is None or any(arg.star for arg in call.args):
        return  # outside functions: configuration; `**options` may hold the keyword
    seen: set[int] = set()
    for trap, spelling in rows:
        if trap.family is not family or id(trap) in seen or not _called_as(call, spelling, ctx):
            continue
        seen.add(id(trap))
        if trap.needs is not None and not trap.needs(call, ctx):
            continue
        explanation = "`{original}` became `{mutated}`: " + trap.reason
        written = keyword(call, trap.keyword)
        if written is None:
            for value in trap.absent:
                added = with_arg(call, keyword_arg(trap.keyword, ctx.expression(value)))
                yield Rewrite(replacement=added, explanation=explanation)
            continue
        for value in trap.present.get(_written(written.value, ctx), ()):
            yield Rewrite(replacement=_in_place_of(written.value, value, ctx), target=written.value,
                          explanation=explanation)
