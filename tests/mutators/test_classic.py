"""Golden and edge-case tests for the classic family."""

from __future__ import annotations

import textwrap

import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import classic
from bugsmith.mutators.testing import check_example, mutated_sources

CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in classic.MUTATORS
    for index in range(len(cls.examples))
]

# Syntax a mutator could trip over: async, walrus, match, decorators, lambdas, star-args,
# chained comparisons, f-strings, nested functions, global/nonlocal, comments everywhere.
UNUSUAL = textwrap.dedent(
    '''
    import functools


    @functools.lru_cache(maxsize=2)  # a decorator is noise
    def fib(n: int = 3) -> int:
        """Docstrings are noise."""
        if (k := n - 1) <= 0:  # walrus in a condition
            return 1
        return fib(k) + fib(k - 1)


    async def gather(xs, *args, **kwargs):
        total = 0
        async for x in xs:
            total += await x * 2
        return [y for y in args if 0 < y <= 10], {**kwargs}


    def dispatch(command):
        match command:
            case [x, y] if x < y:
                return -x
            case {"k": 1}:
                return not command
            case _:
                return lambda v=1.0: v / 2


    def counter():
        count = 0

        def bump():
            nonlocal count
            count -= 1
            return f"{count + 1:>4}"

        return bump
    '''
)


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator makes exactly the mutants its golden example lists, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_every_mutator_has_a_positive_and_a_negative_example():
    """Every mutator shows one site it mutates and one near-miss it must leave alone."""
    for cls in classic.MUTATORS:
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_names_are_unique_and_in_the_family():
    """Operator names are `classic/<kebab-case>` and no two mutators share one."""
    names = [cls.name for cls in classic.MUTATORS]
    assert len(names) == len(set(names))
    assert all(name.startswith("classic/") and name == name.lower() and " " not in name for name in names)


def test_unusual_syntax_gives_valid_mutants_that_change_one_span():
    """On async, match, walrus, lambdas and f-strings every mutant compiles, is made once, and changes only its span."""
    mutators = [cls() for cls in classic.MUTATORS]
    result = mutants_of_source(UNUSUAL, file="unusual.py", module="unusual", mutators=mutators)
    assert len(result.mutants) > 20
    assert result.dropped_invalid == 0
    assert result.dropped_duplicates == 0  # no two operators (or one operator twice) make the same code
    for mutant in result.mutants:
        mutated = mutant.apply(UNUSUAL)
        compile(mutated, "unusual.py", "exec")
        assert mutated != UNUSUAL
        start, end = mutant.span.offsets(UNUSUAL)
        assert mutated[:start] == UNUSUAL[:start]  # nothing before the span moved
        assert mutated[start + len(mutant.mutated):] == UNUSUAL[end:]  # nor after it


def test_noise_is_never_mutated():
    """Decorator arguments, docstrings, annotations and defaults of seeds stay as written."""
    mutators = [cls() for cls in classic.MUTATORS]
    result = mutants_of_source(UNUSUAL, file="unusual.py", module="unusual", mutators=mutators)
    lines = {mutant.span.line for mutant in result.mutants}
    assert 5 not in lines  # @functools.lru_cache(maxsize=2)
    assert 7 not in lines  # the docstring


def test_comments_and_formatting_survive():
    """A swap inside an oddly spaced, commented expression keeps every other character."""
    before = "def f(a, b):\n    return (a  -  b)  # difference\n"
    after = mutated_sources(classic.ArithmeticSwap(), before)
    assert after == ["def f(a, b):\n    return (a  +  b)  # difference\n"]


def test_string_constants_are_never_changed():
    """No classic mutant touches the inside of a string, whatever the operator."""
    before = "def f(n):\n    s = 'a < 1 and not True'\n    return s * 2 if n else f'{n + 1}'\n"
    mutators = [cls() for cls in classic.MUTATORS]
    for mutant in mutants_of_source(before, file="s.py", module="s", mutators=mutators).mutants:
        assert "'a < 1 and not True'" in mutant.apply(before)


def test_return_none_skips_generators_but_not_functions_that_only_nest_one():
    """A function that defines a generator inside still returns a value, so it is a site."""
    before = "def f(xs):\n    def g():\n        yield 1\n    return list(g())\n"
    assert mutated_sources(classic.ReturnNone(), before) == [
        "def f(xs):\n    def g():\n        yield 1\n    return None\n"
    ]


def test_negative_constants_change_as_one_signed_value():
    """`-2` becomes `-3` or `-1`, never `-(3)` or `--2`."""
    after = mutated_sources(classic.NumberChange(), "def f(x):\n    return x[-2]\n")
    assert sorted(after) == ["def f(x):\n    return x[-1]\n", "def f(x):\n    return x[-3]\n"]


def test_comparison_operators_keep_their_spacing():
    """`a is  not b` becomes `a is  b`, keeping the author's spacing around the operator."""
    after = mutated_sources(classic.ComparisonNegate(), "def f(a, b):\n    return a  is not  b\n")
    assert after == ["def f(a, b):\n    return a  is  b\n"]
