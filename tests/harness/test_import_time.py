"""Which functions run while their module is imported (their mutants need a fresh import)."""

from __future__ import annotations

import textwrap

from bugsmith.harness.import_time import import_calls

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
