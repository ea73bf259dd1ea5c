"""The baseline a run starts from: stored for exactly this code, carried over from the last run
with only what an edit touched run again, or fresh; and the executor it needs, started at once.

A run after an edit to one function runs again only the tests that executed that function
(and every test of a changed or new test file), on an executor narrowed to them
(harness.mutation_run.executor_lifecycle); the rest of the baseline carries over from the last
run's (`merge`). What makes nothing reusable is in harness.incremental.global_digest. The
verdicts that still hold are harness.mutation_run.verdict_reuse's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bugsmith.errors import BaselineError
from bugsmith.harness import early_baseline
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.early_baseline import Early
from bugsmith.harness.executors.base import Draining, Executor, IdleWork
from bugsmith.harness.import_time import ImportCalls
from bugsmith.harness.incremental import (
    FileUnits,
    Reuse,
    config_hashes,
    file_units,
    global_digest,
    merge,
    plan_reuse,
)
from bugsmith.harness.job_plan import CACHE_VERSION
from bugsmith.harness.mutation_run.executor_lifecycle import Executors
from bugsmith.harness.shared.protocol import WorkerSetup
from bugsmith.harness.store import Store

STATE = ("incremental", "latest")  # the store's extra that holds the last run's baseline and code


@dataclass(frozen=True, slots=True, kw_only=True)
class Code:
    """What the run's code is made of, for the baseline and the verdict keys."""

    sources: dict[str, str]
    test_hashes: dict[str, str]
    units: dict[str, FileUnits]
    at_import: dict[str, ImportCalls]
    config: dict[str, str]
    call: tuple[str, ...]  # how pytest is called: its arguments and test paths
    others: dict[str, str]  # the project's other files a test may read (planning.other_files)

    def global_digest(self, test_files: set[str]) -> str:
        # Sources may sit under the test paths (the corpus's do): their units speak for them.
        support = {f: h for f, h in self.test_hashes.items() if f not in test_files and f not in self.sources}
        support.update(self.others)
        return global_digest(version=CACHE_VERSION, units=self.units, at_import=self.at_import,
                             support=support, config=self.config, call=self.call)


UNITS = "units-of-text/2"  # the store's extras: per digest of a text, its FileUnits (2: own-scope locals)


def units_of(store: Store, texts: Mapping[str, str]) -> dict[str, FileUnits]:
    """`file_units` of each text, from the store where it split the same text before: a warm
    run's coordinator computes it for its sources and the last run's before it starts the
    workers, and an unchanged file must not cost its whole syntax tree walked again."""
    return {file: store.by_content(UNITS, text.encode(), functools.partial(file_units, text),
                                   FileUnits.to_dict, FileUnits.from_dict)
            for file, text in texts.items()}


def describe_code(options: RunOptions, setup: WorkerSetup, sources: dict[str, str], test_hashes: dict[str, str],
                  at_import: dict[str, ImportCalls], store: Store, others: dict[str, str]) -> Code:
    root = options.root.resolve()
    return Code(sources=sources, test_hashes=test_hashes, units=units_of(store, sources),
                at_import=at_import, config=config_hashes(root, [*options.tests, *sources]),
                call=(*setup.pytest_args, "--", *setup.test_paths), others=others)



@dataclass(frozen=True, slots=True, kw_only=True)
class Start:
    """How this run gets its baseline: `reuse` is None for a cold one."""

    old: Baseline | None
    old_units: dict[str, FileUnits]
    reuse: Reuse | None


def prepare(code: Code, store: Store, executors: Executors) -> Start:
    """Decide what the baseline reuses, and start the executor it needs (if any) at once, so
    that its workers collect while mutants are generated."""
    state = store.extras_at(*STATE)
    if state is not None:
        try:
            old = Baseline.from_dict(state["baseline"])
            old_units = units_of(store, state["sources"])
            old_hashes: Mapping[str, str] = state["test_hashes"]
            old_files = {t.file for t in old.tests}
            # The global digest as the stored run computed it, with the same support files; a
            # new conftest is a new support file, any other new file is collected as tests.
            support = {f for f in code.test_hashes if f not in old_files and f not in code.sources
                       and (f in old_hashes or Path(f).name == "conftest.py")}
            same = state["global"] == code.global_digest(set(code.test_hashes) - support)
        except (KeyError, TypeError, ValueError):
            same = False
        if same and set(old_units) == set(code.units):
            reuse = plan_reuse(old, old_units, code.units, old_hashes, code.test_hashes)
            # Nothing to run again (a local renamed at most): no worker starts now. The mutants of
            # a function whose text changed take their verdicts from the mutants they were
            # (`renamed_verdicts`); workers start later only for what is left to run.
            if reuse.needs_run:
                executors.narrow(reuse.test_paths(), len(reuse.rerun_tests) + 8 * len(reuse.rerun_files))
                executors.get()
            return Start(old=old, old_units=old_units, reuse=reuse)
    executors.get()
    return Start(old=None, old_units={}, reuse=None)


def begin(start: Start, executors: Executors,
          control: Callable[[Executor, Baseline], None] | None = None) -> Early | None:
    """The baseline `finish` will ask for, started now in the executor `prepare` entered
    (harness.early_baseline), if there is one to run there, then `control(executor, baseline)`
    in the same thread (`Executors.controlled` waits for it)."""
    if start.reuse is not None and not start.reuse.needs_run:
        return None  # nothing runs: no executor was entered
    executor = executors.get()
    early = early_baseline.begin(executor, control)
    if early is not None and control is not None:
        executors.control_in(early.baseline, executor)
    return early


def finish(start: Start, code: Code, store: Store, executors: Executors,
           fingerprint: str, idle_work: IdleWork | None = None, early: Early | None = None) -> Baseline:
    """The baseline `prepare` chose, run where needed (or taken from `early`, the one `begin`
    started), and stored for the next run; a whole suite's baseline gives idle workers
    `idle_work`'s jobs (harness.speculation) while it drains."""
    baseline: Baseline | None = None
    if start.reuse is not None and start.old is not None:
        try:
            if not start.reuse.needs_run:
                fresh = None
            elif early is not None:
                early.idle_work.attach(None)  # a narrowed baseline gives its idle workers nothing
                fresh = early.baseline.result()
            else:
                fresh = executors.get().baseline()
        except BaselineError:  # red, or the narrowed collection failed: the whole suite says which
            fresh, ran = None, set()
        else:
            ran = {t.id for t in fresh.tests} if fresh is not None else set()
        if (fresh is None and not start.reuse.needs_run) or (fresh is not None and set(start.reuse.rerun_tests) <= ran):
            baseline = merge(start.old, start.reuse, fresh, start.old_units, code.units)
            if fresh is not None:
                executors.collected = frozenset(ran)
        else:
            executors.widen()  # a test it asked for was not collected: run the whole suite
    if baseline is None and early is not None and start.reuse is None:
        early.idle_work.attach(idle_work)
        baseline = early.baseline.result()
    if baseline is None:
        executor = executors.get()
        if idle_work is not None and executors.collected is None and isinstance(executor, Draining):
            baseline = executor.baseline_with(idle_work)
        else:
            baseline = executor.baseline()
    store.put_baseline(fingerprint, baseline.to_dict())
    save_state(store, code, baseline, fingerprint)
    return baseline


def save_state(store: Store, code: Code, baseline: Baseline, fingerprint: str) -> None:
    data: dict[str, Any] = {
        "fingerprint": fingerprint,
        "global": code.global_digest({t.file for t in baseline.tests}), "sources": code.sources,
        "test_hashes": code.test_hashes, "baseline": baseline.to_dict(),
    }
    store.put_extra(*STATE, data)


def stored_baseline(store: Store, fingerprint: str, code: Code) -> Baseline | None:
    """The baseline stored for exactly this code and these tests (then the run's state is
    brought up to it: the last run may have been on other code)."""
    cached = store.baseline(fingerprint)
    if cached is None:
        return None
    baseline = Baseline.from_dict(cached)
    state = store.extras_at(*STATE)
    if state is None or state.get("fingerprint") != fingerprint:
        save_state(store, code, baseline, fingerprint)
    return baseline

