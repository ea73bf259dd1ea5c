"""The baseline a run starts from: stored for exactly this code, carried over from the last run
with only what an edit touched run again, or fresh; and the executor, started only when needed.

A run after an edit to one function runs again only the tests that executed that function
(and every test of a changed or new test file): the executor it opens collects just those
(their node ids are its test paths), so neither the suite's collection nor its baseline is
paid again. If the mutants left to run need a test it did not collect, it is replaced by one
that collects the whole suite (`Executors.widen`). What makes nothing reusable is in
harness.incremental.global_digest. A mutant killed before is killed again without a run while
the test that killed it keeps its digest (`still_killed`): an edit that changed only its other
covering tests cannot save it.
"""

from __future__ import annotations

import functools
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.errors import BaselineError, BugsmithError
from bugsmith.harness import early_baseline
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.early_baseline import Early, EarlyBaseline
from bugsmith.harness.executors.base import Draining, Executor, ExecutorFactory, Spare
from bugsmith.harness.import_time import ImportCalls
from bugsmith.harness.incremental import (
    FileUnits,
    Reuse,
    config_hashes,
    file_units,
    global_digest,
    merge,
    mutated_meaning,
    plan_reuse,
)
from bugsmith.harness.job_plan import CACHE_VERSION, file_hash, function_texts
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.harness.store import Store
from bugsmith.mutators.mutant import Mutant

STATE = ("incremental", "latest")  # the store's extra that holds the last run's baseline and code
NODE_IDS = 2000  # beyond this many tests to name, an executor collects the whole suite instead


class Executors:
    """The run's executor, entered on first use and left when the run ends.

    A cold run enters it before generating mutants: fork-server workers then import and
    collect the suite while libcst works, and run the baseline as soon as they are ready. A
    warm run may first enter one narrowed to the tests it runs again (`narrow`).
    """

    def __init__(self, factory: ExecutorFactory, setup: WorkerSetup, options: RunOptions) -> None:
        self._factory = factory
        self.full_setup = setup
        self.setup = setup
        self._options = self.full_options = options
        self._stack = ExitStack()
        self._entered: Executor | None = None
        self.collected: frozenset[str] | None = None  # the tests a narrowed executor knows, else all
        self._early: tuple[EarlyBaseline, Executor] | None = None  # a control in the baseline's thread
        self._proven: Executor | None = None  # the entered executor whose control run passed
        self._failed: tuple[Executor, BugsmithError] | None = None  # one whose control run failed

    def get(self) -> Executor:
        if self._entered is None:
            self._entered = self._stack.enter_context(self._factory(self.setup, self._options))
        return self._entered

    def narrow(self, test_paths: tuple[str, ...], work: int | None = None) -> None:
        """Collect only `test_paths` (files and node ids) in the executor not yet entered, on
        no more workers than `work` items of work need."""
        assert self._entered is None, "narrow before the executor starts"
        self.setup = replace(self.full_setup, test_paths=test_paths)
        self.collected = frozenset()
        if work is not None:
            self._options = replace(self._options, jobs=max(1, min(self._options.jobs, work)))

    def fit(self, tests: set[str], jobs: int, everything: int) -> None:
        """Make sure the executor knows `tests` before `jobs` mutants run: one not yet started
        collects only them (unless that is the whole suite of `everything` tests)."""
        if self._entered is None and self.collected is None and len(tests) < min(everything, NODE_IDS):
            self.narrow(tuple(sorted(tests)), jobs)
            self.collected = frozenset(tests)
        elif not self.knows(tests):
            self.widen()

    def widen(self) -> None:
        """Replace a narrowed executor by one that collects the whole suite."""
        if self.collected is None:
            return
        self.settle()
        self.close()
        self._stack, self._entered = ExitStack(), None
        self.setup, self.collected, self._options = self.full_setup, None, self.full_options

    def control_in(self, early: EarlyBaseline, executor: Executor) -> None:
        """`early`'s thread runs `executor`'s control run after its baseline (`begin`)."""
        self._early = (early, executor)

    def settle(self) -> None:
        """Wait for a control run in the baseline's thread: no two threads use an executor at
        once, and one is left only once its thread is done with it. A control that passed
        proves its executor; a failure is raised where that executor runs jobs (`controlled`)."""
        if self._early is None:
            return
        (early, executor), self._early = self._early, None
        try:
            if early.controlled():
                self._proven = executor
        except BugsmithError as error:  # what the control raises in the run's thread, raised there
            self._failed = (executor, error)

    def controlled(self, control: Callable[[Executor], None]) -> Executor:
        """The entered executor, once its control run passed: the one the baseline's thread
        ran, else `control` run now (once per executor)."""
        self.settle()
        executor = self.get()
        if self._failed is not None and self._failed[0] is executor:
            raise self._failed[1]
        if self._proven is not executor:
            control(executor)
            self._proven = executor
        return executor

    def knows(self, tests: set[str]) -> bool:
        return self.collected is None or tests <= self.collected

    def close(self) -> None:
        self._stack.close()


@dataclass(frozen=True, slots=True, kw_only=True)
class Code:
    """What the run's code is made of, for the baseline and the verdict keys."""

    sources: dict[str, str]
    test_hashes: dict[str, str]
    units: dict[str, FileUnits]
    at_import: dict[str, ImportCalls]
    config: dict[str, str]
    call: tuple[str, ...]  # how pytest is called: its arguments and test paths
    others: dict[str, str]  # the project's other files a test may read (runner.other_files)

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
           fingerprint: str, spare: Spare | None = None, early: Early | None = None) -> Baseline:
    """The baseline `prepare` chose, run where needed (or taken from `early`, the one `begin`
    started), and stored for the next run; a whole suite's baseline gives idle workers
    `spare`'s jobs (harness.speculation) while it drains."""
    baseline: Baseline | None = None
    if start.reuse is not None and start.old is not None:
        try:
            if not start.reuse.needs_run:
                fresh = None
            elif early is not None:
                early.spare.attach(None)  # a narrowed baseline drains into no spare
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
        early.spare.attach(spare)
        baseline = early.baseline.result()
    if baseline is None:
        executor = executors.get()
        if spare is not None and executors.collected is None and isinstance(executor, Draining):
            baseline = executor.baseline_with(spare)
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


KILLS = "killed-by"  # the store's extras: per site_key, the test that killed the mutant, and its digest
PASSED = "passed-by"  # per site_key, the tests that ran on the mutant and passed, with their digests


def still_killed(store: Store, todo: Mapping[str, tuple[str, ...]], sites: Mapping[str, str],
                 digests: Mapping[str, str]) -> dict[str, Outcome]:
    """Mutants (id -> covering tests) whose killing test still covers them with the same digest:
    killed again, without a run (an edit that changed only their other covering tests cannot
    save them)."""
    found = {}
    for mutant_id, tests in todo.items():
        record = store.extras_at(KILLS, sites[mutant_id])
        if record is None or record.get("test") not in tests:
            continue
        if digests.get(record["test"]) == record.get("digest"):
            try:
                found[mutant_id] = Outcome.from_dict(record["outcome"])
            except (KeyError, TypeError, ValueError):
                continue
    return found


def renamed_verdicts(store: Store, missed: Mapping[str, tuple[Mutant, tuple[str, ...]]], current: Set[str],
                     sources: Mapping[str, str], sites: Mapping[str, str],
                     old_keys: Callable[[Mutant, str, tuple[str, ...]], tuple[str, str]]) -> dict[str, Outcome]:
    """Verdicts of new mutants (id -> mutant and covering tests) that only a renamed local tells
    from a mutant of the last run: the same file, function and operator, and the same
    `mutated_meaning` (the function with the mutant applied, locals numbered), so the two do the
    same. Such a verdict carries over where the old mutant has an outcome under `old_keys` (its
    outcome and site keys, computed with the old text but these tests' current digests): the
    same tests, unchanged, ran against the same code. Its kill and pass records carry over with
    it. A rename that is not provably one (a local that shadows a global, a name a nested
    function or a comprehension binds, `locals()`) gives another digest: the mutant runs."""
    previous = store.previous_run()
    if previous is None:
        return {}
    old_ids, old_sources = previous
    renamed = {file: _renamed_functions(old_sources[file], text) for file, text in sources.items()
               if old_sources.get(file, text) != text}
    fresh = {i: entry for i, entry in missed.items() if entry[0].function in renamed.get(entry[0].file, ())}
    wanted = {(m.file, m.function, m.operator) for m, _ in fresh.values()}
    before: dict[tuple[str, str | None, str, str], Mutant] = {}
    for old_id in old_ids:
        # A mutant of the last run whose site's text changed (gone now), or one whose key did
        # (its function's text is in the key when the mutant brings in a name).
        if not wanted or (old_id in current and old_id not in missed):
            continue
        old = store.mutant(old_id)
        if old is None or (old.file, old.function, old.operator) not in wanted:
            continue
        digest = mutated_meaning(old_sources[old.file], old)
        if digest is not None:
            before.setdefault((old.file, old.function, old.operator, digest), old)
    found: dict[str, Outcome] = {}
    for mutant_id, (mutant, tests) in fresh.items():
        if not before or (digest := mutated_meaning(sources[mutant.file], mutant)) is None:
            continue
        old = before.get((mutant.file, mutant.function, mutant.operator, digest))
        if old is None:
            continue
        key, site = old_keys(old, old_sources[old.file], tests)
        outcome = store.cached([key]).get(key)
        if outcome is None or outcome.status in (Status.EQUIVALENT, Status.NO_COVERAGE):
            continue  # a reviewed equivalence names the old mutant's id, not this one
        found[mutant_id] = replace(outcome, mutant_id=mutant_id)
        for kind in (KILLS, PASSED):
            record = store.extras_at(kind, site)
            if record is not None and kind == KILLS and isinstance(record.get("outcome"), dict):
                record["outcome"] = {**record["outcome"], "mutant_id": mutant_id}
            if record is not None:
                store.put_extra(kind, sites[mutant_id], record)
    return found


def _renamed_functions(old: str, new: str) -> set[str]:
    """Functions whose text changed and whose meaning did not (a local renamed)."""
    before = {u.name: u.digest for u in file_units(old).units}
    try:
        old_texts, new_texts = function_texts(old), function_texts(new)
    except (SyntaxError, ValueError):  # a text Python cannot parse has no functions to match
        return set()
    return {u.name for u in file_units(new).units
            if before.get(u.name) == u.digest and old_texts.get(u.name) != new_texts.get(u.name)}


def last_killers(store: Store, todo: Mapping[str, tuple[str, ...]], sites: Mapping[str, str]) -> dict[str, str]:
    """Per mutant (id -> covering tests) killed before by a covering test whose digest changed
    (so `still_killed` could not keep the verdict), that test: it most likely kills again,
    and run first it spares running the others (the order never decides a status)."""
    found = {}
    for mutant_id, tests in todo.items():
        record = store.extras_at(KILLS, sites[mutant_id])
        if record is not None and record.get("test") in tests:
            found[mutant_id] = record["test"]
    return found


def passed_before(store: Store, mutant_ids: Iterable[str], sites: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Per mutant, the tests that passed on it in earlier runs, with their digests then
    (`record_passes`); mutants with none are left out."""
    found = {}
    for mutant_id in mutant_ids:
        record = store.extras_at(PASSED, sites[mutant_id])
        if record:
            found[mutant_id] = record
    return found


def known_passes(passed: Mapping[str, Mapping[str, str]], todo: Mapping[str, tuple[str, ...]],
                 digests: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per mutant (id -> covering tests), the covering tests that passed on it before
    (`passed_before`) and kept their digest: they pass again, so a warm run runs only the
    others (a survivor whose one covering test changed runs that test alone)."""
    found: dict[str, frozenset[str]] = {}
    for mutant_id, tests in todo.items():
        record = passed.get(mutant_id, {})
        known = frozenset(t for t in tests if t in digests and record.get(t) == digests[t])
        if known:
            found[mutant_id] = known
    return found


def likely_survivors(passed: Mapping[str, Mapping[str, str]], jobs: Sequence[Job]) -> set[str]:
    """The jobs' mutants on which every test the job runs passed before (`passed_before`),
    whatever the tests' digests now: most likely they survive again and run every one of their
    tests, the longest jobs of a run after an edit."""
    return {job.mutant_id for job in jobs if job.mutant_id in passed
            and all(test in passed[job.mutant_id] for test in job.tests)}


def survivors_first(jobs: Sequence[Job], likely: Set[str], by_id: Mapping[str, TestInfo]) -> list[Job]:
    """The `likely` survivors (`likely_survivors`) first, the longest first, then the other jobs
    in their order: a survivor runs every one of its tests, and sent late it kept one worker
    busy while the other idled (auc after an edit: three survivors of 0.28 s among 82 mutants
    of 10 ms, the last of them alone for 0.27 s at the end). Only the order changes, never what
    a job runs."""
    def seconds(job: Job) -> float:
        return sum(by_id[test].duration for test in job.tests if test in by_id)

    ahead = sorted((job for job in jobs if job.mutant_id in likely), key=seconds, reverse=True)
    return ahead + [job for job in jobs if job.mutant_id not in likely]


def record_passes(store: Store, site: str, verdict: Verdict, digests: Mapping[str, str],
                  known: frozenset[str]) -> frozenset[str]:
    """Keep the tests that passed on the mutant, with those `known` to pass, for `known_passes`;
    return them all."""
    passed = {r.id for r in verdict.results if r.outcome == "passed" and r.id in digests}
    if passed - known:
        store.put_extra(PASSED, site, {t: digests[t] for t in sorted(known | passed)})
    return known | passed


def split_collected(jobs: Sequence[Job], collected: frozenset[str],
                    rebuild: Callable[[Job, tuple[str, ...]], Job]) -> tuple[list[Job], dict[str, Job]]:
    """Jobs cut to the tests a narrowed executor collected, and the rest of each (by mutant id),
    to run after it only if the first part did not kill the mutant: most mutants die in a test
    that changed (those are collected), and the whole suite is collected only for the others."""
    now: list[Job] = []
    later: dict[str, Job] = {}
    for job in jobs:
        here = tuple(t for t in job.tests if t in collected)
        rest = tuple(t for t in job.tests if t not in collected)
        if not rest:
            now.append(job)
        elif not here:
            later[job.mutant_id] = job
        else:
            now.append(rebuild(job, here))
            later[job.mutant_id] = rebuild(job, rest)
    return now, later


def joined(first: Outcome, second: Outcome) -> Outcome:
    """The outcome of a job run in two parts (`split_collected`): the second part's verdict,
    with the tests and time of both."""
    return replace(second, covered_by=(*first.covered_by, *second.covered_by),
                   tests_run=first.tests_run + second.tests_run, duration=first.duration + second.duration)
