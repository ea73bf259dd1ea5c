"""The adaptive order of a mutant's tests: the test likeliest to kill it soonest first, learnt
from what the run saw the tests do to its neighbours (`KillOrder`). Only the order of the tests
and of the jobs changes, never what a job runs or a status."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from bugsmith.harness.config import RunOptions
from bugsmith.harness.job_plan import Tally, cheapest_kill_order, timed
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.shared.protocol import Job


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
