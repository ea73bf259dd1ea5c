"""The report view that every format reads: joins, tallies, ordering, spans, thresholds."""

from __future__ import annotations

import dataclasses

from bugsmith.harness.outcome import RunResult, Status, mutation_score
from bugsmith.harness.report.view import PENDING, build_view, display_span
from bugsmith.mutators.mutant import Family, Span

from .runs import SNIPPET, make_run


def test_tallies_agree_with_the_outcomes(run: RunResult) -> None:
    """Overall, per-file and per-family counts add up and the score is `mutation_score`'s."""
    view = build_view(run)
    assert view.tally.total == len(run.mutants) == 6
    assert view.tally.score == mutation_score(run.outcomes) == 50.0
    assert {status: view.tally.counts[status.value] for status in Status} == run.counts()
    assert sum(f.tally.total for f in view.files) == sum(t.total for t in view.families.values()) == 6
    assert list(view.families) == ["window", "classic"]  # realistic families first


def test_a_mutant_without_outcome_is_pending_and_not_scored() -> None:
    """An interrupted run still reports every mutant; unrun ones count neither way."""
    run = make_run({"m.py": SNIPPET}, (Status.KILLED,))
    run = dataclasses.replace(run, outcomes=run.outcomes[:1])
    view = build_view(run)
    assert view.tally.counts[PENDING] == 5 and view.tally.counts["killed"] == 1
    assert view.tally.score == 100.0 and view.tally.counted == 1


def test_survivors_are_undetected_mutants_realistic_families_first() -> None:
    """Survived and uncovered mutants are listed, domain families before classic ones."""
    run = make_run({"m.py": SNIPPET}, (Status.SURVIVED, Status.NO_COVERAGE))
    mutants = tuple(
        dataclasses.replace(m, family=Family.CLASSIC if i % 2 else Family.LEAKAGE) for i, m in enumerate(run.mutants)
    )
    view = build_view(dataclasses.replace(run, mutants=mutants))
    families = [m.family for m in view.survivors]
    assert len(families) == 6
    assert families == sorted(families, key=["leakage", "classic"].index)
    lines = [m.span.line for m in view.survivors if m.family == "leakage"]
    assert lines == sorted(lines)


def test_deleted_statement_span_does_not_reach_the_next_line() -> None:
    """A span ending at column 0 of the next line is shown as ending at the end of its own line."""
    source = "a = 1\nb = 2\nc = 3\n"
    assert display_span(Span(line=2, column=0, end_line=3, end_column=0), source) == Span(
        line=2, column=0, end_line=2, end_column=5
    )
    same = Span(line=2, column=0, end_line=2, end_column=3)
    assert display_span(same, source) is same


def test_thresholds_come_from_the_options_when_sane() -> None:
    """Thresholds in the options are used; missing or nonsensical ones fall back to 80/60."""
    assert build_view(make_run({"m.py": SNIPPET}, options={"thresholds": {"high": 90, "low": 70}})).thresholds == (90, 70)
    assert build_view(make_run({"m.py": SNIPPET}, options={"thresholds": {"high": 50, "low": 70}})).thresholds == (80, 60)
    view = build_view(make_run({"m.py": SNIPPET}, options={}))
    assert view.thresholds == (80, 60)
    assert [view.rating(s) for s in (80.0, 79.9, 60.0, 59.9, None)] == ["good", "fair", "fair", "poor", "none"]


def test_triage_is_attached_to_its_mutant(run: RunResult) -> None:
    """Triage findings are joined by mutant id and missing keys read as empty."""
    survivor = next(o.mutant_id for o in run.outcomes if o.status is Status.SURVIVED)
    view = build_view(run, {survivor: {"classification": "unasserted"}})
    (found,) = [m for m in view.mutants if m.triage]
    assert found.id == survivor and found.triage.classification == "unasserted" and found.triage.witness == ""


def test_files_without_mutants_are_listed_and_anchors_are_unique() -> None:
    """A recorded file with no site still appears; paths differing only in punctuation get distinct anchors."""
    run = make_run({"a_b.py": SNIPPET, "a-b.py": SNIPPET, "empty.py": "x = 'nothing'\n"})
    view = build_view(run)
    assert [f.path for f in view.files] == ["a-b.py", "a_b.py", "empty.py"]
    assert len({f.anchor for f in view.files}) == 3
    assert view.files[2].tally.total == 0 and view.files[2].tally.score is None
