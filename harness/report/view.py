"""The report's view of a run: each mutant joined with its outcome, tallied per file and family.

Every format reads this view, so they all agree on counts, scores, ordering and spans. A mutant
with no outcome yet (an interrupted run) is `pending`; it is shown but not scored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bugsmith.harness.outcome import Outcome, RunResult, Status, mutation_score
from bugsmith.harness.report.highlight import source_lines
from bugsmith.harness.sampling import Estimate, run_estimate
from bugsmith.mutators.mutant import Family, Mutant, Span

PENDING = "pending"  # the status a view gives a mutant with no outcome: every other is a Status
STATUSES: tuple[str, ...] = (*Status, PENDING)
# Worst first: a line holding several mutants takes the colour of its worst one.
SEVERITY: tuple[str, ...] = (
    Status.SURVIVED, Status.NO_COVERAGE, PENDING, Status.TIMEOUT, Status.ERROR, Status.EQUIVALENT, Status.KILLED,
)
# Reading order: detected first, then what the suite missed, then what does not count.
STATUS_ORDER: tuple[str, ...] = (
    Status.KILLED, Status.TIMEOUT, Status.SURVIVED, Status.NO_COVERAGE, PENDING, Status.ERROR, Status.EQUIVALENT,
)
UNDETECTED = frozenset({Status.SURVIVED, Status.NO_COVERAGE})
FAMILY_ORDER: tuple[str, ...] = tuple(family.value for family in Family)
DEFAULT_THRESHOLDS = (80, 60)  # high, low: Stryker's defaults
# Survivor triage findings by mutant id: {"classification", "witness", "suggested_test"}.
TriageFindings = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Triage:
    """What survivor triage said about one survivor (filled by a later stage)."""

    classification: str
    witness: str
    suggested_test: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MutantView:
    mutant: Mutant
    outcome: Outcome | None
    span: Span  # the mutant's span, with a trailing line break trimmed for display
    triage: Triage | None

    @property
    def id(self) -> str:
        return self.mutant.id

    @property
    def status(self) -> str:
        """The outcome's Status, or PENDING."""
        return self.outcome.status if self.outcome else PENDING

    @property
    def family(self) -> str:
        return str(self.mutant.family.value)

    @property
    def failure(self) -> str | None:
        return self.outcome.failure.value if self.outcome and self.outcome.failure else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tally:
    counts: Mapping[str, int]  # every status in STATUSES, zero when absent
    total: int
    score: float | None  # percent, as `mutation_score` counts it

    @property
    def detected(self) -> int:
        return self.counts[Status.KILLED] + self.counts[Status.TIMEOUT]

    @property
    def counted(self) -> int:
        """Mutants that count towards the score: all but equivalent, error and pending."""
        return self.total - self.counts[Status.EQUIVALENT] - self.counts[Status.ERROR] - self.counts[PENDING]

    def share(self, status: str) -> float:
        return 100.0 * self.counts[status] / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class FileView:
    path: str
    anchor: str  # HTML id, unique within the report
    source: str | None  # None when the run did not record it
    mutants: tuple[MutantView, ...]  # by position
    tally: Tally


@dataclass(frozen=True, slots=True, kw_only=True)
class RunView:
    result: RunResult
    mutants: tuple[MutantView, ...]  # by file, then position
    files: tuple[FileView, ...]  # by path
    families: Mapping[str, Tally]  # families that have mutants, realistic ones first
    tally: Tally
    survivors: tuple[MutantView, ...]  # undetected, realistic families first
    thresholds: tuple[int, int]  # high, low
    sample: Estimate | None = None  # the run took a sample: the full score it estimates

    def rating(self, score: float | None) -> str:
        """"good", "fair" or "poor" against the thresholds; "none" when nothing was scored."""
        if score is None:
            return "none"
        high, low = self.thresholds
        return "good" if score >= high else "fair" if score >= low else "poor"


def build_view(result: RunResult, triage: TriageFindings | None = None) -> RunView:
    outcomes = {outcome.mutant_id: outcome for outcome in result.outcomes}
    triage = triage or {}
    views = sorted(
        (
            MutantView(
                mutant=mutant,
                outcome=outcomes.get(mutant.id),
                span=display_span(mutant.span, result.sources.get(mutant.file)),
                triage=_triage(triage.get(mutant.id)),
            )
            for mutant in result.mutants
        ),
        key=lambda view: (view.mutant.file, *_position(view), view.mutant.operator, view.id),
    )
    return RunView(
        result=result,
        mutants=tuple(views),
        files=_files(views, result.sources),
        families=_families(views),
        tally=tally(views),
        survivors=tuple(
            sorted(
                (view for view in views if view.status in UNDETECTED),
                key=lambda view: (FAMILY_ORDER.index(view.family), view.mutant.file, *_position(view)),
            )
        ),
        thresholds=_thresholds(result.options),
        sample=run_estimate(result.options, result.outcomes),
    )


def tally(views: Iterable[MutantView]) -> Tally:
    views = list(views)
    counts = dict.fromkeys(STATUSES, 0)
    for view in views:
        counts[view.status] += 1
    return Tally(
        counts=counts,
        total=len(views),
        score=mutation_score([view.outcome for view in views if view.outcome]),
    )


def display_span(span: Span, source: str | None) -> Span:
    """`span` without a trailing line break: a deleted statement should not point at the next line."""
    if span.end_column or span.end_line <= span.line or source is None:
        return span
    lines = source_lines(source)
    if span.end_line - 2 >= len(lines):
        return span
    return Span(
        line=span.line,
        column=span.column,
        end_line=span.end_line - 1,
        end_column=len(lines[span.end_line - 2]),
    )


def worst(statuses: Iterable[str]) -> str:
    return min(statuses, key=SEVERITY.index, default="")


def _position(view: MutantView) -> tuple[int, int]:
    return view.span.line, view.span.column


def _triage(data: Mapping[str, Any] | None) -> Triage | None:
    if not data:
        return None
    return Triage(
        classification=str(data.get("classification", "")),
        witness=str(data.get("witness", "")),
        suggested_test=str(data.get("suggested_test", "")),
    )


def _files(views: list[MutantView], sources: Mapping[str, str]) -> tuple[FileView, ...]:
    by_file: dict[str, list[MutantView]] = {path: [] for path in sources}
    for view in views:
        by_file.setdefault(view.mutant.file, []).append(view)
    anchors: set[str] = set()
    files = []
    for path in sorted(by_file):
        anchor = "file-" + (re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-").lower() or "root")
        while anchor in anchors:  # two paths that differ only in punctuation
            anchor += "-"
        anchors.add(anchor)
        mutants = tuple(by_file[path])
        files.append(
            FileView(path=path, anchor=anchor, source=sources.get(path), mutants=mutants, tally=tally(mutants))
        )
    return tuple(files)


def _families(views: list[MutantView]) -> dict[str, Tally]:
    return {
        family: tally(view for view in views if view.family == family)
        for family in FAMILY_ORDER
        if any(view.family == family for view in views)
    }


def _thresholds(options: Mapping[str, Any]) -> tuple[int, int]:
    """The run's `thresholds` option ({"high": int, "low": int}) if it is sane, else Stryker's."""
    given = options.get("thresholds")
    if isinstance(given, Mapping):
        high, low = given.get("high"), given.get("low")
        if isinstance(high, int) and isinstance(low, int) and 0 <= low <= high <= 100:
            return high, low
    return DEFAULT_THRESHOLDS
