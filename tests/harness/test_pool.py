"""The fork pool: its timeout policy (every timeout is confirmed once, at a longer limit, so a
mutant that only slows a test down is not a hang) and the baseline it runs in its workers."""

from __future__ import annotations

import fcntl
import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from toyproject import CALC

from bugsmith.errors import BaselineError
from bugsmith.harness.baseline import chunk_jobs, run_baseline
from bugsmith.harness.executors import fork_pool
from bugsmith.harness.executors.confirmation import (
    MAX_CONFIRMATIONS,
    TIMEOUT_CONFIRMATION,
    carried_over,
    confirm_timeout,
    next_confirmation,
    with_carried,
)
from bugsmith.harness.executors.fork_pool import SIBLING_WINDOW, ForkPool, _Worker, first_without_sibling
from bugsmith.harness.shared.interpreter import worker_env
from bugsmith.harness.shared.protocol import Job, TestResult, Verdict, WorkerSetup, encode
from bugsmith.harness.shared.tasks import CoverageTask
from bugsmith.harness.verdict import outcome_of

LIMIT = 0.6
SPIN_TEST = "tests/test_calc.py::test_spin"
# `spin`'s body, busy for `seconds` of the process's CPU time, then right.
_BUSY = ("    import time\n    until = time.process_time() + {seconds}\n    while time.process_time() < until:\n"
         "        pass\n    return n\n")


def _setup(root: Path) -> WorkerSetup:
    return WorkerSetup(root=str(root), pytest_args=(), test_paths=("tests",),
                       sources=(str(root / "calcpkg" / "calc.py"),), memory_limit_mb=1024)


def _spin_job(root: Path, body: str) -> Job:
    """`spin` with its loop step replaced by `body`."""
    source = CALC.replace("        i += 1\n", f"        {body}\n")
    assert source != CALC
    return Job(mutant_id=f"spin-{body}", module="calcpkg.calc", path=str(root / "calcpkg" / "calc.py"),
               function="spin", source=source, tests=(SPIN_TEST,), timeout=LIMIT, limits=(LIMIT,))


def _run(pool: ForkPool, job: Job) -> tuple[Verdict, list[Job]]:
    """`job`'s final verdict, and the jobs the pool ran for it: `job`, then its confirmations
    (the verdict is the last one's)."""
    verdicts: list[tuple[Job, Verdict]] = []
    pool.run([job], lambda ran, verdict: verdicts.append((ran, verdict)))
    [(last, verdict)] = verdicts
    return verdict, [job] + [last] * pool.confirmed.get(job.mutant_id, 0)


@pytest.mark.slow
def test_every_timeout_is_confirmed_once_at_the_longer_limit(project: Path, tmp_path: Path) -> None:
    """A mutant that loops (busy) and one that sleeps (as a starved process looks) are each
    re-run once at TIMEOUT_CONFIRMATION x the limit, and stay timeouts."""
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        busy, busy_sent = _run(pool, _spin_job(project, "pass"))
        asleep, asleep_sent = _run(pool, _spin_job(project, "__import__('time').sleep(60)"))
    for verdict, sent in ((busy, busy_sent), (asleep, asleep_sent)):
        assert verdict.timed_out
        assert [job.limits for job in sent] == [(LIMIT,), (LIMIT * TIMEOUT_CONFIRMATION,)]
        assert verdict.elapsed >= LIMIT * TIMEOUT_CONFIRMATION  # the verdict is the longer run's


@pytest.mark.slow
def test_a_mutant_that_only_slows_a_test_down_is_not_a_timeout(project: Path, tmp_path: Path) -> None:
    """Busy for 1.4 CPU-seconds, then right: past the first limit (1 s), within the second
    (2 s). Plain pytest passes it, and so does the pool: the verdict is the test's own. (Limits
    count the child's CPU time, harness.child.test_clock: so does the mutant.)"""
    slow = CALC.replace("    i = 0\n    while i < n:\n        i += 1\n    return i\n", _BUSY.format(seconds=1.4))
    assert slow != CALC
    job = Job(mutant_id="slow", module="calcpkg.calc", path=str(project / "calcpkg" / "calc.py"),
              function="spin", source=slow, tests=(SPIN_TEST,), timeout=1.0, limits=(1.0,))
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        verdict, sent = _run(pool, job)
    assert [job.limits for job in sent] == [(1.0,), (1.0 * TIMEOUT_CONFIRMATION,)]
    assert not verdict.timed_out and [r.outcome for r in verdict.results] == ["passed"]


@pytest.mark.slow
def test_a_first_run_stops_at_its_probe_and_a_test_only_slowed_down_still_passes(project: Path,
                                                                                   tmp_path: Path) -> None:
    """A first run holds each test to its probe (`Job.probes`), far shorter than its limit: a
    loop costs the probe, not the limit, before its confirmations. A mutant that keeps the
    test busy (0.5 CPU-s) past the probe but well within the limit is re-run at the longer
    limit and passes, as under plain pytest: the probe decides no verdict."""
    slow = CALC.replace("    i = 0\n    while i < n:\n        i += 1\n    return i\n", _BUSY.format(seconds=0.5))
    assert slow != CALC
    path = str(project / "calcpkg" / "calc.py")
    job = Job(mutant_id="slow", module="calcpkg.calc", path=path, function="spin", source=slow,
              tests=(SPIN_TEST,), timeout=1.0, limits=(1.0,), probes=(0.2,))
    spin = replace(_spin_job(project, "pass"), probes=(0.2,))
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        verdict, sent = _run(pool, job)
        first: list[Verdict] = []
        pool.run([replace(spin, mutant_id="spin-once")], lambda _, v: first.append(v))
    assert [job.enforced for job in sent] == [(0.2,), (1.0 * TIMEOUT_CONFIRMATION,)]
    assert not verdict.timed_out and [r.outcome for r in verdict.results] == ["passed"]
    [hang] = first
    assert hang.timed_out and hang.elapsed >= LIMIT * TIMEOUT_CONFIRMATION  # it stands on the longer limit
    assert pool.confirmed["spin-once"] == 1  # the probe's timeout was confirmed, never judged


@pytest.mark.slow
def test_a_confirmation_keeps_the_order_it_was_given_whatever_prepare_says(project: Path, tmp_path: Path) -> None:
    """A mutant that hangs test_spin and fails test_spin_zero, under a `prepare` (the adaptive
    order) that puts test_spin first: the confirmation runs test_spin last, so test_spin_zero
    kills it. Prepared again, a confirmation went back to the order that hung, and the verdict
    (a timeout after MAX_CONFIRMATIONS, or a kill once the order had learned otherwise) hung on
    what the other mutants had shown by then."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_spin_zero():\n    assert spin(0) == 0\n")
    zero = "tests/test_calc.py::test_spin_zero"
    hangs_or_fails = CALC.replace("        i += 1\n    return i\n", "        pass\n    return i + 1\n")
    assert hangs_or_fails != CALC
    job = Job(mutant_id="hang-or-fail", module="calcpkg.calc", path=str(project / "calcpkg" / "calc.py"),
              function="spin", source=hangs_or_fails, tests=(zero, SPIN_TEST), timeout=2 * LIMIT,
              limits=(LIMIT, LIMIT))
    sent: list[Job] = []

    def spin_first(job: Job) -> Job:
        sent.append(job)
        return replace(job, tests=(SPIN_TEST, zero), limits=(LIMIT, LIMIT))

    verdicts: list[Verdict] = []
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        pool.run([job], lambda _, verdict: verdicts.append(verdict), prepare=spin_first)
    [verdict] = verdicts
    assert not verdict.timed_out
    assert [(r.id, r.outcome) for r in verdict.results] == [(zero, "failed")]
    assert len(sent) == 1  # the confirmation was not prepared again


@pytest.mark.slow
def test_the_tests_that_passed_before_a_slowed_test_are_not_run_again(project: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """test_clamp passes, then test_spin (busy 0.5 CPU-s) runs past its probe: the confirmation
    runs test_spin alone, at the longer limit, and it passes. The verdict is as if one run had
    done both: both tests, in that order, both passed."""
    slow = CALC.replace("    i = 0\n    while i < n:\n        i += 1\n    return i\n", _BUSY.format(seconds=0.5))
    clamp = "tests/test_calc.py::test_clamp"
    job = Job(mutant_id="slow", module="calcpkg.calc", path=str(project / "calcpkg" / "calc.py"),
              function="spin", source=slow, tests=(clamp, SPIN_TEST), timeout=2.0, limits=(1.0, 1.0),
              probes=(1.0, 0.2))
    confirmations: list[Job] = []

    def recorded(*args: object, **kwargs: object) -> Job | None:
        confirmation = next_confirmation(*args, **kwargs)  # type: ignore[arg-type]
        if confirmation is not None:
            confirmations.append(confirmation)
        return confirmation

    monkeypatch.setattr(fork_pool, "next_confirmation", recorded)
    verdicts: list[tuple[Job, Verdict]] = []
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        pool.run([job], lambda ran, verdict: verdicts.append((ran, verdict)))
    assert [c.tests for c in confirmations] == [(SPIN_TEST,)]
    [(ran, verdict)] = verdicts
    assert ran.tests == (clamp, SPIN_TEST) and ran.limits == (1.0, 1.0 * TIMEOUT_CONFIRMATION)
    assert [(r.id, r.outcome) for r in verdict.results] == [(clamp, "passed"), (SPIN_TEST, "passed")]
    assert outcome_of(ran, verdict).status.value == "survived"


@pytest.mark.slow
def test_as_many_jobs_as_workers_run_on_every_worker(project: Path, tmp_path: Path) -> None:
    """Each worker gets a job to run before any gets a second to queue: two jobs on two workers
    run side by side. Filled one worker after the other, both went to the first worker (a run's
    last two confirmations, two seconds each, ran one after the other while the other waited)."""
    where = tmp_path / "workers.txt"
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + f"\n\ndef test_where():\n    import os\n"
                     f"    with open({str(where)!r}, 'a') as out:\n        out.write(f'{{os.getppid()}}\\n')\n")
    jobs = [Job.unmutated(f"where-{n}", ("tests/test_calc.py::test_where",), timeout=30.0) for n in range(2)]
    verdicts: list[Verdict] = []
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        pool.run(jobs, lambda _, verdict: verdicts.append(verdict))
    assert [r.outcome for v in verdicts for r in v.results] == ["passed", "passed"]
    assert len(set(where.read_text().split())) == 2  # the parent of each test's child: its worker


@pytest.mark.slow
def test_baseline_in_the_workers_equals_the_one_in_its_own_interpreter(project: Path, tmp_path: Path) -> None:
    """Run in chunks on two workers, the baseline finds the same tests, files and per-line
    covering tests as one run of the whole suite in a fresh interpreter."""
    setup = _setup(project)
    alone = run_baseline(setup, worker_env(setup.root))
    with ForkPool(setup, 2, tmp_path / "logs") as pool:
        shared = pool.baseline()
    assert [(t.id, t.file) for t in shared.tests] == [(t.id, t.file) for t in alone.tests]
    assert all(t.duration > 0 for t in shared.tests)
    covered = {file: {line: ids for line, ids in lines.items() if ids} for file, lines in alone.lines.items()}
    assert shared.lines == covered
    assert shared.lines["calcpkg/calc.py"][29] == (SPIN_TEST,)  # `i += 1` in spin's loop


def test_chunks_keep_a_files_tests_together_in_order() -> None:
    """Chunks never mix files, keep collection order, and give each worker several chunks."""
    tests = [f"a.py::t{i}" for i in range(40)] + ["b.py::t0"] + [f"c.py::t{i}" for i in range(22)]
    chunks = [job.tests for job in chunk_jobs(tests, 2)]
    assert [test for chunk in chunks for test in chunk] == tests
    assert all(len({test.split("::")[0] for test in chunk}) == 1 for chunk in chunks)
    assert [len(chunk) for chunk in chunks] == [4] * 10 + [1] + [4] * 5 + [2]
    assert all(isinstance(job.task, CoverageTask) and not job.stop_on_failure for job in chunk_jobs(tests, 2))


@pytest.mark.slow
def test_a_test_that_exits_during_the_baseline_is_named(project: Path, tmp_path: Path) -> None:
    """A suite whose test ends the process stops the baseline with an error naming that test."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_quits():\n    import os\n    os._exit(3)\n")
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        with pytest.raises(BaselineError, match=r"test_quits: .*exited with status 3"):
            pool.baseline()


@pytest.mark.slow
def test_a_child_that_fails_outside_a_test_logs_and_quotes_its_error(project: Path, tmp_path: Path) -> None:
    """An exception that ends a test process outside any test (here a conftest hook's) is in the
    worker's log and in the message, never only "exited with status 0"."""
    (project / "tests" / "conftest.py").write_text(
        "def pytest_runtest_logfinish(nodeid, location):\n"
        "    if nodeid.endswith('test_total'):\n"
        "        raise RuntimeError('the hook exploded')\n")
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        with pytest.raises(BaselineError, match=r"RuntimeError: the hook exploded"):
            pool.baseline()
    logs = "".join(path.read_text() for path in (tmp_path / "logs").glob("*.log"))
    assert "Traceback" in logs and "the hook exploded" in logs


class _IdleWork:
    """Hands out `spin` mutants while the baseline drains, and records what comes back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.given: list[str] = []
        self.done: list[str] = []
        self.chunks = 0

    def chunk_done(self, verdict: Verdict) -> None:
        assert verdict.mutant_id.startswith("baseline-")
        self.chunks += 1

    def next_job(self) -> Job | None:
        if len(self.given) >= 3:
            return None
        job = replace(_spin_job(self.root, "i += 2"), mutant_id=f"speculative-{len(self.given)}", limits=(5.0,))
        self.given.append(job.mutant_id)
        return job

    def job_done(self, job: Job, verdict: Verdict) -> None:
        self.done.append(job.mutant_id)

    def width(self, workers: int) -> int:
        return workers


@pytest.mark.slow
def test_jobs_for_idle_workers_during_the_baseline_change_nothing_of_it(project: Path, tmp_path: Path) -> None:
    """Jobs given to idle workers while the chunks drain each get one verdict of their own, and
    the baseline's tests and coverage are those of a baseline without them."""
    tests = project / "tests" / "test_slow.py"  # a last chunk that keeps one worker busy
    tests.write_text("import time\n\n\ndef test_slow():\n    time.sleep(2)\n")
    setup = _setup(project)
    with ForkPool(setup, 2, tmp_path / "logs") as pool:
        plain = pool.baseline()
        idle_work = _IdleWork(project)
        drained = pool.baseline_with(idle_work)
    assert [t.id for t in drained.tests] == [t.id for t in plain.tests]
    assert drained.lines == plain.lines
    assert idle_work.chunks == len(chunk_jobs([t.id for t in plain.tests], 2))
    assert sorted(idle_work.done) == sorted(idle_work.given)


class _HangingIdleWork(_IdleWork):
    """Hands out one mutant that loops in `spin`, and keeps its verdicts."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.verdicts: list[Verdict] = []

    def next_job(self) -> Job | None:
        if self.given:
            return None
        self.given.append("speculative-hang")
        return replace(_spin_job(self.root, "pass"), mutant_id="speculative-hang")

    def job_done(self, job: Job, verdict: Verdict) -> None:
        super().job_done(job, verdict)
        self.verdicts.append(verdict)


@pytest.mark.slow
def test_an_idle_worker_s_job_that_times_out_is_not_confirmed(project: Path, tmp_path: Path) -> None:
    """A timeout of a job an idle worker ran is forgotten (the mutant runs whole later, confirmed
    then): the pool is done with it after its one run at its own limit, not after the longer
    confirmations."""
    tests = project / "tests" / "test_slow.py"  # a last chunk that keeps one worker busy
    tests.write_text("import time\n\n\ndef test_slow():\n    time.sleep(3)\n")
    with ForkPool(_setup(project), 2, tmp_path / "logs") as pool:
        idle_work = _HangingIdleWork(project)
        pool.baseline_with(idle_work)
        # The same mutant run whole afterwards is confirmed as any other.
        later, sent = _run(pool, replace(_spin_job(project, "pass"), mutant_id="speculative-hang"))
    assert idle_work.done == ["speculative-hang"]
    [verdict] = idle_work.verdicts
    # the time it had, less what it waited for a core (harness.child.test_clock), was its own limit
    assert verdict.timed_out and 0.9 * LIMIT <= verdict.elapsed - verdict.waited < LIMIT * TIMEOUT_CONFIRMATION
    assert later.timed_out and len(sent) == 2 and later.elapsed >= LIMIT * TIMEOUT_CONFIRMATION


def hung(test: str | None, busy: bool = True) -> Verdict:
    """A timeout in `test`; `busy`: the process had the CPU all along (a loop), else a quarter of it."""
    return Verdict(mutant_id="m", timed_out=True, running=test, elapsed=1.0, cpu=1.0 if busy else 0.25)


def test_a_confirmation_runs_the_test_that_ran_past_its_limit_last() -> None:
    """The first run stopped in `slow`; its confirmation runs the other tests first, so a test
    that fails decides the verdict (killed) whichever order the first run took, and `slow`
    gets its doubled limit at the end (a hang stays a timeout when nothing fails). After a busy
    run the others keep their own limits: one that hangs too costs what the first run gave it.
    After a starved run (or one whose CPU time is unknown) every test gets the longer limit."""
    job = Job(mutant_id="m", module="calcpkg.calc", path="calc.py", function="spin", source="",
              tests=("fast", "slow", "other"), timeout=6.0, limits=(1.0, 2.0, 3.0))
    confirmation = confirm_timeout(job, hung("slow"))
    assert confirmation.tests == ("fast", "other", "slow")
    assert confirmation.limits == (1.0, 3.0, 2.0 * TIMEOUT_CONFIRMATION)
    assert confirmation.timeout == 6.0 * TIMEOUT_CONFIRMATION
    for starved in (hung("slow", busy=False), Verdict(mutant_id="m", timed_out=True, running="slow")):
        assert confirm_timeout(job, starved).limits == tuple(limit * TIMEOUT_CONFIRMATION for limit in (1.0, 3.0, 2.0))
    # stopped outside any test (the import, the collection): the order stays
    unplaced = confirm_timeout(job, hung(None))
    assert unplaced.tests == job.tests and unplaced.limits == (2.0, 4.0, 6.0)


def test_the_tests_not_seen_to_hang_keep_their_probes_until_the_last_confirmation() -> None:
    """A job that ran its probes (short first-run limits) first: after a busy timeout the test
    that hung goes to the end at twice its own limit, the others keep their probes; after a
    starved run, or in the last confirmation, every test gets twice its own limit. A
    confirmation carries no probes: what it sets is what it is held to."""
    job = Job(mutant_id="m", module="calcpkg.calc", path="calc.py", function="spin", source="",
              tests=("fast", "slow", "other"), timeout=6.0, limits=(1.0, 2.0, 3.0), probes=(0.25, 1.25, 2.25))
    assert job.enforced == job.probes
    confirmation = confirm_timeout(job, hung("slow"))
    assert confirmation.tests == ("fast", "other", "slow")
    assert confirmation.limits == (0.25, 2.25, 2.0 * TIMEOUT_CONFIRMATION)
    assert confirmation.probes == () and confirmation.enforced == confirmation.limits
    starved = confirm_timeout(job, hung("slow", busy=False))
    assert starved.enforced == tuple(limit * TIMEOUT_CONFIRMATION for limit in (1.0, 3.0, 2.0))
    # a loop on a loaded machine: half its time waiting for a core, all the rest on the CPU
    loaded = Verdict(mutant_id="m", timed_out=True, running="slow", elapsed=2.0, cpu=0.95, waited=1.0)
    assert confirm_timeout(job, loaded).limits == confirmation.limits
    assert Verdict.from_dict(loaded.to_dict()) == loaded
    second = next_confirmation(confirmation, hung("fast"), 1, job)
    assert second is not None and second.limits == (2.25, 4.0, 2.0)
    last = next_confirmation(second, hung("other"), MAX_CONFIRMATIONS - 1, job)
    assert last is not None and last.tests == ("slow", "fast", "other")
    assert last.limits == (4.0, 2.0, 6.0)  # every test at twice its own limit


def test_a_mutant_that_hangs_several_tests_is_confirmed_until_every_other_test_ran() -> None:
    """Each confirmation moves the test it hung in to the end at the longer limit; it stands as
    a timeout when it hangs in a test already moved (every other test passed), or after
    MAX_CONFIRMATIONS re-runs, the last of which gives every test the longer limit."""
    job = Job(mutant_id="m", module="calcpkg.calc", path="calc.py", function="spin", source="",
              tests=("a", "b", "c", "d"), timeout=4.0, limits=(1.0, 1.0, 1.0, 1.0))
    first = next_confirmation(job, hung("a"), 0)
    assert first is not None and first.tests == ("b", "c", "d", "a") and first.limits == (1.0, 1.0, 1.0, 2.0)
    second = next_confirmation(first, hung("c"), 1, job)
    assert second is not None and second.tests == ("b", "d", "a", "c") and second.limits == (1.0, 1.0, 2.0, 2.0)
    assert next_confirmation(second, hung("a"), 2, job) is None  # b and d passed: it stands
    third = next_confirmation(second, hung("d"), 2, job)
    assert third is not None and third.tests == ("b", "a", "c", "d") and third.limits == (2.0,) * 4
    assert next_confirmation(third, hung("b"), MAX_CONFIRMATIONS, job) is None
    assert next_confirmation(job, Verdict(mutant_id="m", results=()), 0) is None  # not a timeout
    # starved in the second run: the third gets every limit doubled, once
    starved = next_confirmation(first, hung("c", busy=False), 1, job)
    assert starved is not None and starved.limits == (2.0,) * 4


def test_what_passed_before_a_hang_is_carried_into_the_last_run_of_its_chain() -> None:
    """a and b passed, c hung: the confirmation runs d, then c at the longer limit; d fails. The
    outcome is the one of a run of a, b, d, c: killed by d after three tests, covered by all four."""
    job = Job(mutant_id="m", module="calcpkg.calc", path="calc.py", function="spin", source="",
              tests=("a", "b", "c", "d"), timeout=4.0, limits=(1.0, 1.0, 1.0, 1.0))
    passed = tuple(TestResult(id=test, outcome="passed", when="call") for test in ("a", "b"))
    timeout = replace(hung("c"), results=passed)
    confirmation = next_confirmation(job, timeout, 0)
    assert confirmation is not None and confirmation.tests == ("d", "c") and confirmation.limits == (1.0, 2.0)
    assert carried_over(timeout, confirmation) == passed
    failed = Verdict(mutant_id="m", results=(TestResult(id="d", outcome="failed", when="call", exception="AssertionError"),))
    ran, verdict = with_carried(confirmation, failed, passed, job)
    assert ran.tests == ("a", "b", "d", "c") and ran.limits == (1.0, 1.0, 1.0, 2.0)
    outcome = outcome_of(ran, verdict)
    assert outcome.status.value == "killed" and outcome.killed_by == ("d",) and outcome.tests_run == 3
    assert with_carried(confirmation, failed, (), job) == (confirmation, failed)  # nothing carried


def _of(function: str | None, name: str) -> Job:
    return Job(mutant_id=name, module="calcpkg.calc", path="calc.py", function=function, source="",
               tests=("t",), timeout=1.0)


def test_a_job_of_a_function_a_worker_holds_waits_for_one_of_another_function() -> None:
    pending = [_of("spin", "s2"), _of("spin", "s3"), _of("clamp", "c1"), _of("spin", "s4")]
    assert first_without_sibling(pending, {("calc.py", "spin")}) == 2
    assert first_without_sibling(pending, {("calc.py", "clamp")}) == 0
    assert first_without_sibling(pending, {("other.py", "spin")}) == 0  # a function of the same name elsewhere
    assert first_without_sibling([_of("spin", "s2"), _of(None, "baseline-3")], {("calc.py", "spin")}) == 1  # never held back
    assert first_without_sibling(pending[:2], {("calc.py", "spin")}) == 0  # nothing else to send: the first
    far = [_of("spin", f"s{n}") for n in range(SIBLING_WINDOW)] + [_of("clamp", "c1")]
    assert first_without_sibling(far, {("calc.py", "spin")}) == 0  # beyond the window: the first


@pytest.mark.slow
def test_a_mutant_is_prepared_after_the_verdict_of_its_functions_mutant_before_it(project: Path,
                                                                                  tmp_path: Path) -> None:
    """One worker, two jobs sent ahead: spin's first mutant runs, and the job queued behind it
    is clamp's, not spin's second, which is prepared (its tests ordered) once the first's
    verdict is in, as the adaptive order needs to learn from it."""
    path = str(project / "calcpkg" / "calc.py")
    clamp = "tests/test_calc.py::test_clamp"

    def job(mutant_id: str, function: str, old: str, new: str, test: str) -> Job:
        source = CALC.replace(old, new)
        assert source != CALC
        return Job(mutant_id=mutant_id, module="calcpkg.calc", path=path, function=function, source=source,
                   tests=(test,), timeout=10.0, limits=(10.0,))

    jobs = [job("spin-1", "spin", "        i += 1\n", "        i += 2\n", SPIN_TEST),
            job("spin-2", "spin", "    return i\n", "    return i + 1\n", SPIN_TEST),
            job("clamp-1", "clamp", "        return lo\n", "        return hi\n", clamp)]
    events: list[str] = []

    def prepare(job: Job) -> Job:
        events.append(f"prepare {job.mutant_id}")
        return job

    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        pool.run(jobs, lambda ran, _: events.append(f"verdict {ran.mutant_id}"), prepare=prepare)
    assert events.index("prepare spin-2") > events.index("verdict spin-1")
    assert events[:2] == ["prepare spin-1", "prepare clamp-1"]
    assert sorted(e for e in events if e.startswith("verdict")) == ["verdict clamp-1", "verdict spin-1", "verdict spin-2"]


@pytest.mark.slow
def test_a_timeouts_confirmation_runs_before_the_jobs_still_pending(project: Path, tmp_path: Path) -> None:
    """One worker, one job at a time: a mutant that loops is confirmed before the two jobs
    queued behind it run. A confirmation is a run's longest job; left to the end, they ran two
    by two there, and an odd one kept a worker busy while the other idled."""
    clamp = "tests/test_calc.py::test_clamp"
    source = CALC.replace("        return lo\n", "        return hi\n")
    assert source != CALC
    quick = [Job(mutant_id=f"clamp-{n}", module="calcpkg.calc", path=str(project / "calcpkg" / "calc.py"),
                 function="clamp", source=source, tests=(clamp,), timeout=10.0, limits=(10.0,)) for n in (1, 2)]
    hangs = _spin_job(project, "pass")
    verdicts: list[tuple[str, bool]] = []
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        pool.run([hangs, *quick], lambda ran, verdict: verdicts.append((ran.mutant_id, verdict.timed_out)), depth=1)
        assert pool.confirmed == {hangs.mutant_id: 1}
    assert verdicts == [(hangs.mutant_id, True), ("clamp-1", False), ("clamp-2", False)]


@pytest.mark.parametrize("tests", [1, 2, 4, 9])
@pytest.mark.parametrize("busy", [True, False])
@pytest.mark.parametrize("probe", [None, 0.25])
def test_a_timeout_stands_only_on_a_test_that_ran_past_the_longer_limit(tests: int, busy: bool,
                                                                         probe: float | None) -> None:
    """Whichever tests a mutant hangs, busy or starved: the test a timeout stands on had
    TIMEOUT_CONFIRMATION x its own limit (a starved process, a test only slowed down, gets the
    longer wait), every test before it in that run is one the mutant did not hang (it passed,
    or a failure there would have made it killed), no test had more than the longer limit, and
    no run is added after it stands."""
    names = tuple(f"t{i}" for i in range(tests))
    own = {name: 1.0 + i for i, name in enumerate(names)}
    start = Job(mutant_id="m", module="calc", path="calc.py", function="f", source="", tests=names,
                timeout=sum(own.values()), limits=tuple(own.values()),
                probes=() if probe is None else tuple(limit - 1.0 + probe for limit in own.values()))
    for hangs in _hang_sets(names):
        job, done, runs = start, 0, 1
        stuck = next(test for test in job.tests if test in hangs)
        while (confirmation := next_confirmation(job, hung(stuck, busy), done, start)) is not None:
            job, done, runs = confirmation, done + 1, runs + 1
            assert all(limit <= own[test] * TIMEOUT_CONFIRMATION for test, limit in zip(job.tests, job.enforced))
            stuck = next(test for test in job.tests if test in hangs)
        assert runs <= 1 + MAX_CONFIRMATIONS
        assert job.enforced[job.tests.index(stuck)] == own[stuck] * TIMEOUT_CONFIRMATION, (hangs, job)
        assert set(job.tests[:job.tests.index(stuck)]).isdisjoint(hangs) or runs == 1 + MAX_CONFIRMATIONS


def _hang_sets(names: tuple[str, ...]) -> list[frozenset[str]]:
    """Every non-empty set of hung tests among the first six (the others pass)."""
    head = names[:6]
    return [frozenset(t for bit, t in enumerate(head) if mask >> bit & 1) for mask in range(1, 2 ** len(head))]


@pytest.mark.parametrize(("busy", "longer"), [(True, 1), (False, MAX_CONFIRMATIONS)])
@pytest.mark.parametrize("probe", [1.0, 0.25])
def test_a_busy_hang_in_every_test_waits_the_longer_limit_once(busy: bool, longer: int, probe: float) -> None:
    """A mutant that hangs every covering test in a loop (the process had the CPU): the first
    run and the first two confirmations each stop in a test at its probe (a job without probes:
    its own limit), only the last at the longer one. A starved process gets the longer limit
    in every confirmation."""
    names = tuple(f"t{i}" for i in range(27))
    job = start = Job(mutant_id="m", module="calc", path="calc.py", function="f", source="", tests=names,
                      timeout=27.0, limits=(1.0,) * 27, probes=() if probe == 1.0 else (probe,) * 27)
    waited, done = job.enforced[0], 0
    while (confirmation := next_confirmation(job, hung(job.tests[0], busy), done, start)) is not None:
        job, done = confirmation, done + 1
        waited += job.enforced[0]
    assert done == MAX_CONFIRMATIONS
    assert waited == probe + (MAX_CONFIRMATIONS - longer) * probe + longer * TIMEOUT_CONFIRMATION


# A mutated module of about 300 KB, as a job carries it (whole, with its top-level statement).
_LONG_COMMENT = ("# " + "x" * 77 + "\n") * 4000


def test_jobs_of_a_large_module_queue_ahead_and_get_their_verdicts(project: Path, tmp_path: Path) -> None:
    """Jobs of a big file are still sent one ahead of the one running (they wait in the worker's
    pipe, widened where the OS allows) and read whole: a killed and a surviving mutant of `total`,
    in a module padded to ~300 KB, each get their own verdict."""
    killed = CALC.replace("        s += x\n", "        s -= x\n") + _LONG_COMMENT
    survived = CALC.replace("    s = 0\n", "    s = 0 * 1\n") + _LONG_COMMENT
    assert killed != survived and len(killed.encode()) > 300_000
    path = str(project / "calcpkg" / "calc.py")
    jobs = [Job(mutant_id=name, module="calcpkg.calc", path=path, function="total", source=source,
                tests=("tests/test_calc.py::test_total",), timeout=30.0)
            for name, source in (("killed", killed), ("survived", survived))]
    verdicts: dict[str, Verdict] = {}
    with ForkPool(_setup(project), 1, tmp_path / "logs") as pool:
        pool.run(jobs, lambda job, verdict: verdicts.__setitem__(job.mutant_id, verdict))
    assert [r.outcome for r in verdicts["killed"].results] == ["failed"]
    assert [r.outcome for r in verdicts["survived"].results] == ["passed"]


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="pipes are widened on Linux only")
def test_a_job_larger_than_a_default_pipe_waits_in_the_widened_one(tmp_path: Path) -> None:
    """Two jobs of 300 KB fit in a worker's job pipe that nobody reads yet: the second is
    queued behind the first (before, anything past 60 KB waited for the worker to be free,
    which then waited for this process between every two jobs)."""
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as stdout, os.fdopen(write_end, "wb", buffering=0) as stdin:
        worker = _Worker(process=None, stdin=stdin, stdout=stdout, log_path=tmp_path / "log", mark="m")  # type: ignore[arg-type]
        job = Job(mutant_id="big", module="m", path="m.py", function="f", source=_LONG_COMMENT,
                  tests=("t",), timeout=1.0)
        sent = threading.Thread(target=lambda: [worker.offer(job), worker.offer(job)], daemon=True)
        sent.start()
        sent.join(timeout=60)  # a pipe too small blocks the first write forever
        assert not sent.is_alive()
        assert worker.room >= 2 * len(encode(job)) and len(worker.jobs) == 2
