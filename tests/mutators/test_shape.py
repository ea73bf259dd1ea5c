"""Golden and edge-case tests for the shape family."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import leakage, shape, window
from bugsmith.mutators.testing import check_example, mutated_sources

CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in shape.MUTATORS
    for index in range(len(cls.examples))
]
DOMAIN = [cls() for module in (shape, window, leakage) for cls in module.MUTATORS]
REFERENCE = sorted(
    path
    for path in (Path(__file__).parents[2] / "reference").glob("*/*.py")
    if path.name not in ("__init__.py", "conftest.py")
)


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator makes exactly the mutants its golden example lists, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_every_mutator_has_a_positive_and_a_negative_example():
    """A mutator without a near-miss example could match everything without any test noticing."""
    for cls in shape.MUTATORS:
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_names_are_kebab_case_in_the_family():
    """Operator names are "<family>/<what-it-does>" so reports can group them."""
    for cls in shape.MUTATORS:
        family, _, what = cls.name.partition("/")
        assert family == "shape" and what == what.lower() and " " not in what and "_" not in what


def test_comments_and_layout_survive_an_axis_swap():
    """Only the axis changes: the comment and the one-argument-per-line layout stay as written."""
    before = "def f(X):\n    return np.mean(\n        X,  # samples on rows\n        axis=0,\n    )\n"
    got = mutated_sources(shape.SwapAxis(), before)
    assert got == [
        "def f(X):\n    return np.mean(\n        X,  # samples on rows\n        axis=1,\n    )\n",
        "def f(X):\n    return np.mean(\n        X,  # samples on rows\n    )\n",
    ]


def test_dropped_squeeze_keeps_operator_precedence():
    """`np.squeeze(a + b) * 2` must become `(a + b) * 2`, never `a + b * 2`."""
    assert mutated_sources(shape.DropSqueeze(), "def f(a, b):\n    return np.squeeze(a + b) * 2\n") == [
        "def f(a, b):\n    return (a + b) * 2\n"
    ]


def test_deletion_is_explained_with_whole_expressions():
    """A pure deletion quotes the call before and after, not an empty string."""
    source = "def f(x):\n    return x - x.max(axis=1, keepdims=True)\n"
    (mutant,) = mutants_of_source(source, file="f.py", module="f", mutators=[shape.DropKeepdims()]).mutants
    assert mutant.explanation.startswith("`x.max(axis=1, keepdims=True)` became `x.max(axis=1)`: ")


def test_swap_axis_ignores_numpy_axis_zero_in_pandas_modules_only():
    """`x.sum(axis=0)` equals `x.sum()` for a DataFrame, so the drop is proposed only without pandas."""
    body = "def f(x):\n    return x.sum(axis=0)\n"
    with_pandas = mutated_sources(shape.SwapAxis(), "import pandas as pd\n\n" + body)
    without = mutated_sources(shape.SwapAxis(), "import numpy as np\n\n" + body)
    assert [text for text in with_pandas if "x.sum()" in text] == []
    assert [text for text in without if "x.sum()" in text] != []


def test_plain_python_gets_no_shape_mutants():
    """Shape bugs belong to array code: lists, dicts and strings give none."""
    source = textwrap.dedent(
        """
        def f(items, table, text):
            first = items[0]
            rows = [row for row in table.values() if row]
            return first, rows, text.split(":")[1], sorted(items, key=len), max(items, key=len)
        """
    )
    assert all(mutated_sources(cls(), source) == [] for cls in shape.MUTATORS)


UNUSUAL = textwrap.dedent(
    """
    import numpy as np

    @np.vectorize
    async def f(*args, x=np.ones((2, 1)), **kwargs):
        if (n := len(args)) > 0:
            total = sum(a.sum(axis=0) for a in args)
        lam = lambda v: v.reshape(-1, 1)[:, 0]
        match kwargs:
            case {"a": a}:
                y = a[..., None]
            case _:
                y = x.squeeze(axis=1)
        async with lock:
            z = [q async for q in gen() if q.ravel().any(axis=-1)]
        s = f"{x.mean(axis=0)!r:>{n}}"
        del x[:, None]
        return (y := np.expand_dims(y, 0)), x.T[:, 1:-1], total, lam, z, s, X[:, [0, 2]]
    """
)


def test_unusual_syntax_does_not_crash_and_every_mutant_compiles():
    """Decorators, walrus, match, async, f-strings and lambdas are handled; kept mutants compile."""
    result = mutants_of_source(UNUSUAL, file="u.py", module="u", mutators=DOMAIN)
    assert len(result.mutants) > 10
    for mutant in result.mutants:
        compile(mutant.apply(UNUSUAL), "u.py", "exec")
        assert "`` became" not in mutant.explanation and "became ``" not in mutant.explanation


@pytest.mark.parametrize("path", REFERENCE, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_reference_mutants_apply_and_compile(path):
    """On the reference corpus every domain mutant applies at its span and compiles."""
    source = path.read_text()
    result = mutants_of_source(source, file=path.name, module=path.stem, mutators=DOMAIN)
    for mutant in result.mutants:
        mutated = mutant.apply(source)
        assert mutated != source
        compile(mutated, path.name, "exec")


def test_a_dimension_check_under_not_is_an_accepting_one():
    """`if not x.ndim == 2: raise` states what is accepted, as an `assert` does: `==` loosens to `>=`/`<=`."""
    before = "def f(x):\n    if not x.ndim == 2:\n        raise ValueError\n    return x\n"
    assert sorted(mutated_sources(shape.DimensionCheck(), before)) == [
        "def f(x):\n    if not x.ndim <= 2:\n        raise ValueError\n    return x\n",
        "def f(x):\n    if not x.ndim >= 2:\n        raise ValueError\n    return x\n",
    ]


def test_a_dimension_check_in_an_elif_or_beside_another_clause_is_a_check():
    """An `elif` that raises and an `or` beside the count are checks too; an `if` that returns is not."""
    before = (
        "def f(x, y):\n    if x.size == 0 or x.ndim != 1:\n        raise ValueError\n"
        "    elif len(y.shape) > 2:\n        raise ValueError('y')\n    if y.ndim != 1:\n        return y.ravel()\n"
    )
    assert mutated_sources(shape.DimensionCheck(), before) == [
        "def f(x, y):\n    if x.size == 0 or x.ndim > 1:\n        raise ValueError\n"
        "    elif len(y.shape) > 2:\n        raise ValueError('y')\n    if y.ndim != 1:\n        return y.ravel()\n",
        "def f(x, y):\n    if x.size == 0 or x.ndim < 1:\n        raise ValueError\n"
        "    elif len(y.shape) > 2:\n        raise ValueError('y')\n    if y.ndim != 1:\n        return y.ravel()\n",
        "def f(x, y):\n    if x.size == 0 or x.ndim != 1:\n        raise ValueError\n"
        "    elif len(y.shape) != 2:\n        raise ValueError('y')\n    if y.ndim != 1:\n        return y.ravel()\n",
    ]


def test_a_dimension_check_against_a_name_or_inside_a_call_is_left_alone():
    """`x.ndim != k` has no literal to compare with, and `bool(x.ndim != 2)` is not the check's own test."""
    before = "def f(x, k):\n    if x.ndim != k or bool(x.ndim != 2):\n        raise ValueError\n"
    assert mutated_sources(shape.DimensionCheck(), before) == []
