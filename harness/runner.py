"""`harness.run(options) -> RunResult` (this module): the whole mutation run, as a library call.

discover files -> enumerate mutants -> baseline (cached) -> select tests and look up cached
verdicts -> run the rest on an executor -> store every outcome as it comes -> RunResult.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bugsmith.errors import HarnessError
from bugsmith.harness import equivalents
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.discovery import discover
from bugsmith.harness.executors.base import Executor, ExecutorFactory
from bugsmith.harness.executors.project_copy import Snapshot, changes, snapshot
from bugsmith.harness.executors.table import local_executor
from bugsmith.harness.import_time import CALLS_VERSION, ImportCalls, called_names_in, import_calls
from bugsmith.harness.incremental import file_units, scope_of, support_files, test_digests
from bugsmith.harness.job_plan import (
    Statements,
    Tally,
    cache_key,
    cheapest_kill_order,
    covering_tests,
    file_hash,
    function_texts,
    mutant_job,
    site_key,
    span_lines,
    timed,
)
from bugsmith.harness.mutant_cache import cached_enumeration
from bugsmith.harness.outcome import Outcome, RunResult, Status, TestInfo
from bugsmith.harness.shared import preload
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.harness.since import changed_lines, check_ref
from bugsmith.harness.speculation import Speculation
from bugsmith.harness.store import Store, hold, is_damage, set_aside
from bugsmith.harness.units import statement_ranges
from bugsmith.harness.verdict import outcome_of
from bugsmith.harness.warm_start import (
    KILLS,
    Code,
    Executors,
    begin,
    describe_code,
    finish,
    joined,
    known_passes,
    last_killers,
    likely_survivors,
    other_hashes,
    passed_before,
    prepare,
    record_passes,
    renamed_verdicts,
    split_collected,
    still_killed,
    stored_baseline,
    survivors_first,
)
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source

if TYPE_CHECKING:  # libcst takes a second to import: a warm run imports it only to parse edited files
    from bugsmith.mutators.base import Mutator
    from bugsmith.mutators.enumeration import Enumeration


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress:
    """Reported after each verdict, for a progress bar."""

    done: int
    total: int
    counts: dict[str, int]
    elapsed: float  # seconds since the stage started
    stage: str = "mutants"
    first: int = 0  # done before the stage started (stored or immediate verdicts)

    @property
    def eta(self) -> float | None:
        # From this stage's own pace: stored verdicts cost nothing and the baseline is over.
        measured = self.done - self.first
        if measured <= 0 or self.done >= self.total:
            return None
        return self.elapsed / measured * (self.total - self.done)


ProgressCallback = Callable[[Progress], None]


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
    early = (begin(start, executors, lambda executor, fresh: _control(executor, fresh.tests, options))
             if start is not None else None)
    if mutators is None:  # after the workers start: libcst, if a file changed
        enumeration = cached_enumeration(files, root=options.root, store=store, families=options.families,
                                         operators=options.operators)
    else:
        from bugsmith.mutators.engine import enumerate_mutants

        enumeration = enumerate_mutants(files, root=options.root, mutators=mutators)
    mutants = _restrict(options, enumeration.mutants)
    speculation = None
    if start is not None:
        if start.reuse is None and options.pipeline:  # cold: the whole suite runs under coverage
            speculation = Speculation(mutants, sources, options, code.at_import)
        baseline = finish(start, code, store, executors, fingerprint, speculation, early)
    assert baseline is not None
    return Plan(options=options, enumeration=enumeration, mutants=mutants, sources=sources, setup=setup,
                baseline=baseline, test_hashes=test_hashes, code=code, speculation=speculation)


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


def run(
    options: RunOptions,
    progress: ProgressCallback | None = None,
    executor_factory: ExecutorFactory | None = None,
    mutators: Sequence[Mutator] | None = None,
) -> RunResult:
    """Run every mutant the options select; resume from stored verdicts where they still hold.

    `executor_factory` opens the Executor that runs the jobs (default: `local_executor`, the
    fork pool or the subprocess mode as the options say); `mutators` replaces the registry's
    selection (for libraries and tests that bring their own).
    """
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    if options.since:  # before any worker starts: a bad ref is a one-line error, not a wasted baseline
        check_ref(options.root, options.since)
    tree = snapshot(options.root)  # the user's tree, checked again when the run ends
    with hold(options.store_path.parent):
        files, skipped = discover(options)
        store = Store.open(options.store_path)
        notes = ([f"the store was damaged: moved it aside to {store.moved_aside.name} and started a new one"]
                 if store.moved_aside else [])
        notes += [f"skipped {s.file}: {s.reason}" for s in skipped]
        executors = Executors(executor_factory or local_executor, worker_setup(options, files), options)
        try:
            if progress:  # the baseline can take a while: say that the run has started
                progress(Progress(done=0, total=0, counts={}, elapsed=0.0, stage="baseline"))
            the_plan = plan(options, store, mutators, executors, tree)
            result = _execute(the_plan, store, started, started_at, progress, executors, notes)
            executors.settle()  # a control still running in the baseline's thread (no job ran)
            executors.close()  # the workers are gone: nothing of the run can still write
            preload.leave()  # for the next run, now that this one has ended well (harness.shared.preload)
            warnings = tree_warnings(the_plan.baseline, changes(tree, snapshot(options.root)))
            if warnings:
                store.put_extra("warnings", started_at, {"warnings": list(warnings)})
            return replace(result, warnings=result.warnings + warnings)
        except sqlite3.DatabaseError as error:  # damage quick_check did not see at the start
            if not is_damage(error):
                raise
            store.close()
            aside = set_aside(options.store_path)
            raise HarnessError(f"the store was found damaged during the run ({error}): moved it aside to"
                               f" {aside.name}; run again to start a new one") from None
        finally:
            executors.close()
            preload.stay()  # an interrupted or failed run leaves no process behind
            store.close()


def tree_warnings(baseline: Baseline, changed: Sequence[str]) -> tuple[str, ...]:
    """What the run must say about the project's tree: the suite writes into it (seen in the
    private copy by the baseline), or the tree changed while the run ran (by a test, a mutant
    that escaped the copy, or a person editing)."""
    warnings = []
    if baseline.writes:
        warnings.append("the test suite itself changes files of its tree (bugsmith ran it in a private "
                        f"copy): {', '.join(baseline.writes[:5])}" + (" ..." if len(baseline.writes) > 5 else ""))
    if changed:
        warnings.append(f"the project's tree changed during the run ({len(changed)} paths): "
                        + ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else ""))
    return tuple(warnings)


def _execute(the_plan: Plan, store: Store, started: float, started_at: str,
             progress: ProgressCallback | None, executors: Executors, notes: list[str]) -> RunResult:
    options, baseline = the_plan.options, the_plan.baseline
    by_id = {test.id: test for test in baseline.tests}
    test_hashes = the_plan.test_hashes
    scopes = {file: function_texts(text) for file, text in the_plan.sources.items()}
    digests = test_digests(baseline, the_plan.code.units, test_hashes)
    everything = the_plan.code.global_digest({test.file for test in baseline.tests})
    ranges = {file: statement_ranges(text) for file, text in the_plan.sources.items()}
    statements = {file: Statements(text) for file, text in the_plan.sources.items()}
    reviewed = equivalents.load(options.root / options.equivalents)
    keys: dict[str, str] = {}
    sites: dict[str, str] = {}
    todo: dict[str, tuple[Mutant, tuple[str, ...]]] = {}  # to run, unless a stored verdict holds
    immediate: list[tuple[str, Outcome]] = []
    at_import = the_plan.code.at_import
    for mutant in the_plan.mutants:
        runnable = mutant
        tests = covering_tests(mutant, baseline, by_id, statements[mutant.file])
        if at_import[mutant.file].needs_fresh_import(mutant.function, covered=bool(tests)):
            runnable = replace(mutant, function=None)  # only a fresh import runs it as the module would
            tests = covering_tests(runnable, baseline, by_id, statements[mutant.file])
        scope_text = scope_of(the_plan.code.units[mutant.file], scopes[mutant.file], mutant.function,
                              mutant.span.line, mutant.original, mutant.mutated)
        key = cache_key(mutant, scope_text, tests, digests, everything, options.verdict_options())
        keys[mutant.id] = key
        sites[mutant.id] = site_key(mutant, scope_text, everything, options.verdict_options())
        if mutant.id in reviewed:
            immediate.append((key, Outcome(mutant_id=mutant.id, status=Status.EQUIVALENT,
                                           detail=reviewed[mutant.id])))
        elif not tests:
            immediate.append((key, Outcome(mutant_id=mutant.id, status=Status.NO_COVERAGE)))
        else:
            todo[mutant.id] = (runnable, tests)
    cached = store.cached(keys[i] for i in todo)
    todo = {i: entry for i, entry in todo.items() if keys[i] not in cached}

    def old_keys(old: Mutant, old_source: str, tests: tuple[str, ...]) -> tuple[str, str]:
        scope = scope_of(file_units(old_source), function_texts(old_source), old.function, old.span.line,
                         old.original, old.mutated)
        return (cache_key(old, scope, tests, digests, everything, options.verdict_options()),
                site_key(old, scope, everything, options.verdict_options()))

    originals = {m.id: m for m in the_plan.mutants}
    renamed = renamed_verdicts(store, {i: (originals[i], tests) for i, (runnable, tests) in todo.items()
                                       if runnable.function is not None},
                               set(originals), the_plan.sources, sites, old_keys)
    immediate += [(keys[mutant_id], outcome) for mutant_id, outcome in renamed.items()]
    todo = {i: entry for i, entry in todo.items() if i not in renamed}
    covering = {i: tests for i, (_, tests) in todo.items()}
    killed = still_killed(store, covering, sites, digests)
    immediate += [(keys[mutant_id], outcome) for mutant_id, outcome in killed.items()]
    unkilled = {i: tests for i, tests in covering.items() if i not in killed}
    passed = passed_before(store, unkilled, sites)
    known = known_passes(passed, unkilled, digests)
    jobs: list[Job] = []
    for mutant_id, (runnable, tests) in todo.items():
        if mutant_id in killed:
            continue
        unknown = tuple(t for t in tests if t not in known.get(mutant_id, ()))
        if not unknown:  # every covering test passed on it before and kept its digest
            immediate.append((keys[mutant_id], Outcome(mutant_id=mutant_id, status=Status.SURVIVED,
                                                       covered_by=tests)))
        else:
            jobs.append(mutant_job(runnable, options, the_plan.sources[runnable.file], unknown, by_id,
                                   ranges[runnable.file]))
    speculated: list[tuple[Job, Verdict]] = []
    if the_plan.speculation is not None:
        speculated, jobs = the_plan.speculation.resolve(jobs, by_id)
    store.put_mutants(the_plan.mutants)
    notes = notes + [f"skipped {s.file}: {s.reason}" for s in the_plan.enumeration.skipped]
    run_id = store.start_run(
        started=started_at, root=str(options.root), options=options.describe(), keys=keys,
        tests=list(baseline.tests), sources=the_plan.sources,
        dropped={"equivalent": the_plan.enumeration.dropped_equivalent,
                 "duplicates": the_plan.enumeration.dropped_duplicates,
                 "invalid": the_plan.enumeration.dropped_invalid, "warnings": notes},
    )
    for key, outcome in immediate:
        store.put_outcome(key, outcome)
    counts = Counter(outcome.status.value for outcome in (*cached.values(), *(o for _, o in immediate)))
    total = len(the_plan.mutants)
    if progress:
        progress(Progress(done=sum(counts.values()), total=total, counts=dict(counts), elapsed=0.0,
                          first=sum(counts.values())))
    phase_started, first = time.monotonic(), sum(counts.values())

    order = KillOrder({m.id: (m.file, m.function or "") for m in the_plan.mutants}, by_id, options,
                      last_killers(store, {job.mutant_id: job.tests for job in jobs}, sites),
                      lines={m.id: m.span.line for m in the_plan.mutants})

    later: dict[str, Job] = {}  # the rest of a job cut to what a narrowed executor collected
    cut: set[str] = set()  # mutants whose job has a later part
    first_parts: dict[str, Outcome] = {}  # their first part's outcome, if it survived
    passes: dict[str, frozenset[str]] = {}  # per mutant, the tests seen to pass on it

    def on_verdict(job: Job, verdict: Verdict) -> None:
        if the_plan.speculation is not None:  # a mutant that passed some tests during the baseline
            job, verdict = the_plan.speculation.whole(job, verdict)
        outcome = outcome_of(job, verdict)
        passes[job.mutant_id] = record_passes(store, sites[job.mutant_id], verdict, digests,
                                              passes.get(job.mutant_id) or known.get(job.mutant_id, frozenset()))
        if job.mutant_id in cut and outcome.status is Status.SURVIVED and job.mutant_id not in first_parts:
            first_parts[job.mutant_id] = outcome  # its other tests run once they are collected
            return
        if job.mutant_id in first_parts:
            outcome = joined(first_parts[job.mutant_id], outcome)
        if job.mutant_id in known:  # the tests that passed before count as run
            outcome = replace(outcome, covered_by=todo[job.mutant_id][1])
        order.learn(job.mutant_id, outcome)
        store.put_outcome(keys[job.mutant_id], outcome)
        if outcome.status is Status.KILLED and outcome.killed_by and outcome.killed_by[0] in digests:
            store.put_extra(KILLS, sites[job.mutant_id], {"test": outcome.killed_by[0], "outcome": outcome.to_dict(),
                                                          "digest": digests[outcome.killed_by[0]]})
        counts[outcome.status.value] = counts.get(outcome.status.value, 0) + 1
        if progress:
            progress(Progress(done=sum(counts.values()), total=total, counts=dict(counts),
                              elapsed=time.monotonic() - phase_started, first=first))

    if jobs or speculated:
        # Few mutants left to run (after an edit): workers collect only the tests they need; a
        # narrowed executor already running (it ran the baseline of the changed tests) runs the
        # tests it collected first, and the rest only where they did not kill.
        needed = {test for job in jobs for test in job.tests}
        if jobs and executors.collected is not None and not executors.knows(needed):
            jobs, later = split_collected(jobs, executors.collected,
                                          lambda job, tests: _retest(job, tests, by_id, options))
            cut.update(job.mutant_id for job in jobs if job.mutant_id in later)
        if jobs or speculated:
            _run_jobs(executors, survivors_first(order.interleave(jobs), likely_survivors(passed, jobs), by_id),
                      baseline, options, on_verdict, order, speculated)
        rest = [job for mutant_id, job in later.items() if mutant_id in first_parts or mutant_id not in cut]
        if rest:
            _run_jobs(executors, rest, baseline, options, on_verdict, order)
    store.finish_run(run_id, time.monotonic() - started)
    return store.run_result(run_id)


class KillOrder:
    """Order each mutant's tests by the expected seconds to its first failure
    (job_plan.cheapest_kill_order), from what this run saw the tests do to the other mutants of
    the same line, function and file: kills, and passes, which count against a test; a test that
    killed the mutant in an earlier run goes first (after an edit it was re-run because the
    test's digest changed, and it nearly always kills again)."""

    def __init__(self, scopes: dict[str, tuple[str, str]], by_id: Mapping[str, TestInfo],
                 options: RunOptions, killers: Mapping[str, str] | None = None,
                 lines: Mapping[str, int] | None = None) -> None:
        self.scopes = scopes
        self.killers = killers or {}  # per mutant, the test that killed it in an earlier run: first
        self.lines = lines or {}  # each mutant's first line: the innermost scope of its history
        self.durations = {test_id: test.duration for test_id, test in by_id.items()}
        self.options = options
        self.by_id = by_id
        self.tallies: dict[tuple[str, str] | tuple[str, str, int] | str, Tally] = defaultdict(Tally)
        self.kills, self.tries = 0, 0  # over the whole run: the prior of a test never run in the file

    def learn(self, mutant_id: str, outcome: Outcome) -> None:
        if outcome.status is Status.KILLED and outcome.killed_by:
            killer: str | None = outcome.killed_by[0]
        elif outcome.status is Status.SURVIVED:
            killer = None
        else:
            return  # a timeout or an error says nothing reliable about the tests that ran
        ran = outcome.covered_by[:outcome.tests_run]
        file, function = self.scopes[mutant_id]
        self.tallies[(file, function)].add(ran, killer)
        self.tallies[file].add(ran, killer)
        if mutant_id in self.lines:
            self.tallies[(file, function, self.lines[mutant_id])].add(ran, killer)
        self.kills += killer is not None
        self.tries += len(ran)

    def interleave(self, jobs: Sequence[Job]) -> list[Job]:
        """`jobs` in rounds of one mutant per function, each round in the jobs' order: the next
        mutant of a function (most often of the same line, killed by the same test) is prepared
        once the verdicts of the other functions' mutants of the round had time to come in,
        where run one after the other it would be sent while its sibling still runs, with
        nothing learnt from it. Within a function, the first mutant of each line comes before
        the second of any: late in a run, when one long function's mutants are all that is
        left, the rounds are one job long, and two mutants of a line sent back to back each ran
        every test that could not kill them (the corpus: 13 such, 7 worker-seconds). Only the
        order of the jobs changes, never what they run."""
        on_line: Counter[tuple[tuple[str, str], int | None]] = Counter()
        by_scope: dict[tuple[str, str], list[tuple[int, int, Job]]] = defaultdict(list)
        for index, job in enumerate(jobs):
            scope = self.scopes.get(job.mutant_id, ("", job.mutant_id))
            line = (scope, self.lines.get(job.mutant_id))
            by_scope[scope].append((on_line[line], index, job))
            on_line[line] += 1
        ranked = [(position, index, job) for entries in by_scope.values()
                  for position, (_, index, job) in enumerate(sorted(entries, key=lambda entry: entry[:2]))]
        return [job for _, _, job in sorted(ranked, key=lambda entry: entry[:2])]

    def prepare(self, job: Job) -> Job:
        file, function = self.scopes.get(job.mutant_id, ("", ""))
        prior = (self.kills + 1) / (self.tries + 2)
        line = self.tallies.get((file, function, self.lines[job.mutant_id])) if job.mutant_id in self.lines else None
        tests = cheapest_kill_order(job.tests, self.durations, self.tallies.get((file, function), Tally()),
                                    self.tallies.get(file, Tally()), prior, line=line)
        killer = self.killers.get(job.mutant_id)
        if killer in tests:
            tests = (killer, *(test for test in tests if test != killer))
        if tests == job.tests:
            return job
        return timed(job, tests, self.by_id, self.options)


def _run_jobs(executors: Executors, jobs: list[Job], baseline: Baseline, options: RunOptions,
              on_verdict: Callable[[Job, Verdict], None], order: KillOrder,
              speculated: Sequence[tuple[Job, Verdict]] = ()) -> None:
    """Run `jobs` after the control run; `speculated`, verdicts of a cold run's mutants run
    during the baseline, are trusted only once that control run passed."""
    executors.fit({test for job in jobs for test in job.tests}, len(jobs), len(baseline.tests))
    known = [t for t in baseline.tests if executors.knows({t.id})]
    executor = executors.controlled(lambda executor: _control(executor, known, options))
    for job, verdict in speculated:
        on_verdict(job, verdict)
    executor.run(jobs, on_verdict, order.prepare)


def _retest(job: Job, tests: tuple[str, ...], by_id: Mapping[str, TestInfo], options: RunOptions) -> Job:
    return timed(job, tests, by_id, options)



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


def _control(executor: Executor, tests: Sequence[TestInfo], options: RunOptions) -> None:
    """The control run of `executor`, which knows `tests`: HarnessError unless the unmutated
    code passes through the machinery the mutants run in."""
    executor.control(_control_tests(tests), timeout=_control_limit(tests, options))


def _control_tests(tests: Sequence[TestInfo]) -> tuple[str, ...]:
    """The fastest test of each test file: proves every file runs through the machinery."""
    fastest: dict[str, tuple[float, str]] = {}
    for test in tests:
        best = fastest.get(test.file)
        if best is None or test.duration < best[0]:
            fastest[test.file] = (test.duration, test.id)
    return tuple(test_id for _, test_id in fastest.values())


def _control_limit(tests: Sequence[TestInfo], options: RunOptions) -> float:
    return options.timeout_factor * sum(t.duration for t in tests) + 10 * options.timeout_base

