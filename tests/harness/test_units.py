"""Compiling only the mutant's top-level statement gives the whole file's code object."""

from __future__ import annotations

import textwrap

import pytest

from bugsmith.harness.child.activation import FUTURE_FLAGS, find_code
from bugsmith.harness.units import mutated_unit, statement_ranges
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.registry import select

SOURCE = textwrap.dedent('''\
    from __future__ import annotations

    import functools

    LIMIT = 3


    @functools.lru_cache
    def decorated(x: int) -> int:
        """A docstring
    with a line at column 0."""
        return x + LIMIT


    class Box:
        def __init__(self, items: list[int]) -> None:
            self.items = items

        def total(self) -> int:
            s = 0
            for item in self.items:
                s += item * 2
            return s

        def nested(self):
            def inner(y):
                return y - 1
            return [inner(i) for i in self.items if i > 0]


    def last(xs):
        if len(xs) > 1:
            return (xs[-1]
    + 0)
        return None
    ''')


def _code(source: str, function: str, flags: int = 0):
    return find_code(compile(source, "mod.py", "exec", flags=flags, dont_inherit=True), function)


def test_every_in_function_mutant_compiles_alone_to_the_same_code() -> None:
    """For every mutant the engine makes inside a function, the unit's code object equals the
    whole mutated file's: same bytecode, constants, names and line numbers."""
    ranges = statement_ranges(SOURCE)
    made = mutants_of_source(SOURCE, file="mod.py", module="mod", mutators=select(()))
    mutants = [m for m in made.mutants if m.function]
    assert len(mutants) > 20
    for mutant in mutants:
        mutated = mutant.apply(SOURCE)
        unit = mutated_unit(mutant, SOURCE, mutated, ranges)
        assert unit, mutant
        whole = _code(mutated, mutant.function)
        alone = _code(unit, mutant.function, whole.co_flags & FUTURE_FLAGS)  # as the worker does
        assert alone is not None, (mutant.function, unit)
        assert alone.co_code == whole.co_code and alone.co_consts == whole.co_consts
        assert alone.co_names == whole.co_names and alone.co_firstlineno == whole.co_firstlineno
        assert list(alone.co_lines()) == list(whole.co_lines())


@pytest.mark.parametrize(("source", "expected"), [
    ("x = 1\n", ((1, 1),)),
    ("@dec\ndef f():\n    return 1\n\ny = 2\n", ((1, 3), (5, 5))),
])
def test_ranges_cover_each_statement(source: str, expected) -> None:
    """Each top-level statement is one range, from its first decorator to its last line."""
    assert statement_ranges(source) == expected
