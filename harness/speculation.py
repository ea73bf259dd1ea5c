"""Mutants run while the baseline drains: the tests of finished chunks against mutants they cover.

A cold run's baseline runs the suite in chunks on every worker, and its last chunks keep one
worker busy while the others would idle. A test's coverage and its unmutated result are known
as soon as its chunk ends, so an idle worker can already run a mutant against the finished
tests that execute its site (`next_job`). A failure there kills the mutant whatever the rest of
the baseline says, since only tests that passed unmutated are run. A mutant that passes them
waits for the complete baseline and then runs only its remaining covering tests (`resolve`,
`whole`), so a survivor still runs every covering test. Nothing here is stored or trusted
before the runner has the whole baseline and its control run: the runner then computes every
cache key from the complete coverage, exactly as without this, and a red baseline discards it.

Only mutants that a forked child runs like any function are speculated on: module-level code
and functions that run at import need the complete coverage to choose their tests. A
speculative run that times out, errs or dies is forgotten: the mutant runs whole afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bugsmith.harness.config import RunOptions
from bugsmith.harness.import_time import ImportCalls
from bugsmith.harness.job_plan import Statements, mutant_job, site_lines, timed
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.protocol import Job, TestOutcome, TestResult, Verdict
from bugsmith.harness.shared.tasks import Coverage
from bugsmith.harness.units import statement_ranges
from bugsmith.harness.verdict import PROCESS_EXITS
from bugsmith.mutators.mutant import Mutant

PREFIX = "speculative-"  # speculative jobs' ids: the pool's retry and timeout bookkeeping stays apart


@dataclass(frozen=True, slots=True, kw_only=True)
class _Ran:
    """What the speculative runs of one mutant found: tests that passed, or the run that killed it."""

    results: tuple[TestResult, ...] = ()
    elapsed: float = 0.0
    killed: bool = False


class Speculation:
    """Feeds idle workers mutant jobs during the baseline and keeps what they found."""

    def __init__(self, mutants: Sequence[Mutant], sources: Mapping[str, str], options: RunOptions,
                 at_import: Mapping[str, ImportCalls]) -> None:
        self._options = options
        self._sources = sources
        self._ranges = {file: statement_ranges(text) for file, text in sources.items()}
        statements = {file: Statements(text) for file, text in sources.items()}
        self._order = [m for m in mutants if m.function is not None
                       and not at_import[m.file].needs_fresh_import(m.function, covered=True)]
        self._sites = {m.id: site_lines(m, statements[m.file]) for m in self._order}
        self._lines: dict[str, dict[int, set[str]]] = {}
        self._passed: dict[str, TestInfo] = {}  # tests that passed unmutated, with their durations
        self._ran: dict[str, _Ran] = {}
        self._dropped: set[str] = set()
        self._running: dict[str, str] = {}  # job id -> mutant id
        self._jobs = 0
        self._chunks = 0  # finished chunks
        self._scanned = 0  # finished chunks when the current pass over the mutants began
        self._cursor = 0
        self._whole: dict[str, tuple[Job, _Ran]] = {}

    def chunk_done(self, verdict: Verdict) -> None:
        """A baseline chunk ended: its tests' lines and unmutated results are known."""
        self._chunks += 1
        failed = {r.id for r in verdict.results if r.outcome != TestOutcome.PASSED}
        for result in verdict.results:
            if result.outcome == TestOutcome.PASSED and result.id not in failed:
                self._passed[result.id] = TestInfo(id=result.id, file=result.id.split("::", 1)[0],
                                                   duration=result.duration)
        if isinstance(verdict.findings, Coverage):
            for file, by_line in verdict.findings.lines.items():
                for number, ids in by_line.items():
                    self._lines.setdefault(file, {}).setdefault(number, set()).update(ids)

    def next_job(self) -> Job | None:
        """A mutant against finished passing tests that cover it and it has not run yet, else None."""
        while self._order:
            if self._cursor >= len(self._order):
                if self._scanned == self._chunks:
                    return None  # a whole pass found nothing, and no chunk ended since
                self._cursor, self._scanned = 0, self._chunks
            mutant = self._order[self._cursor]
            self._cursor += 1
            if mutant.id in self._dropped or mutant.id in self._running.values():
                continue
            ran = self._ran.get(mutant.id, _Ran())
            if ran.killed:
                continue
            done = {r.id for r in ran.results}
            lines = self._lines.get(mutant.file, {})
            tests = {t for line in self._sites[mutant.id] for t in lines.get(line, ()) if t in self._passed}
            tests -= done
            if tests:
                return self._job(mutant, tuple(sorted(tests, key=lambda t: (self._passed[t].duration, t))))
        return None  # no mutant that may run early (all at module level or run at import)

    def _job(self, mutant: Mutant, tests: tuple[str, ...]) -> Job:
        self._jobs += 1
        job_id = f"{PREFIX}{self._jobs}"
        self._running[job_id] = mutant.id
        job = mutant_job(mutant, self._options, self._sources[mutant.file], tests, self._passed,
                         self._ranges[mutant.file])
        return replace(job, mutant_id=job_id)

    def width(self, workers: int) -> int:
        return workers

    def job_done(self, job: Job, verdict: Verdict) -> None:
        """A speculative job's verdict: keep a kill or the passes, forget anything else."""
        mutant_id = self._running.pop(job.mutant_id, None)
        if mutant_id is None:
            return
        failed = next((r for r in verdict.results if r.outcome == TestOutcome.FAILED), None)
        passed = {r.id for r in verdict.results if r.outcome == TestOutcome.PASSED}
        ran = self._ran.get(mutant_id, _Ran())
        if failed is not None and failed.exception not in PROCESS_EXITS and not verdict.timed_out:
            self._ran[mutant_id] = _Ran(results=ran.results + verdict.results, elapsed=ran.elapsed + verdict.elapsed,
                                        killed=True)
        elif (failed is None and not (verdict.timed_out or verdict.error or verdict.died or verdict.missing)
              and set(job.tests) <= passed):
            self._ran[mutant_id] = _Ran(results=ran.results + verdict.results, elapsed=ran.elapsed + verdict.elapsed)
        else:  # a hang, an exit, a broken run: the mutant runs whole, after the control run
            self._dropped.add(mutant_id)
            self._ran.pop(mutant_id, None)

    def resolve(self, jobs: Sequence[Job],
                by_id: Mapping[str, TestInfo]) -> tuple[list[tuple[Job, Verdict]], list[Job]]:
        """Given the complete baseline's `jobs`: the mutants decided speculatively, as their whole job
        and a verdict of every test they ran, and the jobs still to run (a mutant's remaining tests)."""
        decided: list[tuple[Job, Verdict]] = []
        left: list[Job] = []
        for job in jobs:
            ran = None if job.mutant_id in self._dropped else self._ran.get(job.mutant_id)
            if ran is None or not {r.id for r in ran.results} <= set(job.tests):
                left.append(job)  # never speculated (or, defensively, on tests it no longer has)
                continue
            verdict = Verdict(mutant_id=job.mutant_id, results=ran.results, elapsed=ran.elapsed)
            remaining = tuple(t for t in job.tests if t not in {r.id for r in ran.results})
            if ran.killed or not remaining:
                decided.append((job, verdict))
                continue
            self._whole[job.mutant_id] = (job, ran)
            left.append(timed(job, remaining, by_id, self._options))
        return decided, left

    def whole(self, job: Job, verdict: Verdict) -> tuple[Job, Verdict]:
        """The job of all a mutant's covering tests and a verdict of every test it ran, for the
        verdict of the tests it had left."""
        found = self._whole.get(job.mutant_id)
        if found is None:
            return job, verdict
        whole, ran = found
        return whole, replace(verdict, results=ran.results + verdict.results, elapsed=ran.elapsed + verdict.elapsed)

    @property
    def speculated(self) -> int:
        """Mutants that a speculative run killed or passed (for the benchmark's phase line)."""
        return len(self._ran)
