"""The mutants of each file, kept in the store by the file's text: a warm run parses only the
files that changed (libcst takes seconds a file; a lookup takes a millisecond).

The key holds everything the mutants of a file depend on: its path, module name and text,
the mutators chosen (the families and operators asked for, and the mutators that plugins
register), and the code of bugsmith's mutators and of libcst (an edited or upgraded mutator
proposes other mutants). Only the registry's mutators are cached: a caller's own mutators may
carry state that no name describes. The key names the choice, not the mutator objects, so a
run whose files are all in the store never imports libcst (a second of the coordinator's).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import bugsmith.mutators
from bugsmith.harness.store import Store
from bugsmith.mutators.enumeration import Enumeration, FileMutants, Skipped, module_name
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source

if TYPE_CHECKING:
    from bugsmith.mutators.base import AnyMutator

KIND = "mutants-of-file"
VERSION = "2"  # 2: keyed by the families and operators chosen, not by the mutator objects
PLUGINS = "bugsmith.mutators"  # harness.mutators.registry's entry point group


def mutators_digest(families: Sequence[str], operators: Sequence[str]) -> str:
    """The choice of mutators (registry.select's arguments, and the plugins installed), and
    the code of every built-in mutator and of the engine that runs them."""
    folder = Path(bugsmith.mutators.__file__).parent
    code = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        code.update(path.relative_to(folder).as_posix().encode())
        code.update(path.read_bytes())
    plugins = sorted([entry.name, entry.value, entry.dist.version if entry.dist else ""]
                     for entry in metadata.entry_points(group=PLUGINS))
    facts = [VERSION, metadata.version("libcst"), code.hexdigest(), sorted(families), sorted(operators), plugins]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()


def _key(digest: str, relative: str, module: str, source: str) -> str:
    return hashlib.sha256(json.dumps([digest, relative, module, source]).encode()).hexdigest()


def _to_dict(found: FileMutants) -> dict:
    return {"file": found.file, "mutants": [m.to_dict() for m in found.mutants],
            "equivalent": found.dropped_equivalent, "duplicates": found.dropped_duplicates,
            "invalid": found.dropped_invalid}


def _from_dict(data: dict) -> FileMutants:
    return FileMutants(file=data["file"], mutants=tuple(Mutant.from_dict(m) for m in data["mutants"]),
                       dropped_equivalent=data["equivalent"], dropped_duplicates=data["duplicates"],
                       dropped_invalid=data["invalid"])


def cached_enumeration(files: Sequence[Path], *, root: Path, families: Sequence[str], operators: Sequence[str],
                       store: Store) -> Enumeration:
    """`enumerate_mutants(files, ...)` with `registry.select(families, operators)`, taking each
    unchanged file's mutants from the store (libcst and the mutators load on the first miss)."""
    digest = mutators_digest(families, operators)
    mutators: list[AnyMutator] | None = None
    results: list[FileMutants] = []
    skipped: list[Skipped] = []
    seconds = 0.0
    for path in files:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        key = _key(digest, relative, module_name(path), read_source(path, relative))
        stored = store.extras_at(KIND, key)
        if stored is not None:
            try:
                results.append(_from_dict(stored))
                continue
            except (KeyError, TypeError, ValueError):
                pass  # a garbled entry is a miss
        from bugsmith.mutators import registry
        from bugsmith.mutators.engine import enumerate_mutants

        if mutators is None:
            mutators = registry.select(families, operators)
        fresh = enumerate_mutants([path], root=root, mutators=mutators)
        seconds += fresh.seconds
        skipped.extend(fresh.skipped)
        for found in fresh.files:
            store.put_extra(KIND, key, _to_dict(found))
            results.append(found)
    return Enumeration(mutants=tuple(m for r in results for m in r.mutants), files=tuple(results),
                       seconds=seconds, skipped=tuple(skipped))
