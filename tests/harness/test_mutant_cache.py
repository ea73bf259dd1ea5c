"""The store keeps each file's mutants by its text: a warm run enumerates only changed files,
and with none changed it loads neither libcst nor the mutators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bugsmith.harness import mutant_cache
from bugsmith.harness.store import Store
from bugsmith.mutators import registry

CODE = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return x\n"


def test_unchanged_files_come_from_the_store_without_the_mutators(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "shop.py"
    source.write_text(CODE)
    store = Store.open(tmp_path / "store.sqlite")
    first = mutant_cache.cached_enumeration([source], root=tmp_path, families=(), operators=(), store=store)
    assert first.mutants
    monkeypatch.setattr(registry, "select", lambda *a: pytest.fail("the mutators were loaded"))
    again = mutant_cache.cached_enumeration([source], root=tmp_path, families=(), operators=(), store=store)
    assert again.mutants == first.mutants
    with pytest.raises(pytest.fail.Exception):  # another choice of operators is another key
        mutant_cache.cached_enumeration([source], root=tmp_path, families=(), operators=("swap_args",), store=store)
    store.close()


def test_only_new_or_changed_mutant_records_are_written(tmp_path: Path) -> None:
    source = tmp_path / "shop.py"
    source.write_text(CODE)
    store = Store.open(tmp_path / "store.sqlite")
    mutants = mutant_cache.cached_enumeration([source], root=tmp_path, families=(), operators=(), store=store).mutants
    store.put_mutants(mutants)
    writes: list[str] = []
    store.db.set_trace_callback(writes.append)
    store.put_mutants(mutants)
    assert not [w for w in writes if w.startswith("INSERT")]
    moved = mutants[0].__class__.from_dict({**mutants[0].to_dict(), "explanation": "changed"})
    store.put_mutants([moved, *mutants[1:]])
    assert len([w for w in writes if w.startswith("INSERT")]) == 1
    assert json.loads(store.db.execute("SELECT data FROM mutants WHERE id = ?", (moved.id,)).fetchone()[0])[
        "explanation"] == "changed"
    store.close()


def test_many_lines_to_parse_are_parsed_by_several_processes_with_the_same_mutants(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past PARALLEL_LINES the files missing from the store are parsed by `jobs` processes: the
    same mutants in the same order as one process finds, and the store keeps them all."""
    files = []
    for name, body in (("a.py", CODE), ("b.py", CODE.replace("lo", "low") * 3), ("c.py", "x = 1 + 2\n")):
        (tmp_path / name).write_text(body)
        files.append(tmp_path / name)
    alone = mutant_cache.cached_enumeration(files, root=tmp_path, families=(), operators=(),
                                            store=Store.open(tmp_path / "one.sqlite"), jobs=1)
    parsed_here: list[Path] = []
    real = mutant_cache._enumerate_with
    monkeypatch.setattr(mutant_cache, "_enumerate_with", lambda path, *a: parsed_here.append(path) or real(path, *a))
    monkeypatch.setattr(mutant_cache, "PARALLEL_LINES", 1)
    store = Store.open(tmp_path / "two.sqlite")
    shared = mutant_cache.cached_enumeration(files, root=tmp_path, families=(), operators=(), store=store, jobs=2)
    assert not parsed_here, "the pool's processes parsed them, not this one"
    assert [m.id for m in shared.mutants] == [m.id for m in alone.mutants] and shared.files == alone.files
    monkeypatch.setattr(registry, "select", lambda *a: pytest.fail("the mutators were loaded"))
    assert mutant_cache.cached_enumeration(files, root=tmp_path, families=(), operators=(), store=store,
                                           jobs=2).mutants == shared.mutants
    store.close()
