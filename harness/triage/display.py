"""What the CLI and the reports show of a triage: one line per survivor, and report records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
