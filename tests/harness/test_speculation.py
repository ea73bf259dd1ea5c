"""Mutants run while the baseline drains give the verdicts, covering tests and keys of a run that waits."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from toyproject import TOY_MUTATORS

from bugsmith.harness.config import resolve
from bugsmith.harness.import_time import import_calls
from bugsmith.harness.outcome import Status, TestInfo
from bugsmith.harness.shared.protocol import Job, TestResult, Verdict
from bugsmith.harness.shared.tasks import Coverage
from bugsmith.harness.speculation import PREFIX, Speculation
from bugsmith.harness.verdict import outcome_of
from bugsmith.mutators.engine import enumerate_mutants

SOURCE = textwrap.dedent('''\
    LIMIT = 10


    def below(x):
        return x < LIMIT
    ''')
FILE = "pkg/mod.py"
# Line 5 (`return x < LIMIT`) is run by these tests; line 1 by the import.
A, B, C = "tests/test_mod.py::test_a", "tests/test_mod.py::test_b", "tests/test_mod.py::test_c"


@pytest.fixture
def setup(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / FILE).write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\n')
    options = resolve(tmp_path)
    mutants = enumerate_mutants([tmp_path / FILE], root=tmp_path, mutators=TOY_MUTATORS).mutants
    in_function = next(m for m in mutants if m.function == "below" and m.mutated == "<=")
    at_module = next(m for m in mutants if m.function is None)
    speculation = Speculation(mutants, {FILE: SOURCE}, options, {FILE: import_calls(SOURCE)})
    return speculation, in_function, at_module


def chunk(*results: tuple[str, str]) -> Verdict:
    """A baseline chunk's verdict: each test's result; every test ran line 5 and, at import, line 1."""
    ids = tuple(test for test, _ in results)
    return Verdict(mutant_id="baseline-0",
                   results=tuple(TestResult(id=t, outcome=o, when="call", duration=0.1) for t, o in results),
                   findings=Coverage(lines={FILE: {5: ids}}))


def whole_job(mutant_id: str, tests: tuple[str, ...]) -> Job:
    """The job the runner builds from the complete baseline."""
    return Job(mutant_id=mutant_id, module="pkg.mod", path="/x/pkg/mod.py", function="below", source="...",
               tests=tests, timeout=10.0, limits=tuple(1.0 for _ in tests))


BY_ID = {t: TestInfo(id=t, file="tests/test_mod.py", duration=0.1) for t in (A, B, C)}


def drain(speculation: Speculation) -> list[Job]:
    jobs = []
    while (job := speculation.next_job()) is not None:
        jobs.append(job)
    return jobs


def test_only_finished_passing_tests_that_run_the_site_are_run_and_never_module_level_code(setup) -> None:
    """A chunk's tests that passed unmutated run against the function mutants they cover; a test
    that failed unmutated never runs (it could never kill), nor does a module-level mutant."""
    speculation, in_function, _ = setup
    assert speculation.next_job() is None  # no chunk has ended
    speculation.chunk_done(chunk((A, "passed"), (B, "failed")))
    jobs = drain(speculation)
    assert jobs and all(job.mutant_id.startswith(PREFIX) for job in jobs)
    assert all(job.tests == (A,) and job.function == "below" for job in jobs)
    mine = [job for job in jobs if job.source == in_function.apply(SOURCE)]
    assert len(mine) == 1


def test_a_speculative_kill_gets_the_outcome_of_the_whole_job(setup) -> None:
    """Killed during the baseline: the stored outcome names every covering test of the complete
    baseline (its cache key is computed from them as without pipelining) and the killing test."""
    speculation, in_function, _ = setup
    speculation.chunk_done(chunk((A, "passed")))
    job = next(j for j in drain(speculation) if j.source == in_function.apply(SOURCE))
    speculation.job_done(job, Verdict(mutant_id=job.mutant_id, elapsed=0.2, results=(
        TestResult(id=A, outcome="failed", when="call", exception="AssertionError"),)))
    speculation.chunk_done(chunk((B, "passed"), (C, "passed")))
    whole = whole_job(in_function.id, (A, B, C))
    decided, left = speculation.resolve([whole], BY_ID)
    assert left == []
    [(job_back, verdict)] = decided
    outcome = outcome_of(job_back, verdict)
    assert outcome.status is Status.KILLED and outcome.killed_by == (A,)
    assert outcome.covered_by == (A, B, C) and outcome.mutant_id == in_function.id


def test_a_speculative_survivor_runs_every_remaining_covering_test(setup) -> None:
    """Passing the finished tests decides nothing: the mutant then runs the covering tests it has
    not run, and its verdict counts every test it ran."""
    speculation, in_function, _ = setup
    speculation.chunk_done(chunk((A, "passed")))
    job = next(j for j in drain(speculation) if j.source == in_function.apply(SOURCE))
    speculation.job_done(job, Verdict(mutant_id=job.mutant_id, results=(
        TestResult(id=A, outcome="passed", when="call"),)))
    speculation.chunk_done(chunk((B, "passed"), (C, "passed")))
    decided, [rest] = speculation.resolve([whole_job(in_function.id, (A, B, C))], BY_ID)
    assert decided == [] and rest.tests == (B, C) and len(rest.limits) == 2
    verdict = Verdict(mutant_id=in_function.id, results=(TestResult(id=B, outcome="passed", when="call"),
                                                        TestResult(id=C, outcome="passed", when="call")))
    outcome = outcome_of(*speculation.whole(rest, verdict))
    assert outcome.status is Status.SURVIVED and outcome.tests_run == 3 and outcome.covered_by == (A, B, C)


def test_a_speculative_hang_or_crash_is_forgotten(setup) -> None:
    """A timeout or a died process during the baseline is no verdict: the mutant runs whole later
    (with the timeout confirmation a run that waits gives it) and is not speculated on again."""
    speculation, in_function, _ = setup
    speculation.chunk_done(chunk((A, "passed")))
    job = next(j for j in drain(speculation) if j.source == in_function.apply(SOURCE))
    speculation.job_done(job, Verdict(mutant_id=job.mutant_id, timed_out=True, running=A))
    speculation.chunk_done(chunk((B, "passed")))
    assert all(j.source != in_function.apply(SOURCE) for j in drain(speculation))
    whole = whole_job(in_function.id, (A, B))
    assert speculation.resolve([whole], BY_ID) == ([], [whole])


def test_a_mutant_is_run_again_on_tests_that_finish_later_only(setup) -> None:
    """A mutant that passed the tests of one chunk runs only the new tests of a later one."""
    speculation, in_function, _ = setup
    speculation.chunk_done(chunk((A, "passed")))
    job = next(j for j in drain(speculation) if j.source == in_function.apply(SOURCE))
    speculation.job_done(job, Verdict(mutant_id=job.mutant_id, results=(
        TestResult(id=A, outcome="passed", when="call"),)))
    speculation.chunk_done(chunk((B, "passed")))
    again = [j for j in drain(speculation) if j.source == in_function.apply(SOURCE)]
    assert [j.tests for j in again] == [(B,)]


def test_no_function_mutant_means_no_job(setup) -> None:
    """With only module-level mutants there is nothing to run early, chunk after chunk."""
    speculation, _, at_module = setup
    alone = Speculation([at_module], {FILE: SOURCE}, resolve_options(speculation), {FILE: import_calls(SOURCE)})
    alone.chunk_done(chunk((A, "passed")))
    assert alone.next_job() is None and alone.next_job() is None


def resolve_options(speculation: Speculation):
    return speculation._options


def test_coverage_findings_keep_where_the_code_warned_and_raised_across_the_pipe() -> None:
    """A verdict's coverage carries the places the code under test warned and where failing
    tests' tracebacks ended in it, and an old record without them reads as none."""
    found = Coverage(lines={FILE: {5: ("t::a",)}}, warned=((FILE, 5),), raised=((FILE, 7),))
    verdict = Verdict(mutant_id="m", findings=found)
    assert Verdict.from_dict(verdict.to_dict()).findings == found
    old = {key: value for key, value in found.to_dict().items() if key not in ("warned", "raised")}
    assert Coverage.from_dict(old).warned == () and Coverage.from_dict(old).raised == ()
