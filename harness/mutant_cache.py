"""The mutants of each file, kept in the store by the file's text: a warm run parses only the
files that changed (libcst takes seconds a file; a lookup takes a millisecond).

The key holds everything the mutants of a file depend on: its path, module name and text,
the mutators chosen (the families and operators asked for, and the mutators that plugins
register), and the code of bugsmith's mutators and of libcst (an edited or upgraded mutator
proposes other mutants). Only the registry's mutators are cached: a caller's own mutators may
carry state that no name describes. The key names the choice, not the mutator objects, so a
run whose files are all in the store never imports libcst (a second of the coordinator's).

A cold run of a big codebase misses every file: 17,000 lines of boltons took the coordinator 40
seconds alone, while the workers had run the baseline long before. So when the files to parse
hold PARALLEL_LINES lines or more, they are parsed by `jobs` processes, the largest first; each
starts fresh (forkserver: the coordinator has threads), which costs about a second of imports
and pays off only past a few thousand lines.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import signal
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import bugsmith.mutators
from bugsmith.harness.store import Store
from bugsmith.mutators.enumeration import Enumeration, FileMutants, module_name
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source

if TYPE_CHECKING:
    from bugsmith.mutators.base import AnyMutator

KIND = "mutants-of-file"
VERSION = "2"  # 2: keyed by the families and operators chosen, not by the mutator objects
PLUGINS = "bugsmith.mutators"  # harness.mutators.registry's entry point group
PARALLEL_LINES = 5000  # lines to parse from which more than one process parses them


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
                       store: Store, jobs: int = 1) -> Enumeration:
    """`enumerate_mutants(files, ...)` with `registry.select(families, operators)`, taking each
    unchanged file's mutants from the store (libcst and the mutators load on the first miss);
    the others are parsed by up to `jobs` processes when there are enough of them."""
    digest = mutators_digest(families, operators)
    found: dict[Path, list[FileMutants]] = {}
    missed: dict[Path, tuple[str, str]] = {}  # file -> (key, text)
    for path in files:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        text = read_source(path, relative)
        key = _key(digest, relative, module_name(path), text)
        stored = store.extras_at(KIND, key)
        if stored is not None:
            try:
                found[path] = [_from_dict(stored)]
                continue
            except (KeyError, TypeError, ValueError):
                pass  # a garbled entry is a miss
        missed[path] = (key, text)
    started = time.monotonic()
    fresh = _enumerated(list(missed), root, families, operators, jobs,
                        sum(text.count("\n") for _, text in missed.values()))
    seconds = time.monotonic() - started if fresh else 0.0
    for path, enumeration in fresh.items():
        found[path] = list(enumeration.files)
        for file in enumeration.files:
            store.put_extra(KIND, missed[path][0], _to_dict(file))
    results = [file for path in files for file in found.get(path, [])]
    return Enumeration(mutants=tuple(m for r in results for m in r.mutants), files=tuple(results),
                       seconds=seconds,
                       skipped=tuple(s for path in files if path in fresh for s in fresh[path].skipped))


def _enumerated(paths: list[Path], root: Path, families: Sequence[str], operators: Sequence[str], jobs: int,
                lines: int) -> dict[Path, Enumeration]:
    """Each of `paths` enumerated: here, or by `jobs` fresh processes, largest file first."""
    if not paths:
        return {}
    if jobs < 2 or len(paths) < 2 or lines < PARALLEL_LINES:
        from bugsmith.mutators import registry

        mutators = registry.select(families, operators)
        return {path: _enumerate_with(path, root, mutators) for path in paths}
    order = sorted(paths, key=lambda path: path.stat().st_size, reverse=True)
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(paths)), mp_context=context, initializer=_quiet_on_ctrl_c)
    try:
        found = dict(zip(order, pool.map(_enumerate_one, order, [root] * len(order),
                                         [tuple(families)] * len(order), [tuple(operators)] * len(order))))
    except BaseException:
        # Ctrl-C or `kill`: the files still queued are not worth waiting for.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return found


def _quiet_on_ctrl_c() -> None:
    # The coordinator handles Ctrl-C and ends the pool; a process of it would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _enumerate_with(path: Path, root: Path, mutators: Sequence[AnyMutator]) -> Enumeration:
    from bugsmith.mutators.engine import enumerate_mutants

    return enumerate_mutants([path], root=root, mutators=mutators)


def _enumerate_one(path: Path, root: Path, families: tuple[str, ...], operators: tuple[str, ...]) -> Enumeration:
    """One file's mutants, in a process of the pool (its mutators chosen once per process)."""
    return _enumerate_with(path, root, _selected(families, operators))


@functools.cache
def _selected(families: tuple[str, ...], operators: tuple[str, ...]) -> list[AnyMutator]:
    from bugsmith.mutators import registry

    return registry.select(families, operators)
