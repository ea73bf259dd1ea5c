"""The Markdown summary: short, escaped, and naming the survivors that matter most."""

from __future__ import annotations

import dataclasses

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report import markdown_summary
from bugsmith.harness.report.markdown import code, prose, text
from bugsmith.mutators.mutant import Family

from .runs import SNIPPET, make_run


def test_summary_has_score_counts_families_and_survivors(run: RunResult) -> None:
    """Score, a count per status, a row per family and every survivor with its id appear."""
    md = markdown_summary(run)
    assert md.startswith("## bugsmith mutation score: 50.0%\n")
    assert "| killed | timeout | survived | no coverage | error | equivalent |" in md
    assert "| 1 | 1 | 1 | 1 | 1 | 1 |" in md
    assert "| window | " in md and "| classic | " in md
    for outcome in run.outcomes:
        if outcome.status in (Status.SURVIVED, Status.NO_COVERAGE):
            assert f"`{outcome.mutant_id}`" in md


def test_survivor_list_is_capped_and_spread_over_families() -> None:
    """Only `limit` survivors are listed, taking each family in turn (realistic first), and the cut is stated."""
    run = make_run({"a.py": SNIPPET, "b.py": SNIPPET}, (Status.SURVIVED,))
    family = {"a.py": Family.CLASSIC, "b.py": Family.LEAKAGE}
    run = dataclasses.replace(run, mutants=tuple(dataclasses.replace(m, family=family[m.file]) for m in run.mutants))
    md = markdown_summary(run, limit=3)
    assert "### Survivors (3 of 12)" in md
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[1] for row in rows] == ["leakage", "classic", "leakage"]
    assert len(markdown_summary(run, limit=100)) < 65536


def test_cells_cannot_break_the_table_or_inject_html() -> None:
    """A pipe, a newline or HTML in a value stays inside its cell and is shown, not rendered."""
    assert text("a | b\n<script>f(x)</script> & y") == r"a \| b \<script\>f(x)\</script\> &amp; y"
    assert code("x | `y`") == r"`` x \| `y` ``"
    assert prose("`a|b` became `<b>`: bad") == r"`a\|b` became `<b>`: bad"
    assert len(text("x" * 500)) == 160


def test_a_clean_run_says_so() -> None:
    """With no survivors the summary says every counted mutant was detected."""
    md = markdown_summary(make_run({"m.py": SNIPPET}, (Status.KILLED,)))
    assert "Every mutant that counts was detected." in md and "### Survivors" not in md


def test_a_sampled_run_states_the_full_score_it_estimates_in_every_summary() -> None:
    """A run that took a sample (its options say of how many mutants) gives its interval in the
    Markdown and HTML summaries, as the terminal does; a full run says nothing of the kind."""
    from bugsmith.harness.report import render_html
    from bugsmith.harness.terminal import summary

    full = make_run({"a.py": SNIPPET}, (Status.KILLED, Status.KILLED, Status.SURVIVED))
    population = 10 * len(full.outcomes)
    run = dataclasses.replace(full, options={**full.options,
                                             "sample": {"seed": 3, "population": population, "size": 9}})
    sentence = f"a sample of {len(run.outcomes)} of {population} mutants (seed 3): the full score is"
    assert sentence.capitalize() in markdown_summary(run)
    assert sentence in summary(run)
    assert f"a sample of {len(run.outcomes)} of {population} mutants (seed 3)" in render_html(run)
    assert "a sample of" not in markdown_summary(full) + summary(full) + render_html(full)
