"""A mutant that drops a cell of its function's closure (a deleted `super()` call) is still
swapped into the live function: compiled again so that it takes the same closure, and shown to
be the same code (harness.child.activation.keeping_closure). Anything else that changes the
closure still needs a fresh import."""

from __future__ import annotations

import asyncio
import dis
import textwrap
from pathlib import Path

import pytest

from bugsmith.harness.child.activation import NeedsFreshImport, index_functions, swap

SOURCE = textwrap.dedent('''\
    class Base:
        def __init__(self, n):
            self.n = n

        async def fetch(self):
            return self.n


    class Child(Base):
        def __init__(self, n, m=2):
            """Doc."""
            super().__init__(n)
            self.m = m

        async def fetch(self):
            base = await super().fetch()
            return base + 1

        def seen(self):
            super().__init__(0)
            return sorted(locals())

        def plain(self):
            return self.m
    ''')


def load(tmp_path: Path, source: str = SOURCE) -> tuple[str, dict[str, object]]:
    path = tmp_path / "shapes.py"
    path.write_text(source, encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(compile(source, str(path), "exec"), namespace)
    return str(path), namespace


def fresh(tmp_path: Path, source: str) -> dict[str, object]:
    """The mutant as a fresh import would define it."""
    namespace: dict[str, object] = {}
    exec(compile(source, str(tmp_path / "shapes.py"), "exec"), namespace)
    return namespace


def test_a_deleted_super_call_runs_in_the_live_method(tmp_path: Path) -> None:
    path, namespace = load(tmp_path)
    held = namespace["Child"].__init__  # as a test's `from shapes import ...` would hold it
    mutant = SOURCE.replace("        super().__init__(n)\n", "        pass\n")
    swap(index_functions(frozenset({path})), path, "Child.__init__", mutant)
    child = namespace["Child"](5)
    assert not hasattr(child, "n") and child.m == 2
    assert held.__code__.co_freevars == ("__class__",)
    assert not hasattr(fresh(tmp_path, mutant)["Child"](5), "n")  # what plain pytest would see
    assert namespace["Child"].fetch.__code__.co_freevars == ("__class__",)  # the others untouched


def test_the_kept_code_is_the_mutant_instruction_for_instruction(tmp_path: Path) -> None:
    path, namespace = load(tmp_path)
    mutant = SOURCE.replace("        super().__init__(n)\n        self.m = m\n", "        self.m = m + 1\n")
    swap(index_functions(frozenset({path})), path, "Child.__init__", mutant)
    kept = namespace["Child"].__init__.__code__
    plain = fresh(tmp_path, mutant)["Child"].__init__.__code__

    def listing(code: object) -> list[tuple[str, object, object]]:
        return [(i.opname, i.argrepr, i.positions) for i in dis.get_instructions(code)
                if i.opname != "COPY_FREE_VARS"]

    assert listing(kept) == listing(plain)
    assert (kept.co_consts, kept.co_names, kept.co_varnames) == (plain.co_consts, plain.co_names, plain.co_varnames)
    assert namespace["Child"](1).m == 3


def test_an_async_method_keeps_its_closure_too(tmp_path: Path) -> None:
    path, namespace = load(tmp_path)
    mutant = SOURCE.replace("        base = await super().fetch()\n", "        base = 10\n")
    swap(index_functions(frozenset({path})), path, "Child.fetch", mutant)
    assert asyncio.run(namespace["Child"](1).fetch()) == 11


@pytest.mark.parametrize(("old", "new", "function"), [
    # It reads its own frame: the kept cell would show in locals().
    ("        super().__init__(0)\n        return sorted(locals())",
     "        return sorted(locals())", "Child.seen"),
    # The mutant needs a cell the live function does not have.
    ("        return self.m\n", "        return super().__init__(self.m)\n", "Child.plain"),
])
def test_any_other_change_to_the_closure_needs_a_fresh_import(tmp_path: Path, old: str, new: str,
                                                              function: str) -> None:
    path, namespace = load(tmp_path)
    mutant = SOURCE.replace(old, new)
    assert mutant != SOURCE
    before = getattr(namespace["Child"], function.split(".")[1]).__code__
    with pytest.raises(NeedsFreshImport, match="changes the closure"):
        swap(index_functions(frozenset({path})), path, function, mutant)
    assert getattr(namespace["Child"], function.split(".")[1]).__code__ is before


def test_a_name_defined_twice_is_not_guessed(tmp_path: Path) -> None:
    """Two defs with one qualified name (in both arms of an `if`): which one the live function
    came from is not known from the syntax tree, so the mutant is not recompiled."""
    source = textwrap.dedent('''\
        import sys


        class Base:
            def __init__(self):
                self.ready = True


        class Child(Base):
            if sys.version_info >= (3,):
                def __init__(self):
                    super().__init__()
            else:
                def __init__(self):
                    super().__init__()
        ''')
    path, _ = load(tmp_path, source)
    mutant = source.replace("            super().__init__()\n    else", "            pass\n    else", 1)
    assert mutant != source
    with pytest.raises(NeedsFreshImport):
        swap(index_functions(frozenset({path})), path, "Child.__init__", mutant)
