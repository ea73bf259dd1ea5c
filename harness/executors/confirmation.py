"""Timeouts confirmed before they stand: the rule every executor shares, that a timeout on a
loaded machine gets one longer second run, and a confirmation does not re-run what passed."""

from __future__ import annotations

from dataclasses import replace

from bugsmith.harness.shared.protocol import Job, TestOutcome, TestResult, Verdict

# Every timeout is confirmed once with this many times the limit: a process starved on a loaded
# machine, and a mutant that only makes a test slower (plain pytest would pass it), must not be
# called a hang, while a mutant that loops forever costs one more, longer wait.
TIMEOUT_CONFIRMATION = 2.0
# A mutant that hangs several tests is re-run at most this many times, each time with the test it
# hung last, before it stands as a timeout.
MAX_CONFIRMATIONS = 3
# A process that ran out of time and used at least this share of it on the CPU (less the time it
# waited for a core) was busy (a loop), not asleep: its confirmation may keep the other tests'
# short first-run limits (confirm_timeout). Not a verdict's threshold, a cost's: a process
# called busy that was not costs at most the confirmations' probes before the last one gives
# every test the longer limit, while a loop called asleep re-runs every test at the longer
# limit at once.
HAD_THE_CPU = 0.5



def had_the_cpu(verdict: Verdict) -> bool:
    """Whether the process that ran out of time ran for (nearly) all of it, of the time it was
    not kept waiting for a core (`Verdict.waited`, on a loaded machine): a busy loop, not a
    process that sleeps or one starved where the waits are unknown. Unknown counts as starved."""
    return verdict.cpu is not None and verdict.cpu >= HAD_THE_CPU * (verdict.elapsed - verdict.waited)


def confirm_timeout(job: Job, verdict: Verdict | None = None, *, done: int = 0, first: Job | None = None) -> Job:
    """The job that confirms `verdict`, a timeout of `job` after `done` confirmations of `first`
    (the job as it first ran): the test that ran past its limit moved to the end at
    TIMEOUT_CONFIRMATION times its own limit, so that a mutant that hangs one test and fails
    another is killed whichever of the two its first order put first (plain pytest, given the
    time, reports the failure too).

    When the process had the CPU (`had_the_cpu`), the tests not yet seen to hang keep the short
    limit of a first run (`Job.probes`): one that hangs too costs no more than that, and is moved
    to the end, at the longer limit, by the next confirmation. After a starved run, and in the
    last confirmation (MAX_CONFIRMATIONS), every test gets the longer limit: a timeout stands
    only on a test that ran past it, so a starved process or a test the mutant only slows down
    is never a hang.

    The tests that passed in `verdict` before the one that hung are not run again (their
    results are `carried_over` into the verdict that ends the chain, `with_carried`): a mutant
    that slows one test down after eighty that pass paid for those eighty once per confirmation,
    up to four times in all. A test's result is taken not to depend on the tests run before it,
    as the adaptive order (harness.mutation_run.kill_order.KillOrder) already takes it."""
    first = first or job
    own = dict(zip(first.tests, first.limits, strict=True)) if len(first.limits) == len(first.tests) else {}
    probe = dict(zip(first.tests, first.probes, strict=True)) if len(first.probes) == len(first.tests) else own
    tests, limits = job.tests, job.limits
    stuck = None if verdict is None else verdict.running
    if stuck in tests and len(limits) == len(tests) and set(tests) <= own.keys():
        position = tests.index(stuck)
        passed = {result.id for result in verdict.results if result.outcome == TestOutcome.PASSED} if verdict else set()
        tests = tuple(test for test in tests[:position] if test not in passed) + tests[position + 1:] + (stuck,)
        moved = set(tests[len(tests) - done - 1:])  # this one and those earlier confirmations moved
        every = done + 1 >= MAX_CONFIRMATIONS or verdict is None or not had_the_cpu(verdict)
        limits = tuple(own[test] * TIMEOUT_CONFIRMATION if every or test in moved else probe[test]
                       for test in tests)
    elif not done:  # stopped outside any test (the import, the collection): everything, once
        limits = tuple(limit * TIMEOUT_CONFIRMATION for limit in limits)
    return replace(job, tests=tests, limits=limits, probes=(), timeout=first.timeout * TIMEOUT_CONFIRMATION)


def carried_over(verdict: Verdict, confirmation: Job) -> tuple[TestResult, ...]:
    """The results of `verdict`, a timed-out run, that its `confirmation` does not run again."""
    again = set(confirmation.tests)
    return tuple(result for result in verdict.results if result.id not in again)


def with_carried(job: Job, verdict: Verdict, carried: tuple[TestResult, ...], first: Job) -> tuple[Job, Verdict]:
    """The last run of a confirmation chain (`job`, `verdict`) as if it had run the `carried`
    tests first too (they passed in an earlier run of the chain, in that order): every test of
    `first`, the job as it first ran, with its own limit, and every result."""
    if not carried:
        return job, verdict
    ahead = tuple(result.id for result in carried)
    own = dict(zip(first.tests, first.limits, strict=True)) if len(first.limits) == len(first.tests) else {}
    limits = job.limits
    if len(limits) == len(job.tests) and set(ahead) <= own.keys():
        limits = tuple(own[test] for test in ahead) + limits
    return (replace(job, tests=ahead + job.tests, limits=limits),
            replace(verdict, results=carried + verdict.results))


def next_confirmation(job: Job, verdict: Verdict, done: int, first: Job | None = None) -> Job | None:
    """The run that confirms `verdict`, a timeout of `job` after `done` confirmations of `first`
    (the job as it first ran; `job` itself when `done` is 0), or None when it stands: after the
    first, a timeout is re-run only while it stopped in a test not yet moved to the end (the
    last `done` tests), up to MAX_CONFIRMATIONS; so a timeout means every test that was not seen
    to hang passed, and the test it stands on ran past the longer limit."""
    if not verdict.timed_out or done >= MAX_CONFIRMATIONS:
        return None
    if done and (verdict.running not in job.tests or job.tests.index(verdict.running) >= len(job.tests) - done):
        return None
    return confirm_timeout(job, verdict, done=done, first=first)
