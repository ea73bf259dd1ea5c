"""Golden and edge-case tests for the beyond-classic family."""

from __future__ import annotations

import textwrap

import pytest

from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import beyond
from bugsmith.mutators.families.beyond.call_mixups import SiblingCall, UnwrapCall
from bugsmith.mutators.families.beyond.off_by_one import AddOne, DropSliceBound
from bugsmith.mutators.families.beyond.swaps import SwapArguments, SwapOperands
from bugsmith.mutators.families.beyond.wrong_names import WrongAttribute, WrongVariable
from bugsmith.mutators.testing import check_example, mutated_sources

CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in beyond.MUTATORS
    for index in range(len(cls.examples))
]

# A small realistic module: numpy arrays, a queue, a class with state, comprehensions,
# lambdas, walrus, match, async and try/except, so every mutator has sites and traps.
SAMPLE = textwrap.dedent(
    '''
    from __future__ import annotations

    from bisect import bisect_left, bisect_right
    from collections import deque
    from numbers import Integral

    import numpy as np


    class Window:
        size: int

        def __init__(self, size: int, lo: float, hi: float) -> None:
            self.size = size
            self.lo = lo
            self.hi = hi
            self.values: deque[float] = deque()
            self.seen = 0

        def push(self, x: float) -> float | None:
            if not self.lo <= x <= self.hi:
                return None  # out of range
            self.values.append(x)
            self.seen += 1
            if len(self.values) > self.size:
                self.values.popleft()
            return max(0.0, np.mean(self.values) - self.lo)


    def rates(y_true, y_score, *, weights=None):
        order = np.argsort(-y_score, kind="stable")
        tps = np.cumsum(y_true[order])
        fps = np.cumsum(1 - y_true[order])
        tpr, fpr = tps / tps[-1], fps / fps[-1]
        return np.r_[0.0, fpr], np.r_[0.0, tpr], [t for t in tps if (u := t) > 0]


    def lagged(X, lags, stop):
        out = np.empty((X.shape[0], len(lags)))
        for j, lag in enumerate(lags):
            if lag == 0:
                continue
            out[lag:, j] = X[: -lag, j]
        ranks = sorted(out[:stop, 0], key=lambda v: -v)
        return out[1:stop - 1], ranks, bisect_left(ranks, stop, 0, len(ranks))


    async def drain(queue, budget: int):
        served = []
        while queue and budget > 0:
            try:
                item = queue.popleft()
            except IndexError as error:
                raise RuntimeError("empty") from error
            match item:
                case (cost, name) if cost > budget:
                    return served
            budget -= item[0]
            served.append(item[1])
        return served


    def shortest(graph, start, edge, encoding=None):
        if encoding is None:
            encoding = "utf-8"
        best, previous, frontier = np.inf, None, [start]
        done = set()
        while frontier:
            node = frontier.pop()
            if node in done or node in frontier:
                continue
            done.add(node)
            if node is None:
                return [[]]
            best = min(best, graph[previous] + edge.incoming)
            previous = node
        return previous == start and best < edge.outgoing


    def ranked(df, model, proba):
        return df.groupby(["user", "day"]).sum(), model.classes_[proba.argmax(axis=1)]


    def bootstrap(rng, X, n: Integral):
        if not isinstance(n, Integral) or not isinstance(X, (np.ndarray, list)):
            raise TypeError("n must be an integer and X an array")
        return X[rng.choice(len(X), size=n)]


    def children(queue, rows, left, depth):
        queue.append((rows[left], depth + 1))
        queue.append((rows[~left], depth + 1))


    def clipped(frame, stats, limit, lo, hi):
        full = frame.shape[0] >= limit
        if not stats.is_sorted():
            stats = stats.sort_values()
        edges = np.clip(stats, max(lo, limit), min(hi, limit))
        if full:
            edges = edges.cumsum()
        else:
            edges = edges.cummax()
        return enumerate(np.cumsum(edges), limit), frame.dtypes.iloc[0], full, lo, hi


    def described(stats):
        kinds = ("mean", "max", "min")
        return {kind: getattr(stats, kind)() for kind in kinds}
    '''
)


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator makes exactly the mutants its golden example lists, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_every_mutator_has_a_positive_and_a_negative_example():
    """Every mutator shows one site it mutates and one near-miss it must leave alone."""
    for cls in beyond.MUTATORS:
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_names_are_unique_and_in_the_family():
    """Operator names are `beyond/<kebab-case>` and no two mutators share one."""
    names = [cls.name for cls in beyond.MUTATORS]
    assert len(names) == len(set(names))
    assert all(name.startswith("beyond/") and name == name.lower() and " " not in name for name in names)


def _sample_mutants():
    mutators = [cls() for cls in beyond.MUTATORS]
    return mutants_of_source(SAMPLE, file="sample.py", module="sample", mutators=mutators)


def test_sample_mutants_compile_and_change_only_their_span():
    """Every mutant of the sample compiles, is made once, and leaves the text around its span alone."""
    result = _sample_mutants()
    assert result.dropped_invalid == 0
    # No two operators (or one operator twice) make the same code. The twin operators are the
    # exception by design: at a twin they find again edits others make everywhere (a name copied
    # from the twin is often a wrong variable), and the other operator's mutant is kept
    # (tests/mutators/test_twins.py).
    alone = [cls() for cls in beyond.MUTATORS if not cls.name.startswith("beyond/twin-")]
    assert mutants_of_source(SAMPLE, file="sample.py", module="sample", mutators=alone).dropped_duplicates == 0
    assert {m.operator for m in result.mutants} >= {cls.name for cls in beyond.MUTATORS} - {
        "beyond/sibling-keyword", "beyond/swap-indices"
    }
    for mutant in result.mutants:
        mutated = mutant.apply(SAMPLE)
        compile(mutated, "sample.py", "exec")
        start, end = mutant.span.offsets(SAMPLE)
        assert mutated[:start] == SAMPLE[:start]
        assert mutated[start + len(mutant.mutated):] == SAMPLE[end:]


def test_sample_mutants_are_deterministic():
    """Two enumerations of the same source give the same mutants in the same order."""
    first = [(m.id, m.mutated) for m in _sample_mutants().mutants]
    assert first == [(m.id, m.mutated) for m in _sample_mutants().mutants]


def test_at_most_two_wrong_variables_per_site():
    """No site gets more than two replacement names, so one name cannot flood the report."""
    sites: dict[tuple[int, int], int] = {}
    for mutant in _sample_mutants().mutants:
        if mutant.operator in ("beyond/wrong-variable", "beyond/wrong-attribute"):
            key = (mutant.span.line, mutant.span.column)
            sites[key] = sites.get(key, 0) + 1
    assert sites and max(sites.values()) <= 2


def test_wrong_variable_never_uses_later_bindings_targets_or_non_data():
    """Names bound after the site, the statement's own target, functions and except names are never candidates."""
    before = (
        "def f(alpha, beta):\n"
        "    try:\n        alpha1 = alpha + 1\n    except ValueError as alphb:\n        alpha1 = 0\n"
        "    def alphc():\n        pass\n"
        "    alpha2 = alpha1\n"
        "    alpha3 = 2\n"
        "    return alpha2\n"
    )
    replaced = {
        line.strip()
        for text in mutated_sources(WrongVariable(), before)
        for line in text.splitlines()
        if line not in before.splitlines()
    }
    assert replaced == {
        "alpha2 = alpha",  # not `alpha3`, bound later, nor `alphb`, unbound after its handler
        "return alpha",  # the two most similar names bound before
        "return alpha3",
    }  # and `alpha1 = alpha + 1` has no candidate: `alpha1` is its own target, `alphc` a function


def test_wrong_variable_respects_comprehension_and_lambda_scopes():
    """A comprehension target stands in for the outer name; a lambda's names are left alone."""
    before = "def f(row, rows):\n    g = lambda r: r + 1\n    return [row for rows_ in rows]\n"
    after = mutated_sources(WrongVariable(), before)
    assert "def f(row, rows):\n    g = lambda r: r + 1\n    return [rows_ for rows_ in rows]\n" in after
    assert all("lambda r: r + 1" in text for text in after)


def test_wrong_attribute_uses_dataclass_fields_and_their_kinds():
    """Fields of the same annotated kind may swap; a field of another kind may not."""
    before = (
        "class P:\n    lo: float\n    hi: float\n    name: str\n\n"
        "    def top(self):\n        return self.hi, self.name\n"
    )
    assert mutated_sources(WrongAttribute(), before) == [before.replace("self.hi,", "self.lo,")]


def test_swap_arguments_follows_the_signature_of_a_local_function():
    """`fits(request, budget)` is not swapped when the definition says a Request and an int."""
    before = (
        "def fits(request: Request, budget: int) -> bool:\n    return True\n\n"
        "def g(r, b, lo, hi):\n    return fits(r, b), span(lo, hi)\n"
    )
    assert mutated_sources(SwapArguments(), before) == [before.replace("span(lo, hi)", "span(hi, lo)")]


def test_unwrap_tells_a_namespace_function_from_a_method():
    """`xp.abs(X)` unwraps to `X`, `s.round(2)` to `s`, and `np.max(x, 0)` is a reduction, not a clamp."""
    before = "import numpy as np\n\ndef f(xp, X, s, x):\n    return xp.abs(X), s.round(2), np.max(x, 0)\n"
    assert sorted(mutated_sources(UnwrapCall(), before)) == sorted([
        before.replace("xp.abs(X)", "X"),
        before.replace("s.round(2)", "s"),
    ])


def test_sibling_call_needs_the_sibling_to_be_imported():
    """`bisect_left` becomes `bisect_right` only when `bisect_right` is imported too."""
    both = "from bisect import bisect_left, bisect_right\n\ndef f(a, x):\n    return bisect_left(a, x)\n"
    one = "from bisect import bisect_left\n\ndef f(a, x):\n    return bisect_left(a, x)\n"
    assert mutated_sources(SiblingCall(), both) == [both.replace("return bisect_left", "return bisect_right")]
    assert mutated_sources(SiblingCall(), one) == []


def test_swap_operands_parenthesizes_a_moved_difference():
    """`a - b - c` swapped at the top becomes `c - (a - b)`, which parses as the swap intended."""
    after = mutated_sources(SwapOperands(), "def f(a, b, c):\n    return a - b - c\n")
    assert "def f(a, b, c):\n    return c - (a - b)\n" in after


def test_add_one_leaves_loose_bounds_alone():
    """A conditional expression as a bound would need parentheses, so it is not a site."""
    assert mutated_sources(AddOne(), "def f(x, a, b, c):\n    return x[a if b else c:]\n") == []


def test_slice_targets_keep_a_slice():
    """`x[1:] = v` never becomes `x = v`, which rebinds instead of writing into the array."""
    assert mutated_sources(DropSliceBound(), "def f(x, v):\n    x[1:] = v\n") == []


def test_deleted_guard_keeps_the_comment_above_it():
    """Deleting a guard clause keeps the comment lines written above it."""
    before = "def f(x):\n    # empty input\n    if not x:\n        return 0\n    return len(x)\n"
    after = mutated_sources(beyond.RemoveGuard(), before)
    assert after == ["def f(x):\n    # empty input\n    return len(x)\n"]


# The real bugs issue 16 names, each as (fixed code, buggy code): the buggy code must be one of
# the mutants that every registered mutator together makes of the fixed code.
ISSUE_16_BUGS = {
    "argument swap with an expression": (
        "def gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(b, a % b)\n",
        "def gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(a % b, b)\n",
    ),
    "augmented and becomes xor": (
        "def bitcount(n):\n    count = 0\n    while n:\n        n &= n - 1\n        count += 1\n    return count\n",
        "def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count\n",
    ),
    "call unwrapped to one argument": (
        "def f(xs, longest):\n    for length in xs:\n        longest = max(longest, length + 1)\n    return longest\n",
        "def f(xs, longest):\n    for length in xs:\n        longest = length + 1\n    return longest\n",
    ),
    "loop-carried rebinding deleted": (
        "def reverse(node):\n    prevnode = None\n    while node:\n        nextnode = node.successor\n"
        "        node.successor = prevnode\n        prevnode = node\n        node = nextnode\n    return prevnode\n",
        "def reverse(node):\n    prevnode = None\n    while node:\n        nextnode = node.successor\n"
        "        node.successor = prevnode\n        node = nextnode\n    return prevnode\n",
    ),
    "predicate answers a constant": (
        "def balanced(depth):\n    return depth == 0\n",
        "def balanced(depth):\n    return True\n",
    ),
    "base case empty": (
        "def subsets(xs):\n    if not xs:\n        return [[]]\n    rest = subsets(xs[1:])\n"
        "    return rest + [[xs[0]] + r for r in rest]\n",
        "def subsets(xs):\n    if not xs:\n        return []\n    rest = subsets(xs[1:])\n"
        "    return rest + [[xs[0]] + r for r in rest]\n",
    ),
    "loop never checks its queue": (
        "def bfs(queue, goal):\n    while queue:\n        node = queue.popleft()\n        if node == goal:\n"
        "            return True\n    return False\n",
        "def bfs(queue, goal):\n    while True:\n        node = queue.popleft()\n        if node == goal:\n"
        "            return True\n    return False\n",
    ),
    "condition clause dropped": (
        "def f(a, b):\n    if a is None or b is None:\n        return 0\n    return a + b\n",
        "def f(a, b):\n    if b is None:\n        return 0\n    return a + b\n",
    ),
    "subtracted operand dropped": (
        "def kth(arr, k, n):\n    return kth(arr, k - n, n)\n",
        "def kth(arr, k, n):\n    return kth(arr, k, n)\n",
    ),
    "accumulated operand dropped": (
        "def subsets(rest, x):\n    return rest + [x]\n",
        "def subsets(rest, x):\n    return [x]\n",
    ),
    "sibling attribute": (
        "def sources(edge):\n    return edge.incoming\n\n\ndef targets(edge):\n    return edge.outgoing\n",
        "def sources(edge):\n    return edge.outgoing\n\n\ndef targets(edge):\n    return edge.outgoing\n",
    ),
    "semantic keyword dropped": (
        "def spread(x):\n    return x.std(ddof=1)\n",
        "def spread(x):\n    return x.std()\n",
    ),
    "sentinel swapped": (
        "import math\n\ndef smallest(xs):\n    best = math.inf\n    for x in xs:\n        best = min(best, x)\n"
        "    return best\n",
        "import math\n\ndef smallest(xs):\n    best = 0\n    for x in xs:\n        best = min(best, x)\n"
        "    return best\n",
    ),
    "exception type swapped": (
        "def get(d, k):\n    try:\n        return d[k]\n    except KeyError:\n        return None\n",
        "def get(d, k):\n    try:\n        return d[k]\n    except IndexError:\n        return None\n",
    ),
}


# Fixes from BugsInPy (project/bug) whose buggy code the operators of issue 16 make.
ISSUE_16_BUGS |= {
    "luigi/28 a string normaliser unwrapped": (
        "def exists(table, stdout):\n    return stdout and table.lower() in stdout\n",
        "def exists(table, stdout):\n    return stdout and table in stdout\n",
    ),
    "black/21 a library class's option dropped": (
        "import tempfile\n\ndef dump():\n    return tempfile.NamedTemporaryFile(mode='w', delete=False, encoding='utf8')\n",
        "import tempfile\n\ndef dump():\n    return tempfile.NamedTemporaryFile(mode='w', delete=False)\n",
    ),
    "pandas/64 a reindex unwrapped": (
        "class W:\n    def __init__(self, df, cols):\n        self.df = df.reindex(columns=cols)\n",
        "class W:\n    def __init__(self, df, cols):\n        self.df = df\n",
    ),
    "pandas/74 a clause dropped": (
        "def f(data, freq):\n    if isinstance(data, list) and freq is None:\n        freq = 1\n    return freq\n",
        "def f(data, freq):\n    if isinstance(data, list):\n        freq = 1\n    return freq\n",
    ),
}


@pytest.mark.parametrize(("fixed", "buggy"), ISSUE_16_BUGS.values(), ids=ISSUE_16_BUGS.keys())
def test_the_real_bugs_of_issue_16_are_made(fixed, buggy):
    """Each real bug the issue lists is one of the mutants of its fixed code (all families)."""
    mutators = [cls() for cls in registry.all_mutators()]
    made = mutants_of_source(fixed, file="bug.py", module="bug", mutators=mutators)
    assert buggy in {mutant.apply(fixed) for mutant in made.mutants}


def test_a_dropped_alternative_keeps_the_display_and_its_trailing_comma():
    """`x in [a, b, c,]` less one is still a list with its trailing comma; a set stays a set."""
    before = "def f(x, y):\n    return x in [A, B, C,], y not in {1, 2, 3}\n"
    got = mutated_sources(beyond.DropAlternative(), before)
    assert "def f(x, y):\n    return x in [B, C,], y not in {1, 2, 3}\n" in got
    assert "def f(x, y):\n    return x in [A, B, C,], y not in {1, 2}\n" in got
    assert len(got) == 6


def test_alternatives_given_with_a_start_or_spread_from_a_name_are_left_alone():
    """`s.startswith((a, b), 1)` tests a slice; `isinstance(x, (*kinds, int))` spreads a name."""
    before = "def f(s, x, kinds):\n    return s.startswith(('a', 'b'), 1), isinstance(x, (*kinds, int))\n"
    assert mutated_sources(beyond.DropAlternative(), before) == []


def test_a_type_check_narrows_inside_a_tuple_and_through_a_module():
    """`numbers.Integral` in a tuple becomes `int`; `np.issubdtype(d, np.floating)` widens to `np.number`."""
    before = (
        "import numbers\nimport numpy as np\n\ndef f(n, d):\n"
        "    return isinstance(n, (numbers.Integral, str)), np.issubdtype(d, np.floating)\n"
    )
    assert mutated_sources(beyond.TypeCheck(), before) == [
        "import numbers\nimport numpy as np\n\ndef f(n, d):\n"
        "    return isinstance(n, (int, str)), np.issubdtype(d, np.floating)\n",
        "import numbers\nimport numpy as np\n\ndef f(n, d):\n"
        "    return isinstance(n, (numbers.Integral, str)), np.issubdtype(d, np.number)\n",
    ]


def test_a_pandas_predicate_imported_by_name_changes_only_to_one_imported_beside_it():
    """`is_numeric_dtype(s)` may become `is_float_dtype(s)` only where that name is imported too."""
    before = (
        "from pandas.api.types import is_float_dtype, is_numeric_dtype\n\n"
        "def f(s):\n    return is_numeric_dtype(s)\n"
    )
    assert mutated_sources(beyond.TypeCheck(), before) == [
        "from pandas.api.types import is_float_dtype, is_numeric_dtype\n\n"
        "def f(s):\n    return is_float_dtype(s)\n"
    ]


def test_a_range_end_is_dropped_in_a_while_and_an_assert_but_not_in_a_value():
    """Conditions of `while` and `assert` are checks; a range computed into a mask is not."""
    before = (
        "def f(i, n, x, lo, hi):\n    while 0 <= i < n:\n        i += 1\n"
        "    assert lo <= hi <= n, 'bounds'\n    return (lo < x) & (x < hi), lo < x < hi\n"
    )
    got = mutated_sources(beyond.DropRangeEnd(), before)
    assert sorted(got) == sorted([
        "def f(i, n, x, lo, hi):\n    while i < n:\n        i += 1\n"
        "    assert lo <= hi <= n, 'bounds'\n    return (lo < x) & (x < hi), lo < x < hi\n",
        "def f(i, n, x, lo, hi):\n    while 0 <= i:\n        i += 1\n"
        "    assert lo <= hi <= n, 'bounds'\n    return (lo < x) & (x < hi), lo < x < hi\n",
        "def f(i, n, x, lo, hi):\n    while 0 <= i < n:\n        i += 1\n"
        "    assert hi <= n, 'bounds'\n    return (lo < x) & (x < hi), lo < x < hi\n",
        "def f(i, n, x, lo, hi):\n    while 0 <= i < n:\n        i += 1\n"
        "    assert lo <= hi, 'bounds'\n    return (lo < x) & (x < hi), lo < x < hi\n",
    ])


def test_no_alternative_is_dropped_or_narrowed_when_a_wider_one_stays_listed():
    """`(tuple, list, Sequence)` less `tuple` is the same test, and `Sequence` -> `list` repeats
    `list`: only `Sequence` itself may be dropped; `(int, bool)` may lose `int`, not `bool`."""
    before = "def f(seq, n):\n    return isinstance(seq, (tuple, list, Sequence)), isinstance(n, (int, bool))\n"
    assert mutated_sources(beyond.TypeCheck(), before) == []
    assert mutated_sources(beyond.DropAlternative(), before) == [
        "def f(seq, n):\n    return isinstance(seq, (tuple, list)), isinstance(n, (int, bool))\n",
        "def f(seq, n):\n    return isinstance(seq, (tuple, list, Sequence)), isinstance(n, bool)\n",
    ]


def test_a_range_end_explanation_quotes_the_whole_range_braces_included():
    """The explanation names both whole comparisons, and braces in them survive its formatting."""
    source = "def f(i, n):\n    if not 0 <= i < {'n': n}['n']:\n        raise IndexError(i)\n"
    result = mutants_of_source(source, file="m.py", module="m", mutators=[beyond.DropRangeEnd()])
    assert [m.explanation.split("`: ")[0] for m in result.mutants] == [
        "`0 <= i < {'n': n}['n']` became `i < {'n': n}['n']",
        "`0 <= i < {'n': n}['n']` became `0 <= i",
    ]
