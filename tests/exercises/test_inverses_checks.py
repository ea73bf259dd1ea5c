"""The undo edits of a check loosened or tightened by one case (harness/exercises/measure/inverses/checks.py):
each writes back what the buggy program still shows, and nothing it does not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bugsmith.harness.exercises.measure.inverses import repair_edits, tier
from bugsmith.harness.exercises.measure.inverses.base import PART, TOKEN, WRITTEN
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source


def _undone(source: str, operator: str) -> set[str]:
    """The programs (as their AST) that the undo edits of `operator` make of `source`."""
    return {_shape(e.apply(source)) for e in repair_edits(source, file="m.py", module="m") if e.operator == operator}


def _shape(source: str) -> str:
    return ast.dump(ast.parse(source))


def test_tiers():
    """A type is one token; a range end or a case is one part; a label check is written anew."""
    assert tier("undo/type-back") == TOKEN
    assert tier("undo/range-end-back") == tier("undo/alternative-back") == PART
    assert tier("undo/label-set-back") == WRITTEN


# --- undo/type-back ---------------------------------------------------------------------------

def test_int_widens_back_to_the_integral_the_module_imports():
    """`isinstance(n, int)` -> `Integral`, by the module's own spelling of it."""
    by_name = "from numbers import Integral\n\ndef f(n):\n    return isinstance(n, (int, str))\n"
    assert _shape(by_name.replace("(int, str)", "(Integral, str)")) in _undone(by_name, "undo/type-back")
    by_module = "import numbers\n\ndef f(n):\n    return isinstance(n, int)\n"
    assert _shape(by_module.replace("int)", "numbers.Integral)")) in _undone(by_module, "undo/type-back")
    aliased = "from collections import abc\n\ndef f(xs):\n    return isinstance(xs, list)\n"
    assert _shape(aliased.replace("list)", "abc.Sequence)")) in _undone(aliased, "undo/type-back")


def test_no_wider_type_is_written_that_the_module_cannot_name():
    """Without an import of the wider type, or where it is listed already, or on a conversion: no edit."""
    assert not _undone("def f(n):\n    return isinstance(n, int)\n", "undo/type-back")
    assert not _undone("from numbers import Integral\n\ndef f(n):\n    return isinstance(n, (int, Integral))\n",
                       "undo/type-back")
    assert not _undone("from numbers import Real\n\ndef f(x):\n    return float(x)\n", "undo/type-back")


def test_a_pandas_predicate_widens_back_to_its_sibling():
    """`is_datetime64_dtype` -> `is_datetime64_any_dtype`; `is_numeric_dtype` -> `is_integer_dtype` (the
    engine's own edit makes `is_float_dtype`); a predicate called by name only to one imported beside it."""
    source = "import pandas as pd\n\ndef f(s):\n    return pd.api.types.is_datetime64_dtype(s)\n"
    assert _undone(source, "undo/type-back") == {_shape(source.replace("datetime64_dtype", "datetime64_any_dtype"))}
    numeric = "import pandas as pd\n\ndef f(s):\n    return pd.api.types.is_numeric_dtype(s)\n"
    assert _undone(numeric, "undo/type-back") == {_shape(numeric.replace("is_numeric", "is_integer"))}
    imported = "from pandas.api.types import is_datetime64_dtype{}\n\ndef f(s):\n    return is_datetime64_dtype(s)\n"
    assert not _undone(imported.format(""), "undo/type-back")
    both = imported.format(", is_datetime64_any_dtype")
    assert _undone(both, "undo/type-back") == {_shape(both.replace("return is_datetime64_dtype",
                                                                   "return is_datetime64_any_dtype"))}


# --- undo/range-end-back ----------------------------------------------------------------------

def test_an_index_gets_its_upper_end_back_from_what_it_indexes_or_a_size():
    """`0 <= i` -> `0 <= i < len(xs)` for the `xs[i]` read below, or `< n` for an unread `n`."""
    source = "def f(xs, i, n):\n    if not 0 <= i:\n        raise IndexError(i)\n    return xs[i]\n"
    undone = _undone(source, "undo/range-end-back")
    assert _shape(source.replace("0 <= i:", "0 <= i < len(xs):")) in undone
    assert _shape(source.replace("0 <= i:", "0 <= i < n:")) in undone


def test_a_block_id_gets_its_upper_end_back_from_the_class_size():
    """`0 <= block` -> `0 <= block < self._num_blocks`, a size the class sets."""
    source = ("class A:\n    def __init__(self, k):\n        self._num_blocks = k\n\n"
              "    def get(self, block):\n        if not 0 <= block:\n            raise ValueError(block)\n"
              "        return block\n")
    assert _shape(source.replace("0 <= block:", "0 <= block < self._num_blocks:")) in _undone(
        source, "undo/range-end-back")


def test_the_lower_end_is_zero_or_one_and_a_fraction_ends_at_one():
    """`i < n` -> `0 <= i < n`; `k <= n_features` -> `1 <= k <= n_features`; `0 < frac` -> `0 < frac <= 1`;
    falling comparisons get their end on their own side (`n > i` -> `n > i >= 0`)."""
    cases = {
        "if not i < n:": "if not 0 <= i < n:",
        "if k <= n:": "if 1 <= k <= n:",
        "if 0 < frac:": "if 0 < frac <= 1:",
        "if n > i:": "if n > i >= 0:",
    }
    for buggy, fixed in cases.items():
        source = f"def f(i, n, k, frac):\n    {buggy}\n        return 1\n    return i + n + k + frac\n"
        assert _shape(source.replace(buggy, fixed)) in _undone(source, "undo/range-end-back"), buggy


def test_a_bound_compared_elsewhere_comes_back():
    """The range of `p` in one check is the end another check holds it to (`p > limit` below)."""
    source = ("def f(p, limit):\n    if not 0 <= p:\n        raise ValueError(p)\n"
              "    if p > limit:\n        return limit\n    return p\n")
    assert _shape(source.replace("0 <= p:", "0 <= p <= limit:")) in _undone(source, "undo/range-end-back")


def test_no_range_end_outside_a_condition_or_one_that_leaves_no_value():
    """`ok = i < n` is no check; `x < 0` gets no `0 <= x` nor `1 <= x` (nothing is in between)."""
    assert not _undone("def f(i, n):\n    ok = i < n\n    return ok\n", "undo/range-end-back")
    assert not _undone("def f(x):\n    if x < 0:\n        return 0\n    return x\n", "undo/range-end-back")


# --- undo/alternative-back --------------------------------------------------------------------

def test_a_type_named_by_another_check_is_accepted_again():
    """`isinstance(items, int)` (`str` dropped) beside `isinstance(window, str)` gets `str` back."""
    source = ("def f(items, window):\n    if isinstance(window, str):\n        return 0\n"
              "    if isinstance(items, int):\n        raise ValueError(items)\n    return 1\n")
    assert _shape(source.replace("(items, int)", "(items, (int, str))")) in _undone(source, "undo/alternative-back")


def test_a_value_comes_back_from_a_display_that_shares_one_with_this_one():
    """`s in (DONE, FAILED)` beside `(DONE, UNKNOWN)` gets `UNKNOWN`; beside `(A, B)` it gets nothing."""
    source = "def f(s, t):\n    return s in (DONE, FAILED), t in (DONE, UNKNOWN), t in (A, B)\n"
    edits = [e for e in repair_edits(source, file="m.py", module="m") if e.operator == "undo/alternative-back"]
    assert {_shape(e.apply(source)) for e in edits} == {
        _shape(source.replace("(DONE, FAILED)", "(DONE, FAILED, UNKNOWN)")),
        _shape(source.replace("(DONE, UNKNOWN)", "(DONE, UNKNOWN, FAILED)")),
    }


def test_a_prefix_comes_back_from_another_prefix_test():
    """`arch.startswith(('armv', 'aarch'))` beside a `startswith('ppc')` gets `'ppc'` back; an
    `endswith` names other cases and gives nothing."""
    source = "def f(arch, name):\n    return arch.startswith(('armv', 'aarch')), name.startswith('ppc')\n"
    assert _shape(source.replace("'aarch')", "'aarch', 'ppc')")) in _undone(source, "undo/alternative-back")
    suffix = "def f(arch, name):\n    return arch.startswith(('armv', 'aarch')), name.endswith('.py')\n"
    assert not _undone(suffix, "undo/alternative-back")


# --- undo/label-set-back ----------------------------------------------------------------------

_Y = "import numpy as np\n\ndef f(y):\n    if not {}:\n        raise ValueError\n    return (-1, 1)\n"


def test_a_label_count_becomes_a_label_set_again():
    """`len(np.unique(y)) <= 2` -> `set(np.unique(y)) <= {0, 1}`, the `np.isin` forms, and a label pair
    the module spells out; `==` -> `np.array_equal(np.unique(y), [0, 1])`."""
    source = _Y.format("len(np.unique(y)) <= 2")
    undone = _undone(source, "undo/label-set-back")
    for check in ("set(np.unique(y)) <= {0, 1}", "np.isin(y, [0, 1]).all()", "np.all(np.isin(y, (0, 1)))",
                  "set(np.unique(y)) <= {-1, 1}"):
        assert _shape(_Y.format(check)) in undone, check
    equal = _Y.format("len(np.unique(y)) == 2")
    assert _shape(_Y.format("np.array_equal(np.unique(y), [0, 1])")) in _undone(equal, "undo/label-set-back")
    counted_set = _Y.format("len(set(y)) <= 2")
    assert _shape(_Y.format("set(y).issubset({0, 1})")) in _undone(counted_set, "undo/label-set-back")


def test_no_label_set_for_a_length_that_counts_no_labels():
    """`len(xs) <= 2` counts items, not distinct labels; one label is no set to check."""
    assert not _undone(_Y.format("len(y) <= 2"), "undo/label-set-back")
    assert not _undone(_Y.format("len(np.unique(y)) <= 1"), "undo/label-set-back")


# --- on the corpus ----------------------------------------------------------------------------

_OPERATORS = ("beyond/type-check", "beyond/drop-range-end", "beyond/drop-alternative", "metric/label-count-check")


class _SortedCases(ast.NodeTransformer):
    """The cases of a tuple in any order: an `isinstance` accepts `(str, int)` as `(int, str)`."""

    def visit_Tuple(self, node: ast.Tuple) -> ast.Tuple:
        self.generic_visit(node)
        node.elts.sort(key=ast.dump)
        return node


def _cases_shape(source: str) -> str:
    return ast.dump(_SortedCases().visit(ast.parse(source)))


def _corpus_bugs() -> list:
    root = Path(__file__).resolve().parents[2] / "reference"
    mutators = [cls() for cls in registry.all_mutators() if cls.name in _OPERATORS]
    bugs = []
    for file in sorted(root.glob("*/*.py")):
        if file.name.startswith("test") or file.name in ("strategies.py", "__init__.py"):
            continue
        source = file.read_text(encoding="utf-8")
        for bug in mutants_of_source(source, file=file.name, module=file.stem, mutators=mutators).mutants:
            bugs.append(pytest.param(source, bug, id=f"{file.parent.name}-{bug.operator}-{bug.span.line}"))
    return bugs


@pytest.mark.parametrize(("source", "bug"), _corpus_bugs())
def test_the_search_undoes_each_check_bug_of_the_corpus(source, bug):
    """Every bug these operators make in the built-in problems is undone by one candidate edit of the
    search at the bug's line of the buggy program (the cases of a tuple in any order). The engine's
    edits are those of the four operators alone: the search holds the rest too, at a cost."""
    buggy = bug.apply(source)
    wanted = _cases_shape(source)
    forward = [cls() for cls in registry.all_mutators() if cls.name in _OPERATORS]
    edits = repair_edits(buggy, file=bug.file, module=bug.module, forward=forward,
                         functions=frozenset({bug.function.rsplit(".")[-1]}))
    assert any(_cases_shape(edit.apply(buggy)) == wanted for edit in edits if edit.span.line == bug.span.line)
