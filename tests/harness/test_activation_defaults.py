"""Import-time mutants that only change a default value are set in place; any other change to
code run at import needs the module run again (harness.child.activation.swap_defaults)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bugsmith.harness.child.activation import NeedsFreshImport, index_functions, swap

# A non-ASCII line first: AST columns count UTF-8 bytes, not characters.
SOURCE = '''\
GREETING = "héllo wörld"
LIMIT = 10


def scale(x, factor=2, *, offset=10):
    return x * factor + offset


def clip(x, cap=LIMIT):
    return min(x, cap)


pick = lambda items, index=0: items[index]
'''


@pytest.fixture
def module(tmp_path: Path) -> tuple[str, dict[str, object]]:
    path = tmp_path / "scaling.py"
    path.write_text(SOURCE, encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, str(path), "exec"), namespace)
    return str(path), namespace


@pytest.mark.parametrize(("old", "new", "call", "expected"), [
    ("factor=2", "factor=3", lambda ns: ns["scale"](1), 3 + 10),
    ("offset=10", "offset=11", lambda ns: ns["scale"](1), 2 + 11),
])
def test_a_changed_default_is_set_on_the_live_function(module: tuple[str, dict], old: str, new: str,
                                                       call, expected) -> None:  # noqa: ANN001
    path, namespace = module
    index = index_functions(frozenset({path}))
    swap(index, path, None, SOURCE.replace(old, new))
    assert call(namespace) == expected


@pytest.mark.parametrize(("old", "new"), [
    ("LIMIT = 10", "LIMIT = 11"),  # module level: what `offset` took is gone with the import
    ("héllo", "hello"),  # before every default, in a line whose bytes are not its characters
    ("x * factor", "x / factor"),  # a function body at import: not a default
    ("cap=LIMIT", "cap=LIMIT + 1"),  # a default that is no literal cannot be set in place
    ("index=0", "index=1"),  # nor one of a lambda
])
def test_any_other_change_to_code_run_at_import_needs_the_module_run_again(module: tuple[str, dict],
                                                                         old: str, new: str) -> None:
    path, _ = module
    index = index_functions(frozenset({path}))
    with pytest.raises(NeedsFreshImport):
        swap(index, path, None, SOURCE.replace(old, new))
