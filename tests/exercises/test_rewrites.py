"""Each behaviour-preserving rewrite of a variant, golden before/after for a fixed seed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.assemble.rewrites import rewrite
from bugsmith.harness.exercises.assemble.variants import run_suite, variant_code
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.harness.exercises.sources.layout import code_files


def _rewrite(kind: str, seed: str, before: str) -> str:
    return rewrite(textwrap.dedent(before), seed, only=(kind,))


def test_locals_are_renamed_consistently_and_parameters_are_not():
    """Locals (loop variables too) get new names everywhere they are used, with the comments and
    the docstring that quote them; a parameter keeps its name, since a caller may pass it by keyword."""
    before = '''\
        def mean(values, *, weights=None):
            """Weighted mean; `total` is the weighted sum."""
            total = 0.0
            count = 0
            for i, value in enumerate(values):
                # `value` counts `weights[i]` times
                total += value * (weights[i] if weights else 1)
                count += weights[i] if weights else 1
            return total / count
        '''
    assert _rewrite("rename", "s0", before) == textwrap.dedent('''\
        def mean(values, *, weights=None):
            """Weighted mean; `total_arr` is the weighted sum."""
            total_arr = 0.0
            the_count = 0
            for the_i, item in enumerate(values):
                # `item` counts `weights[i]` times
                total_arr += item * (weights[the_i] if weights else 1)
                the_count += weights[the_i] if weights else 1
            return total_arr / the_count
        ''')


@pytest.mark.parametrize("before", [
    "x = 1\n\ndef f():\n    global x\n    x = 2\n    y = x\n    return y\n",
    "def f():\n    y = 1\n    return locals()\n",
    "def f():\n    y = 1\n    return f'{y=}'\n",
    "class A:\n    size = 1\n\n    def f(self):\n        self.size = 2\n        return self.size\n",
    "import numpy as np\n\ndef f(a):\n    import math\n    def g():\n        return 1\n    return np, math, g, a\n",
])
def test_names_that_could_be_read_by_their_spelling_are_never_renamed(before):
    """Module names, attributes, class attributes, imports and nested defs keep their names, and
    nothing is renamed where `global`, `locals()` or an `f"{x=}"` could see a name."""
    for seed in ("s0", "s1", "s2", "s3"):
        assert rewrite(before, seed, only=("rename",)) == before


def test_runs_of_defs_are_shuffled_with_their_comments_and_the_blank_lines_stay():
    before = '''\
        import math


        def area(r):
            return math.pi * r * r


        # Helper for `area`.
        def _square(x):
            return x * x


        def perimeter(r):
            return 2 * math.pi * r


        class Shape:
            def a(self):
                return 1

            def b(self):
                return 2
        '''
    assert _rewrite("reorder", "s0", before) == textwrap.dedent('''\
        import math


        # Helper for `area`.
        def _square(x):
            return x * x


        def area(r):
            return math.pi * r * r


        def perimeter(r):
            return 2 * math.pi * r


        class Shape:
            def b(self):
                return 2

            def a(self):
                return 1
        ''')


def test_decorated_defs_and_defs_read_by_a_default_keep_their_order():
    """A decorator (`@x.setter` after `@property`) or a default may need the defs before it."""
    before = ("class A:\n    @property\n    def x(self):\n        return 1\n\n"
              "    @x.setter\n    def x(self, v):\n        pass\n\n\n"
              "def g():\n    return 1\n\n\ndef h(f=g):\n    return f()\n")
    for seed in ("s0", "s1", "s2", "s3"):
        assert rewrite(before, seed, only=("reorder",)) == before


def test_if_else_is_flipped_only_where_not_is_dropped_or_added_to_a_plain_read():
    """`if not flag` loses its `not`; `if x >= 0` is left alone (`not x >= 0` reads as generated)."""
    before = '''\
        def sign(x):
            if x >= 0:
                return 1
            else:
                return -1


        def name(flag):
            if not flag:
                label = "off"
            else:
                label = "on"
            return label
        '''
    after = _rewrite("if", "s1", before)
    assert after == textwrap.dedent(before).replace(
        'if not flag:\n        label = "off"\n    else:\n        label = "on"',
        'if flag:\n        label = "on"\n    else:\n        label = "off"')
    assert "if x >= 0" in after


def test_comparisons_are_mirrored_only_between_plain_reads():
    """`x < lo` becomes `lo > x`; `len(x) > hi` keeps its order (a call could have effects)."""
    before = '''\
        def clip(x, lo, hi):
            if x < lo:
                return lo
            if len(x) > hi:
                return hi
            return x if x <= hi else hi
        '''
    assert _rewrite("cmp", "s0", before) == textwrap.dedent('''\
        def clip(x, lo, hi):
            if lo > x:
                return lo
            if len(x) > hi:
                return hi
            return x if hi >= x else hi
        ''')


def test_independent_assignments_swap_and_dependent_ones_do_not():
    before = '''\
        def stats(a, b):
            low = a - b
            high = a + b
            width = high - low
            return low, high, width
        '''
    assert _rewrite("swap", "s2", before) == textwrap.dedent('''\
        def stats(a, b):
            high = a + b
            low = a - b
            width = high - low
            return low, high, width
        ''')
    assert rewrite("def f(a):\n    x = g(a)\n    y = h(a)\n    return x, y\n", "s2", only=("swap",)) == \
        "def f(a):\n    x = g(a)\n    y = h(a)\n    return x, y\n"


def test_every_reference_problem_gets_a_different_compilable_variant_per_seed():
    """Same seed, same text; another seed, other text; every file still compiles."""
    for problem in load_problems(builtin_root()).values():
        code = code_files(problem)
        first, again, other = (variant_code(code, seed) for seed in ("a", "a", "b"))
        assert first == again
        changed = [f for f in first if first[f] != code[f]]
        assert changed, problem.name
        assert any(first[f] != other[f] for f in changed), problem.name
        for path, text in first.items():
            compile(text, path, "exec")


@pytest.mark.slow  # pytest in fresh interpreters, once per test file
def test_a_variant_of_auc_passes_its_whole_suite(tmp_path):
    """Suite equivalence on one problem: the visible and held-back tests pass on a variant."""
    problem = load_problems(builtin_root())["auc"]
    variant = variant_code(code_files(problem), "suite")
    assert any(variant[f] != problem.read(f) for f in variant)
    run_suite(problem, variant, (), tmp_path)  # lays the folder out
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                            cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    tests = [line for line in listed.splitlines() if "::" in line]
    assert any(problem.is_hidden(t) for t in tests) and not all(problem.is_hidden(t) for t in tests)
    timed_out, outcomes = run_suite(problem, variant, tests, tmp_path)
    assert not timed_out and outcomes
    assert len(outcomes) >= len(tests)
    assert set(outcomes.values()) == {"passed"}


def test_kept_names_stay_and_the_other_locals_are_still_renamed():
    """The last resort of a variant for a bug whose operator reads names (`tps` against `fps`)."""
    source = ("def rates(tps, fps):\n    top = tps[-1]\n    return tps / top\n\n\n"
              "def other(x):\n    total = x + 1\n    return total\n")
    renamed = {seed: rewrite(source, str(seed), only=("rename",)) for seed in range(20)}
    assert any("total" not in text for text in renamed.values())  # renaming happens at all
    for seed, text in renamed.items():
        kept = rewrite(source, str(seed), only=("rename",), kept=frozenset({"top"}))
        assert "    top = tps[-1]\n    return tps / top\n" in kept
        assert kept.split("def other")[1] == text.split("def other")[1]
