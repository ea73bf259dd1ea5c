"""Running what the plan selected (`execute`): every mutant's verdict and site keys, the
verdicts that need no run (a reviewed equivalent, no covering test, an outcome stored under
the same key, a renamed local's, a kill or passes that still hold:
harness.mutation_run.verdict_reuse), a job for each mutant left, run after the control run in
the adaptive order (harness.mutation_run.kill_order), and each outcome stored as it comes.

The steps pass two records: `Facts`, what the baseline says and every mutant shares, and
`Work`, the mutants' keys with what is still to decide and what was decided without a run;
each step takes the `Work` the one before left and returns the `Work` it leaves. Once jobs run,
a `Recorder` takes their verdicts.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bugsmith.harness import equivalents
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.incremental import file_units, scope_of, test_digests
from bugsmith.harness.job_plan import (
    Statements,
    cache_key,
    covering_tests,
    function_texts,
    mutant_job,
    site_key,
    timed,
)
from bugsmith.harness.mutation_run.executor_lifecycle import Executors, control
from bugsmith.harness.mutation_run.kill_order import KillOrder
from bugsmith.harness.mutation_run.planning import Plan
from bugsmith.harness.mutation_run.progress import Progress, ProgressCallback
from bugsmith.harness.mutation_run.verdict_reuse import (
    KILLS,
    known_passes,
    last_killers,
    likely_survivors,
    passed_before,
    record_passes,
    renamed_verdicts,
    split_collected,
    still_killed,
    survivors_first,
    two_parts_as_one,
)
from bugsmith.harness.outcome import Outcome, RunResult, Status, TestInfo
from bugsmith.harness.shared.protocol import Job, Verdict
from bugsmith.harness.store import Store
from bugsmith.harness.units import statement_ranges
from bugsmith.harness.verdict import control_failure, environment_failure, outcome_of
from bugsmith.mutators.mutant import Mutant

Todo = dict[str, tuple[Mutant, tuple[str, ...]]]  # mutant id -> the mutant as it runs, its covering tests


@dataclass(frozen=True, slots=True, kw_only=True)
class Facts:
    """What the run knows once it has its baseline, the same for every mutant."""

    plan: Plan
    by_id: dict[str, TestInfo]
    digests: dict[str, str]  # per test, the digest of what it runs (incremental.test_digests)
    everything: str  # the code's global digest, in every key

    @property
    def options(self) -> RunOptions:
        return self.plan.options

    def old_keys(self, old: Mutant, old_source: str, tests: tuple[str, ...]) -> tuple[str, str]:
        """The verdict and site keys of `old`, a mutant of the last run, computed with its text
        then but these tests' digests now (`renamed_verdicts`)."""
        scope = scope_of(file_units(old_source), function_texts(old_source), old.function, old.span.line,
                         old.original, old.mutated)
        return (cache_key(old, scope, tests, self.digests, self.everything, self.options.verdict_options()),
                site_key(old, scope, self.everything, self.options.verdict_options()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Work:
    """The mutants' keys, the mutants still to decide, and what was decided without a run."""

    keys: dict[str, str]  # mutant id -> verdict key (job_plan.cache_key)
    sites: dict[str, str]  # mutant id -> site key (job_plan.site_key), for its kill and pass records
    todo: Todo  # to run, unless a verdict that still holds turns up
    stored: dict[str, Outcome]  # verdict key -> the outcome an earlier run stored under it
    immediate: tuple[tuple[str, Outcome], ...]  # (verdict key, outcome) decided without a run, to store

    def covering(self) -> dict[str, tuple[str, ...]]:
        """Per mutant still to decide, its covering tests."""
        return {mutant_id: tests for mutant_id, (_, tests) in self.todo.items()}

    def decided(self, outcomes: Mapping[str, Outcome]) -> Work:
        """This work with `outcomes` (mutant id -> outcome) decided without a run."""
        return replace(self, todo={i: entry for i, entry in self.todo.items() if i not in outcomes},
                       immediate=(*self.immediate, *((self.keys[i], outcome) for i, outcome in outcomes.items())))


def execute(the_plan: Plan, store: Store, started: float, started_at: str,
            progress: ProgressCallback | None, executors: Executors, notes: list[str]) -> RunResult:
    """Decide every mutant of `the_plan`, running those that nothing else decides, and store the
    run (`started`, its time.monotonic; `notes`, its warnings so far): its result, as stored."""
    facts = _facts(the_plan)
    work = _without_stored(store, _keyed(facts))
    work = work.decided(_renamed(store, facts, work))
    work = work.decided(still_killed(store, work.covering(), work.sites, facts.digests))
    passed = passed_before(store, work.todo, work.sites)
    known = known_passes(passed, work.covering(), facts.digests)
    work, jobs = _jobs(facts, work, known)
    speculated: list[tuple[Job, Verdict]] = []
    if the_plan.speculation is not None:
        speculated, jobs = the_plan.speculation.resolve(jobs, facts.by_id)
    run_id = _start_run(store, facts, work, started_at, notes)
    recorder = _recorder(store, facts, work, known, progress, jobs)
    _run(executors, facts, recorder, jobs, speculated, passed)
    warnings = confirm_environment_kills(executors, facts, recorder)
    if warnings:
        store.put_extra("warnings", started_at, {"warnings": warnings})
    store.finish_run(run_id, time.monotonic() - started)
    return store.run_result(run_id)


def _facts(the_plan: Plan) -> Facts:
    baseline = the_plan.baseline
    return Facts(plan=the_plan, by_id={test.id: test for test in baseline.tests},
                 digests=test_digests(baseline, the_plan.code.units, the_plan.test_hashes),
                 everything=the_plan.code.global_digest({test.file for test in baseline.tests}))


def _keyed(facts: Facts) -> Work:
    """Every mutant's keys and covering tests; a reviewed equivalent and a mutant no test covers
    are decided at once."""
    the_plan, options, baseline = facts.plan, facts.options, facts.plan.baseline
    scopes = {file: function_texts(text) for file, text in the_plan.sources.items()}
    statements = {file: Statements(text) for file, text in the_plan.sources.items()}
    reviewed = equivalents.load(options.root / options.equivalents)
    keys: dict[str, str] = {}
    sites: dict[str, str] = {}
    todo: Todo = {}
    immediate: list[tuple[str, Outcome]] = []
    at_import = the_plan.code.at_import
    for mutant in the_plan.mutants:
        runnable = mutant
        tests = covering_tests(mutant, baseline, facts.by_id, statements[mutant.file])
        if at_import[mutant.file].needs_fresh_import(mutant.function, covered=bool(tests)):
            runnable = replace(mutant, function=None)  # only a fresh import runs it as the module would
            tests = covering_tests(runnable, baseline, facts.by_id, statements[mutant.file])
        scope_text = scope_of(the_plan.code.units[mutant.file], scopes[mutant.file], mutant.function,
                              mutant.span.line, mutant.original, mutant.mutated)
        key = cache_key(mutant, scope_text, tests, facts.digests, facts.everything, options.verdict_options())
        keys[mutant.id] = key
        sites[mutant.id] = site_key(mutant, scope_text, facts.everything, options.verdict_options())
        if mutant.id in reviewed:
            immediate.append((key, Outcome(mutant_id=mutant.id, status=Status.EQUIVALENT,
                                           detail=reviewed[mutant.id])))
        elif not tests:
            immediate.append((key, Outcome(mutant_id=mutant.id, status=Status.NO_COVERAGE)))
        else:
            todo[mutant.id] = (runnable, tests)
    return Work(keys=keys, sites=sites, todo=todo, stored={}, immediate=tuple(immediate))


def _without_stored(store: Store, work: Work) -> Work:
    """The outcomes stored under the same verdict keys hold: counted, not stored again."""
    stored = store.cached(work.keys[i] for i in work.todo)
    return replace(work, stored=stored, todo={i: entry for i, entry in work.todo.items() if work.keys[i] not in stored})


def _renamed(store: Store, facts: Facts, work: Work) -> dict[str, Outcome]:
    """The verdicts that functions' mutants take from the mutants they were before a local was
    renamed (`renamed_verdicts`)."""
    originals = {m.id: m for m in facts.plan.mutants}
    return renamed_verdicts(store, {i: (originals[i], tests) for i, (runnable, tests) in work.todo.items()
                                    if runnable.function is not None},
                            set(originals), facts.plan.sources, work.sites, facts.old_keys)


def _jobs(facts: Facts, work: Work, known: Mapping[str, frozenset[str]]) -> tuple[Work, list[Job]]:
    """A job for each mutant left, of its covering tests not `known` to pass on it; a mutant on
    which every covering test is known to pass survives without one."""
    ranges = {file: statement_ranges(text) for file, text in facts.plan.sources.items()}
    survived: dict[str, Outcome] = {}
    jobs: list[Job] = []
    for mutant_id, (runnable, tests) in work.todo.items():
        unknown = tuple(t for t in tests if t not in known.get(mutant_id, ()))
        if not unknown:  # every covering test passed on it before and kept its digest
            survived[mutant_id] = Outcome(mutant_id=mutant_id, status=Status.SURVIVED, covered_by=tests)
        else:
            jobs.append(mutant_job(runnable, facts.options, facts.plan.sources[runnable.file], unknown,
                                   facts.by_id, ranges[runnable.file]))
    return work.decided(survived), jobs


def _start_run(store: Store, facts: Facts, work: Work, started_at: str, notes: list[str]) -> int:
    """Store the mutants and the run's record, then the outcomes decided without a run."""
    the_plan, options = facts.plan, facts.options
    store.put_mutants(the_plan.mutants)
    notes = notes + [f"skipped {s.file}: {s.reason}" for s in the_plan.enumeration.skipped]
    described = options.describe()
    if options.sample is not None:  # what the score's interval needs (harness.sampling.run_estimate)
        described["sample"] = {"seed": options.sample.seed, "population": the_plan.population,
                               "size": len(the_plan.mutants)}
    run_id = store.start_run(
        started=started_at, root=str(options.root), options=described, keys=work.keys,
        tests=list(the_plan.baseline.tests), sources=the_plan.sources,
        dropped={"equivalent": the_plan.enumeration.dropped_equivalent,
                 "duplicates": the_plan.enumeration.dropped_duplicates,
                 "invalid": the_plan.enumeration.dropped_invalid, "warnings": notes},
    )
    for key, outcome in work.immediate:
        store.put_outcome(key, outcome)
    return run_id


@dataclass(slots=True, kw_only=True)
class Recorder:
    """Takes each job's verdict as it comes (`on_verdict`): stores its outcome and its kill and
    pass records, teaches the kill order, reports progress. A job cut in two (`split_collected`)
    is stored once, from both parts. The one record of the run that changes as it runs."""

    store: Store
    facts: Facts
    work: Work  # after `_jobs`: `todo` holds exactly the mutants that run
    known: Mapping[str, frozenset[str]]  # per mutant, the covering tests known to pass on it
    order: KillOrder
    progress: ProgressCallback | None
    counts: Counter[str]  # per status, the outcomes so far
    first: int  # outcomes decided before the jobs started
    started: float  # when the jobs started (time.monotonic)
    cut: set[str] = field(default_factory=set)  # mutants whose job has a later part
    first_parts: dict[str, Outcome] = field(default_factory=dict)  # their first part's outcome, if it survived
    passes: dict[str, frozenset[str]] = field(default_factory=dict)  # per mutant, the tests seen to pass on it
    # Kills by an error of the environment, held until their test passes alone on the unmutated
    # code (`confirm_environment_kills`), and whether kills are still held so.
    held: dict[str, tuple[Job, Outcome]] = field(default_factory=dict)
    confirming: bool = True

    def on_verdict(self, job: Job, verdict: Verdict) -> None:
        speculation = self.facts.plan.speculation
        if speculation is not None:  # a mutant that passed some tests during the baseline
            job, verdict = speculation.whole(job, verdict)
        outcome = outcome_of(job, verdict)
        mutant_id, digests = job.mutant_id, self.facts.digests
        self.passes[mutant_id] = record_passes(self.store, self.work.sites[mutant_id], verdict, digests,
                                               self.passes.get(mutant_id) or self.known.get(mutant_id, frozenset()))
        if mutant_id in self.cut and outcome.status is Status.SURVIVED and mutant_id not in self.first_parts:
            self.first_parts[mutant_id] = outcome  # its other tests run once they are collected
            return
        if mutant_id in self.first_parts:
            outcome = two_parts_as_one(self.first_parts[mutant_id], outcome)
        if mutant_id in self.known:  # the tests that passed before count as run
            outcome = replace(outcome, covered_by=self.work.todo[mutant_id][1])
        if self.confirming and outcome.status is Status.KILLED and environment_failure(verdict) is not None:
            self.held[mutant_id] = (job, outcome)  # stands once its test passes alone on the unmutated code
            return
        self.keep(mutant_id, outcome)

    def keep(self, mutant_id: str, outcome: Outcome) -> None:
        """Store `outcome`, with the kill record it makes, and report progress."""
        digests = self.facts.digests
        self.order.learn(mutant_id, outcome)
        self.store.put_outcome(self.work.keys[mutant_id], outcome)
        if outcome.status is Status.KILLED and outcome.killed_by and outcome.killed_by[0] in digests:
            self.store.put_extra(KILLS, self.work.sites[mutant_id], {"test": outcome.killed_by[0],
                                                                     "outcome": outcome.to_dict(),
                                                                     "digest": digests[outcome.killed_by[0]]})
        self.counts[outcome.status.value] = self.counts.get(outcome.status.value, 0) + 1
        if self.progress:
            self.progress(Progress(done=sum(self.counts.values()), total=len(self.facts.plan.mutants),
                                   counts=dict(self.counts), elapsed=time.monotonic() - self.started,
                                   first=self.first))


def _recorder(store: Store, facts: Facts, work: Work, known: Mapping[str, frozenset[str]],
              progress: ProgressCallback | None, jobs: Sequence[Job]) -> Recorder:
    """The recorder of the jobs' verdicts, once the outcomes decided without a run are reported."""
    counts = Counter(outcome.status.value for outcome in (*work.stored.values(), *(o for _, o in work.immediate)))
    if progress:
        progress(Progress(done=sum(counts.values()), total=len(facts.plan.mutants), counts=dict(counts),
                          elapsed=0.0, first=sum(counts.values())))
    started, first = time.monotonic(), sum(counts.values())
    mutants = facts.plan.mutants
    order = KillOrder({m.id: (m.file, m.function or "") for m in mutants}, facts.by_id, facts.options,
                      last_killers(store, {job.mutant_id: job.tests for job in jobs}, work.sites),
                      lines={m.id: m.span.line for m in mutants})
    return Recorder(store=store, facts=facts, work=work, known=known, order=order, progress=progress,
                    counts=counts, first=first, started=started)


def _run(executors: Executors, facts: Facts, recorder: Recorder, jobs: list[Job],
         speculated: Sequence[tuple[Job, Verdict]], passed: Mapping[str, Mapping[str, str]]) -> None:
    """Run the jobs, and take the speculated verdicts. Few mutants left to run (after an edit):
    workers collect only the tests they need; a narrowed executor already running (it ran the
    baseline of the changed tests) runs the tests it collected first, and the rest only where
    they did not kill."""
    if not (jobs or speculated):
        return
    later: dict[str, Job] = {}  # the rest of a job cut to what a narrowed executor collected
    needed = {test for job in jobs for test in job.tests}
    if jobs and executors.collected is not None and not executors.knows(needed):
        jobs, later = split_collected(jobs, executors.collected,
                                      lambda job, tests: timed(job, tests, facts.by_id, facts.options))
        recorder.cut.update(job.mutant_id for job in jobs if job.mutant_id in later)
    baseline, options, order = facts.plan.baseline, facts.options, recorder.order
    if jobs or speculated:
        _run_jobs(executors, survivors_first(order.interleave(jobs), likely_survivors(passed, jobs), facts.by_id),
                  baseline, options, recorder, speculated)
    rest = [job for mutant_id, job in later.items()
            if mutant_id in recorder.first_parts or mutant_id not in recorder.cut]
    if rest:
        _run_jobs(executors, rest, baseline, options, recorder)


def confirm_environment_kills(executors: Executors, facts: Facts, recorder: Recorder) -> list[str]:
    """Decide the kills held for an error of the environment (a file not found, a refused
    connection): each killing test runs alone on the unmutated code. Where it passes, the kill
    is the mutant's doing and stands; where it fails too, the test fails whatever the code, so
    the mutant runs again without it and that verdict stands. The warnings name such tests."""
    held, recorder.confirming = recorder.held, False
    if not held:
        return []
    by_test: dict[str, list[str]] = {}
    for mutant_id, (_, outcome) in held.items():
        by_test.setdefault(outcome.killed_by[0], []).append(mutant_id)
    executor = executors.get()
    alone: dict[str, Verdict] = {}
    executor.run([timed(Job.unmutated(f"alone:{test}", (test,), 0.0), (test,), facts.by_id, facts.options)
                  for test in by_test], lambda job, verdict: alone.__setitem__(job.tests[0], verdict))
    broken = {test: why for test in by_test if (why := control_failure(alone[test])) is not None}
    again = []
    for test, mutant_ids in by_test.items():
        for mutant_id in mutant_ids:
            job, outcome = held[mutant_id]
            rest = tuple(t for t in job.tests if t not in broken)
            if test not in broken:
                recorder.keep(mutant_id, outcome)
            elif rest:
                again.append(timed(job, rest, facts.by_id, facts.options))
            else:
                detail = f"its only failing test, {test}, fails on the unmutated code too"
                recorder.keep(mutant_id, replace(outcome, status=Status.ERROR, killed_by=(), failure=None,
                                                 detail=detail))
    if again:
        executor.run(again, recorder.on_verdict)
    return [f"{test} fails on the unmutated code when it runs alone ({why}): its outcome depends on the "
            f"tests before it or on the machine, and the {len(by_test[test])} kill(s) it made were decided "
            "again without it" for test, why in broken.items()]


def _run_jobs(executors: Executors, jobs: list[Job], baseline: Baseline, options: RunOptions,
              recorder: Recorder, speculated: Sequence[tuple[Job, Verdict]] = ()) -> None:
    """Run `jobs` after the control run; `speculated`, verdicts of a cold run's mutants run
    during the baseline, are trusted only once that control run passed."""
    executors.fit({test for job in jobs for test in job.tests}, len(jobs), len(baseline.tests))
    known = [t for t in baseline.tests if executors.knows({t.id})]
    executor = executors.controlled(lambda executor: control(executor, known, options))
    for job, verdict in speculated:
        recorder.on_verdict(job, verdict)
    executor.run(jobs, recorder.on_verdict, recorder.order.prepare)
