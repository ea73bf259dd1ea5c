"""Which functions run while their module is imported (their mutants need a fresh import)."""

from __future__ import annotations

import ast
import textwrap

from bugsmith.harness.import_time import called_names_in, import_calls

SOURCE = textwrap.dedent('''\
    RULES = []


    def _rule(a, b):
        RULES.append(_fmt(a, b))


    def _fmt(a, b):
        return a + b


    def later(x):
        return _unused(x)


    def _unused(x):
        return x


    def deco(f):
        return f


    def main():
        return later(2)


    @deco
    def handler(x=_fmt("a", "b"), y=lambda: later(1)):
        return later(x)


    _rule("a", "b")


    class Registry:
        default = _rule("c", "d")

        def method(self):
            return _unused(1)


    if __name__ == "__main__":
        main()
    ''')


def test_calls_decorators_defaults_and_class_bodies_run_at_import() -> None:
    """Module-level calls, class bodies, decorators and default values run at import, and so
    does what they call; bodies of functions and lambdas run only when called, and an import
    never runs the `__main__` block."""
    calls = import_calls(SOURCE)
    assert calls.direct == {"_rule", "_fmt", "deco"}
    assert calls.reached == {"_rule", "_fmt", "deco"}


def test_what_a_direct_call_reaches_needs_a_fresh_import_only_when_uncovered() -> None:
    """A function called by module-level code always runs through a fresh import; one reached
    through it only when no test covers the mutated line."""
    calls = import_calls("def a():\n    return b()\n\n\ndef b():\n    return 1\n\n\nX = a()\n")
    assert calls.direct == {"a"} and calls.reached == {"a", "b"}
    assert calls.needs_fresh_import("a", covered=True)
    assert calls.needs_fresh_import("b", covered=False) and not calls.needs_fresh_import("b", covered=True)
    assert not calls.needs_fresh_import(None, covered=False) and not calls.needs_fresh_import("c", covered=False)


def test_a_module_without_module_level_calls_has_none() -> None:
    """Definitions alone run nothing."""
    calls = import_calls("def f():\n    return g()\n\n\ndef g():\n    return 1\n")
    assert calls.direct == calls.reached == frozenset()


def test_a_decorator_another_module_applies_at_import_runs_at_import() -> None:
    """A test class decorating its methods with the module's decorator factory runs the factory
    while it is collected (cachetools' `@cachedmethod(...)`): the wrappers it built keep the
    original code, so its mutants need a fresh import; a call inside a test body does not."""
    library = "def cachedmethod(cache):\n    def deco(f):\n        return f\n    return deco\n\n\ndef cached(c):\n    return c\n\n\ndef plain():\n    return 1\n"
    tests = ast.parse(textwrap.dedent('''\
        import lib
        from lib import cachedmethod


        class Cached:
            @cachedmethod(lambda self: self.cache)
            def get(self, x):
                return x


        @lib.cached
        class Other:
            pass


        def test_plain():
            assert lib.plain() == 1
        '''))
    calls = import_calls(library, [tests])
    assert calls.direct == {"cachedmethod", "cached"}
    assert import_calls(library).direct == frozenset()


def test_a_neighbour_that_cannot_be_parsed_calls_nothing() -> None:
    """A broken neighbour is not this module's concern: the run reports it."""
    assert called_names_in(b"setup()\n") == {"setup"}
    assert called_names_in(b"def (:\n") == frozenset()


def test_a_class_built_at_import_runs_its_constructors_at_import() -> None:
    """Test data built at module level (`CASES = [Duration(years=0.5)]`) is built by the
    original `__init__`: the constructors, and what they call, run at import; other methods
    do not."""
    library = textwrap.dedent('''\
        def _decimal(x):
            return x


        class Duration:
            def __init__(self, years=0):
                self.years = _decimal(years)

            def __eq__(self, other):
                return self.years == other.years
        ''')
    tests = ast.parse("from lib import Duration\n\nCASES = [Duration(years=0.5)]\n")
    calls = import_calls(library, [tests])
    assert calls.direct == {"Duration.__init__"}
    assert calls.reached == {"Duration.__init__", "_decimal"}
    assert import_calls(library).direct == frozenset()


def test_names_called_by_a_neighbour_match_its_syntax_tree() -> None:
    """A run computes each neighbour's called names once and matches every module against
    them: the same functions as matching against the neighbour's tree."""
    from bugsmith.harness.import_time import called_names

    library = "def cached(f):\n    return f\n\n\ndef helper():\n    return 1\n\n\ndef plain():\n    return 2\n"
    tests = ast.parse(textwrap.dedent('''\
        import lib
        from lib import helper

        VALUE = helper()


        @lib.cached
        def test_plain():
            assert lib.plain() == 2
        '''))
    names = called_names(tests)
    assert {"helper", "cached"} <= names and "plain" not in names  # `plain` runs in a test, not at import
    assert import_calls(library, [names]) == import_calls(library, [tests])
    assert import_calls(library, [names]).direct == {"helper", "cached"}
