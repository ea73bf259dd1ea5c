"""The benchmark's re-check of a mutmut verdict runs the mutant mutmut judged (benchmarks/mutmut_side.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from mutmut_side import apply_mutant  # noqa: E402 - the benchmarks are scripts, not a package

ORIGINAL = """\
class Base:
    def filter(self, items):
        return [i for i in items if i > 0]


class Set(Base):
    def filter(self, items):
        return [i for i in items if i < 9]


def filter(items):
    return list(items)
"""

# What mutmut 3.8.1's generator (mutate_file_contents) writes under mutants/ for ORIGINAL, its
# trampolines and mutant tables left out: each mutant is a method of its class or a function.
MUTATED = """\
class Base:
    def filter(self, items):
        return [i for i in items if i > 0]
    def x\u01c1Base\u01c1filter__mutmut_orig(self, items):
        return [i for i in items if i > 0]
    def x\u01c1Base\u01c1filter__mutmut_1(self, items):
        return [i for i in items if i >= 0]


class Set(Base):
    def filter(self, items):
        return [i for i in items if i < 9]
    def x\u01c1Set\u01c1filter__mutmut_orig(self, items):
        return [i for i in items if i < 9]
    def x\u01c1Set\u01c1filter__mutmut_1(self, items):
        return [i for i in items if i <= 9]


def filter(items):
    return list(items)


def x_filter__mutmut_orig(items):
    return list(items)


def x_filter__mutmut_1(items):
    return list(None)
"""


def test_a_method_whose_name_repeats_is_replaced_in_its_own_class() -> None:
    # mutmut apply put this mutant in place of Base.filter, the first method of that name.
    applied = apply_mutant(ORIGINAL, MUTATED, "spec.x\u01c1Set\u01c1filter__mutmut_1")
    assert applied == ORIGINAL.replace("i < 9", "i <= 9")


def test_a_method_of_the_first_class_and_a_function_after_same_named_methods() -> None:
    assert apply_mutant(ORIGINAL, MUTATED, "spec.x\u01c1Base\u01c1filter__mutmut_1") == \
        ORIGINAL.replace("i > 0", "i >= 0")
    assert apply_mutant(ORIGINAL, MUTATED, "spec.x_filter__mutmut_1") == \
        ORIGINAL.replace("list(items)", "list(None)")


def test_a_mutant_that_names_no_function_of_the_source_is_an_error() -> None:
    with pytest.raises(LookupError):
        apply_mutant(ORIGINAL, MUTATED, "spec.x\u01c1Other\u01c1filter__mutmut_1")
