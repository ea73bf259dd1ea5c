"""What the CLI and the reports show of a triage: its progress, one line per survivor, and report records."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bugsmith.harness.mutation_run.progress import Progress
from bugsmith.harness.shared.tasks import Classification
from bugsmith.harness.triage.classify import TriageResult, load_findings


def report_findings(root: Path, survivors: set[str]) -> dict[str, dict[str, Any]]:
    """Stored findings for the HTML/JSON reports, for the given survivors only (others are stale)."""
    return {i: f.to_dict() for i, f in load_findings(root).items() if i in survivors}


def triage_text(result: TriageResult) -> str:
    """The end-of-triage summary for a terminal: one line per survivor, then the totals."""
    lines = []
    for finding in result.findings:
        mark = " [test]" if finding.verified else ""
        lines.append(f"{finding.mutant_id}  {finding.classification.value:<19}{mark}  {finding.witness}")
    counts = ", ".join(f"{n} {kind}" for kind, n in result.counts().items() if n)
    share = result.verified_share
    per = result.seconds / len(result.findings) if result.findings else 0.0
    lines.append(
        f"{len(result.findings)} survivors triaged: {counts or 'none'}; "
        f"{'n/a' if share is None else f'{share:.0%}'} with a verified test; "
        f"{result.seconds:.1f} s ({per:.1f} s per survivor, recording {result.recording_seconds:.1f} s)"
    )
    return "\n".join(lines)


class TriageProgress:
    """Triage's own progress line: survivors done of all and what was found so far, then the
    drafted tests checked (never a mutation score: triage kills nothing). On a terminal every
    event redraws it; in a log (`every` > 0) a line at most every `every` seconds, and the first
    and last of each stage."""

    def __init__(self, every: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._last: float | None = None
        self._stage = ""

    def line(self, event: Progress) -> str | None:
        now = self.clock()
        boundary = event.stage != self._stage or (event.total > 0 and event.done >= event.total)
        if not boundary and self._last is not None and now - self._last < self.every:
            return None
        self._stage, self._last = event.stage, now
        eta = f", ETA {event.eta:.0f} s" if event.eta is not None else ""
        if event.stage == "checks":
            return f"triage: checked {event.done}/{event.total} drafted tests on the original and the mutant{eta}"
        counts = event.counts
        found = counts.get(Classification.UNASSERTED.value, 0) + counts.get(Classification.UNDERTESTED.value, 0)
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        return (f"triage: {event.done}/{event.total} survivors, {found} shown by an input so far"
                + (f" ({kinds})" if kinds else "") + eta)
