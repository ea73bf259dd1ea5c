"""The exercise builder's runs time each test as a mutation run does: each test has its own
limit and a short first-run limit, so a bug that hangs one test costs that test's limit before
its confirmation, and every other test of the run is still reported."""

from __future__ import annotations

import pytest

from bugsmith.harness import config
from bugsmith.harness.discovery import source_files
from bugsmith.harness.evaluate import Evaluator
from bugsmith.harness.shared.protocol import TestOutcome
from bugsmith.mutators.engine import enumerate_mutants
from tests.harness.toyproject import TOY_MUTATORS, project  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow


def test_a_bug_that_hangs_one_test_is_a_timeout_with_every_other_test_reported(project):  # noqa: F811
    options = config.resolve(project, ("calcpkg",), tests=("tests",), jobs=2)
    mutants = enumerate_mutants(source_files(options), root=project, mutators=TOY_MUTATORS).mutants
    hang = next(m for m in mutants if m.function == "spin" and m.operator == "toy/delete-aug-assign")
    with Evaluator(options) as ev:
        job = ev.job("hang", [hang])
        assert len(job.limits) == len(job.tests) == len(job.probes) == len(ev.tests)
        assert all(probe <= limit for probe, limit in zip(job.probes, job.limits, strict=True))
        verdict = ev.run([job])["hang"]
    assert verdict.timed_out and verdict.running and verdict.running.endswith("::test_spin")
    outcomes = {result.id.rsplit("::", 1)[1]: result.outcome for result in verdict.results}
    others = {test.rsplit("::", 1)[1] for test in ev.tests} - {"test_spin"}
    assert {test: outcomes.get(test) for test in others} == dict.fromkeys(others, TestOutcome.PASSED)
