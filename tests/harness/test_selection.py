"""Which functions run while their module is imported (their mutants need a fresh import)."""

from __future__ import annotations

import textwrap

from harness.selection import import_time_functions

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


    @deco
    def handler(x=_fmt("a", "b"), y=lambda: later(1)):
        return later(x)


    _rule("a", "b")


    class Registry:
        default = _rule("c", "d")

        def method(self):
            return _unused(1)
    ''')


def test_calls_decorators_defaults_and_class_bodies_run_at_import() -> None:
    """Module-level calls, class bodies, decorators and default values run at import, and so
    does what they call; bodies of functions and lambdas run only when called."""
    assert import_time_functions(SOURCE) == {"_rule", "_fmt", "deco"}


def test_a_module_without_module_level_calls_has_none() -> None:
    """Definitions alone run nothing."""
    assert import_time_functions("def f():\n    return g()\n\n\ndef g():\n    return 1\n") == frozenset()
