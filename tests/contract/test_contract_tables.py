"""Each problem's contract table maps every point of its problem.md to tests that exist.

Both directions: every paragraph, list item and code block of problem.md is quoted by a row
(or listed as not a contract point, with the reason), and every test of the suite checks some
point of the table, so a test of something problem.md does not promise has no row to go to.
"""

from __future__ import annotations

import pytest
from contract_tables import blocks, flat, problems, read_table, statement, suite_functions, table_gaps


def test_every_problem_has_a_table_and_every_table_a_problem() -> None:
    """A problem added to reference/ needs its table here, or its suite's contract goes unchecked."""
    missing, stale = table_gaps()
    assert not missing, f"no tests/contract/tables/<problem>.md for {missing}"
    assert not stale, f"tables of no problem under reference/: {stale}"


@pytest.mark.parametrize("problem", problems())
def test_every_quoted_fragment_is_in_problem_md(problem: str) -> None:
    """A row quotes problem.md word for word, so a changed statement shows up here."""
    text = flat(statement(problem))
    table = read_table(problem)
    missing = [f.fragment for f in (*table.points, *table.exempt) if flat(f.fragment) not in text]
    assert not missing, f"{problem}: not in problem.md: {missing}"


@pytest.mark.parametrize("problem", problems())
def test_every_named_test_exists(problem: str) -> None:
    """Each point names at least one test, and each named test is a function of the suite."""
    defined = suite_functions(problem)
    for point in read_table(problem).points:
        assert point.tests, f"{problem} {point.name}: no test checks it"
        unknown = sorted(set(point.tests) - defined)
        assert not unknown, f"{problem} {point.name}: no such test {unknown}"


@pytest.mark.parametrize("problem", problems())
def test_every_block_of_problem_md_is_accounted_for(problem: str) -> None:
    """Every paragraph, list item and code block of problem.md is a checked point or exempt."""
    table = read_table(problem)
    fragments = [flat(f.fragment) for f in (*table.points, *table.exempt)]
    uncovered = [block for block in blocks(statement(problem))
                 if not any(fragment in block for fragment in fragments)]
    assert not uncovered, f"{problem}: no row quotes {uncovered}"


@pytest.mark.parametrize("problem", problems())
def test_every_test_checks_a_contract_point(problem: str) -> None:
    """A test that no contract point names checks something problem.md does not promise."""
    named = {test for point in read_table(problem).points for test in point.tests}
    orphans = sorted(suite_functions(problem) - named)
    assert not orphans, f"{problem}: tests without a contract point: {orphans}"


@pytest.mark.parametrize("problem", problems())
def test_point_names_are_unique(problem: str) -> None:
    names = [point.name for point in read_table(problem).points]
    assert len(names) == len(set(names)), f"{problem}: repeated point names"
