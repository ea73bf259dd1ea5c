"""Every refusal a problem.md states is a row of its contract table, and the row names a test
that makes the implementation refuse it.

refusals.py finds the statements (an errors section's heading, items and paragraphs; elsewhere
each sentence that names an exception or says raise, refuse or reject) and which rows quote them.
A case of a bullet that no row quotes is reported by its words; a refusal whose rows name only
tests that never expect an exception is reported by its row. Fast: files are read, nothing run.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from contract_tables import Point, problems, read_table, statement, suite_functions
from refusals import coverage, joins_clauses, raising_tests, refusal_statements, suite_raising_tests


@pytest.mark.parametrize("problem", problems())
def test_every_refusal_is_quoted_word_for_word_by_rows_with_tests(problem: str) -> None:
    """Each refusal statement lies wholly inside quotes of contract points, each naming tests
    that exist, so no case of a refusal goes without a row."""
    text, table, defined = statement(problem), read_table(problem), suite_functions(problem)
    statements = refusal_statements(text)
    assert statements, f"{problem}: problem.md states no refusal the pattern finds"
    for found, rows, uncovered in coverage(text, statements, table.points):
        assert rows, f"{problem}: no contract point quotes {found.text!r}"
        assert not uncovered, f"{problem}: no row quotes {uncovered} of {found.text!r}"
        for row in rows:
            assert set(row.tests) & defined, f"{problem} {row.name}: names no test of the suite"


@pytest.mark.parametrize("problem", problems())
def test_every_refusal_row_names_a_test_that_expects_the_error(problem: str) -> None:
    """A row quoting a refusal names at least one test that expects an exception, so that an
    implementation which accepts the input fails it."""
    text, table = statement(problem), read_table(problem)
    raising = suite_raising_tests(problem)
    for found, rows, _ in coverage(text, refusal_statements(text), table.points):
        if not found.refuses:
            continue
        for row in rows:
            assert set(row.tests) & raising, (
                f"{problem} {row.name}: quotes the refusal {found.text!r} but names no test "
                f"that expects an exception: {list(row.tests)}")


@pytest.mark.parametrize("problem", problems())
def test_each_refusal_row_quotes_one_clause(problem: str) -> None:
    """A row quoting a refusal stops at the `;` or `, or` where the next case begins, so that
    each case has a row of its own and its own tests."""
    text, table = statement(problem), read_table(problem)
    for found, rows, _ in coverage(text, refusal_statements(text), table.points):
        if found.refuses:
            lumped = [row.name for row in rows if joins_clauses(row.fragment)]
            assert not lumped, f"{problem}: rows {lumped} quote several cases of {found.text!r}"


TOY_STATEMENT = """\
# Toy

`parse(x)` reads a number. It raises `KeyError` for an unknown name. Zero is fine.

## Errors: `ValueError` when

- `x < 1`, or `x > 9` when checked;
- `x` is NaN.

An empty input is valid.

```python
parse("a")  # raises ValueError
```
"""


def test_the_pattern_finds_each_refusal_and_reports_a_case_no_row_quotes() -> None:
    """The sentence naming an exception, the heading's words and each item and paragraph of the
    errors section are found (not the code block, not the sentence without one); a table that
    quotes only the first case of an item has the second case reported."""
    found = refusal_statements(TOY_STATEMENT)
    assert [(s.text, s.refuses) for s in found] == [
        ("It raises `KeyError` for an unknown name.", True),
        ("`ValueError` when", True),
        ("- `x < 1`, or `x > 9` when checked;", True),
        ("- `x` is NaN.", True),
        ("An empty input is valid.", False),
    ]
    quoted = ("It raises `KeyError` for an unknown name.", "`ValueError` when", "`x < 1`,",
              "`x` is NaN.", "An empty input is valid.")
    points = tuple(Point(name=f"p{i}", fragment=f, tests=("test_a",)) for i, f in enumerate(quoted))
    uncovered = {s.text: words for s, _, words in coverage(TOY_STATEMENT, found, points)}
    assert uncovered["- `x < 1`, or `x > 9` when checked;"] == ["or", "`x", ">", "9`", "when", "checked"]
    assert not any(words for text, words in uncovered.items() if "x > 9" not in text)


def test_a_quote_of_two_clauses_is_told_from_a_quote_of_one() -> None:
    """`;` and `, or` start another case; a list of values, a comma inside parentheses or a break
    at the end of the quote do not."""
    assert joins_clauses("`Scheduler(...)`: `token_budget < 1`, or `max_running < 1` when given.")
    assert joins_clauses("`allocate`: `ValueError` if `seq_id` is live; `OutOfBlocks` if full.")
    assert not joins_clauses("`y_score` holds NaN, `inf` or a missing value;")
    assert not joins_clauses("(`NotFittedError`, a `ValueError`; or another).")
    assert not joins_clauses("`Scheduler(...)`: `token_budget < 1`,")


def test_a_test_expects_an_exception_through_the_helpers_it_uses(tmp_path: Path) -> None:
    """`pytest.raises` in the test or in a module helper or class it names counts; a test that
    only returns values does not."""
    path = tmp_path / "test_toy.py"
    path.write_text(textwrap.dedent("""\
        import pytest

        def refused(call):
            with pytest.raises(ValueError):
                call()

        class Machine:
            def step(self):
                refused(lambda: 1 / 0)

        def test_direct():
            with pytest.raises(KeyError):
                {}["x"]

        def test_through_a_helper():
            refused(int)

        def test_through_a_class():
            Machine().step()

        def test_values_only():
            assert int("1") == 1
        """), encoding="utf-8")
    assert raising_tests(path) == {"test_direct", "test_through_a_helper", "test_through_a_class"}
