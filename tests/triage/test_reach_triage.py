"""Triage of a project whose survivors need a search that reaches: a boundary constant, a private
helper behind its public caller, and a dead store explained as such."""

from __future__ import annotations

import pytest
from reach_toy import BOUNDARY, DEAD_STORE, PRIVATE, REACH_MUTATORS, make_project

from bugsmith import harness
from bugsmith.harness.config import resolve
from bugsmith.harness.triage import Classification, TriageOptions, describe, triage, triage_text

pytestmark = pytest.mark.slow  # a run and a triage in worker processes

# The clock is a guard only: the planned inputs and the example count decide what is found.
FAST = TriageOptions(search_seconds=120.0, max_examples=200)


@pytest.fixture(scope="module")
def triaged(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("reach"))
    result = harness.run(resolve(root), mutators=REACH_MUTATORS)
    by_site = {(m.span.line, m.original, m.mutated): m for m in result.mutants}
    return by_site, triage(resolve(root), settings=FAST)


def finding(triaged, site):
    by_site, result = triaged
    return next(f for f in result.findings if f.mutant_id == by_site[site].id)


def test_a_boundary_constant_gets_a_verified_test_at_the_boundary(triaged):
    found = finding(triaged, BOUNDARY)
    assert found.classification is Classification.UNDERTESTED
    assert (found.call, found.expected, found.actual) == ("tier(100)", "returns 'small'", "returns 'big'")
    assert found.verified and "the mutated site's constants" in found.tried


def test_a_private_helper_is_reached_through_its_public_caller(triaged):
    found = finding(triaged, PRIVATE)
    assert found.classification is Classification.UNDERTESTED
    assert found.call == "shipping([100])"
    assert found.verified and "from limits.limits import shipping" in found.suggested_test
    assert "through shipping" in found.tried


def test_a_dead_store_is_possibly_equivalent_with_its_argument_and_evidence(triaged):
    found = finding(triaged, DEAD_STORE)
    assert found.classification is Classification.POSSIBLY_EQUIVALENT and not found.suggested_test
    assert found.argument.startswith("a dead store: `seen` is assigned on line 18 and never read after it")
    assert "input(s)" in found.tried and " s from: " in found.tried
    assert f"  argument: {found.argument}" in describe(found)
    _, result = triaged
    assert found.argument in triage_text(result)
