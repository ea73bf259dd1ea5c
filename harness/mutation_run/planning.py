"""What a run has to do, before it does it (`plan`): the files and their texts, the digests of
the code and of the files a test may read, the baseline (stored, partly re-run or fresh:
harness.mutation_run.warm_baseline), the mutants the options select, and what runs at import.

Other rooms read the same facts from here: the evaluator (harness.evaluate, which exercises
and triage use) the stored baseline (`load_baseline`, `worker_setup`), exercise selection the
test files' digests (`test_file_hashes`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.executors.base import Executor
from bugsmith.harness.executors.project_copy import Snapshot, snapshot
from bugsmith.harness.import_time import CALLS_VERSION, ImportCalls, called_names_in, import_calls
from bugsmith.harness.incremental import support_files
from bugsmith.harness.job_plan import file_hash, span_lines
from bugsmith.harness.mutant_cache import cached_enumeration
from bugsmith.harness.mutation_run.executor_lifecycle import Executors, control
from bugsmith.harness.mutation_run.warm_baseline import Code, begin, describe_code, finish, prepare, stored_baseline
from bugsmith.harness.sampling import stratified_sample
from bugsmith.harness.shared.protocol import WorkerSetup
from bugsmith.harness.since import changed_lines
from bugsmith.harness.speculation import Speculation
from bugsmith.harness.store import Store
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source

if TYPE_CHECKING:  # libcst takes a second to import: a warm run imports it only to parse edited files
    from bugsmith.mutators.base import Mutator
    from bugsmith.mutators.enumeration import Enumeration


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What a run has to do, before it does it."""

    options: RunOptions
    enumeration: Enumeration
    mutants: tuple[Mutant, ...]
    sources: dict[str, str]
    setup: WorkerSetup
    baseline: Baseline
    test_hashes: dict[str, str]  # test path -> sha256, for the baseline and the cache keys
    code: Code  # units and what runs at import, for the verdict keys
    # What mutants ran while the baseline drained (a cold run), still to be trusted and stored.
    speculation: Speculation | None = None
    population: int = 0  # the mutants `mutants` were sampled from (harness.sampling); 0: not sampled


def worker_setup(options: RunOptions, files: Sequence[Path]) -> WorkerSetup:
    return WorkerSetup(
        root=str(options.root.resolve()), pytest_args=options.pytest_args, test_paths=options.tests,
        sources=tuple(str(f) for f in files), memory_limit_mb=options.memory_limit_mb,
    )


def plan(options: RunOptions, store: Store, mutators: Sequence[Mutator] | None,
         executors: Executors, tree: Snapshot) -> Plan:
    """What the run has to do; `tree`, the project's snapshot at the run's start."""
    setup = executors.setup
    files = [Path(path) for path in setup.sources]
    root = options.root.resolve()
    sources = {(name := f.relative_to(root).as_posix()): read_source(f, name) for f in files}
    test_hashes = test_file_hashes(options)
    others = other_files(options, store, sources, test_hashes, tree)
    code = describe_code(options, setup, sources, test_hashes, _import_calls(root, sources, test_hashes, store), store,
                         others)
    fingerprint = baseline_fingerprint(setup, sources, {**test_hashes, **others})
    baseline = stored_baseline(store, fingerprint, code)
    start = prepare(code, store, executors) if baseline is None else None  # starts what must run
    # The workers run the baseline as soon as they have collected, while libcst works here.
    early = (begin(start, executors, lambda executor, fresh: control(executor, fresh.tests, options))
             if start is not None else None)
    if mutators is None:  # after the workers start: libcst, if a file changed
        enumeration = cached_enumeration(files, root=options.root, store=store, families=options.families,
                                         operators=options.operators, jobs=options.jobs)
    else:
        from bugsmith.mutators.engine import enumerate_mutants

        enumeration = enumerate_mutants(files, root=options.root, mutators=mutators)
    mutants = _restrict(options, enumeration.mutants)
    population = len(mutants)
    if options.sample is not None:
        mutants = stratified_sample(mutants, options.sample.size(population), options.sample.seed)
    speculation = None
    if start is not None:
        if start.reuse is None and options.pipeline:  # cold: the whole suite runs under coverage
            speculation = Speculation(mutants, sources, options, code.at_import)
        baseline = finish(start, code, store, executors, fingerprint, speculation, early)
    assert baseline is not None
    return Plan(options=options, enumeration=enumeration, mutants=mutants, sources=sources, setup=setup,
                baseline=baseline, test_hashes=test_hashes, code=code, speculation=speculation,
                population=population if options.sample is not None else 0)


def _restrict(options: RunOptions, mutants: tuple[Mutant, ...]) -> tuple[Mutant, ...]:
    if options.mutant_ids:
        wanted = set(options.mutant_ids)
        mutants = tuple(m for m in mutants if m.id in wanted)
    if options.since:
        changed = changed_lines(options.root, options.since, sorted({m.file for m in mutants}))
        mutants = tuple(
            m for m in mutants
            if (lines := changed.get(m.file)) is None or lines & set(span_lines(m))
        )
    return mutants


def test_file_hashes(options: RunOptions) -> dict[str, str]:
    """Hashes of every Python file under the test paths (tests, conftests, helpers)."""
    root = options.root.resolve()
    hashes: dict[str, str] = {}
    for entry in options.tests:
        path = (root / entry).resolve()
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            hashes[file.relative_to(root).as_posix()] = file_hash(file)
    return hashes


def other_files(options: RunOptions, store: Store, sources: Mapping[str, str], test_hashes: Mapping[str, str],
                tree: Snapshot) -> dict[str, str]:
    """Digests of the project's files beside the sources and test files that a test may run or
    read (`incremental.support_files`): what is under the test paths and the sources' folders,
    the modules a test can import; not the reports bugsmith writes."""
    folders = [*options.tests, *(Path(file).parent.as_posix() for file in sources)]
    reports = options.reports.strip("/") + "/"
    files = [entry for entry in support_files(tree, {*sources, *test_hashes}, folders)
             if not entry[0].startswith(reports)]
    return other_hashes(store, options.root.resolve(), files)


def baseline_fingerprint(setup: WorkerSetup, sources: dict[str, str], test_hashes: dict[str, str]) -> str:
    """What a baseline depends on: the code, the test files and how pytest is called."""
    return hashlib.sha256(
        json.dumps([sources, test_hashes, list(setup.pytest_args), list(setup.test_paths)],
                   sort_keys=True).encode()
    ).hexdigest()


OTHERS = ("support-files", "by-stat")  # the store's extras: per other file, its size, time and digest
LARGE = 16 * 2**20  # bytes: a larger file (a data set) is known by its size and time, not read


def other_hashes(store: Store, root: Path, files: Sequence[tuple[str, int, int]]) -> dict[str, str]:
    """The digests of `files` (path, size, time: `incremental.support_files`), read again only
    where the size or time differ from the last run's (as git's index does), so that a run does
    not read the whole project each time; a file over LARGE bytes is known by its size and time."""
    known = store.extras_at(*OTHERS) or {}
    now: dict[str, list[Any]] = {}
    for path, size, time in files:
        entry = known.get(path)
        if isinstance(entry, list) and len(entry) == 3 and entry[:2] == [size, time]:
            now[path] = entry
        else:
            now[path] = [size, time, f"{size}:{time}" if size > LARGE or not _regular(root / path)
                         else file_hash(root / path)]
    if now != known:
        store.put_extra(*OTHERS, now)
    return {path: entry[2] for path, entry in now.items()}


def _regular(path: Path) -> bool:
    """Whether reading `path` ends: a FIFO a project holds would block its reader for ever."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def load_baseline(options: RunOptions, setup: WorkerSetup, sources: dict[str, str], store: Store,
                  test_hashes: dict[str, str], executor: Callable[[], Executor]) -> Baseline:
    """The stored baseline for exactly these sources, tests and options, else a fresh one from
    the entered executor that `executor()` returns (called only then)."""
    others = other_files(options, store, sources, test_hashes, snapshot(options.root))
    fingerprint = baseline_fingerprint(setup, sources, {**test_hashes, **others})
    cached = store.baseline(fingerprint)
    if cached is not None:
        return Baseline.from_dict(cached)
    baseline = executor().baseline()
    store.put_baseline(fingerprint, baseline.to_dict())
    return baseline


CALLED = f"called-names/{CALLS_VERSION}"  # the store's extras: per digest of a file's bytes, its called_names


def _import_calls(root: Path, sources: Mapping[str, str], test_hashes: Mapping[str, str],
                  store: Store) -> dict[str, ImportCalls]:
    """Per mutated file, its functions that run at import time: called by its own module-level
    code, or by that of the test files and the modules beside it (a decorator a test class
    applies while it is collected). Each neighbour's names come from the store where its
    bytes are unchanged: parsing them all again cost a warm run a second before its workers
    started."""
    neighbours = {root / test for test in test_hashes}
    for file in sources:
        neighbours.update((root / file).parent.glob("*.py"))
    names: dict[Path, frozenset[str]] = {}
    for path in sorted(neighbours):
        try:
            data = path.read_bytes()
        except OSError:
            continue  # left out: the run reports its own errors
        names[path] = store.by_content(CALLED, data, functools.partial(called_names_in, data),
                                       lambda called: {"names": sorted(called)},
                                       lambda stored: frozenset(stored["names"]))
    return {
        file: import_calls(text, (called for path, called in names.items() if path != root / file))
        for file, text in sources.items()
    }

