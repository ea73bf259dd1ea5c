"""The Finding record: what triage concluded about one survivor, and how to show it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from bugsmith.harness.shared.tasks import Classification  # the probe's findings carry it too

KIND = "triage"  # the store's extras kind


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One survivor's triage. `suggested_test` is shown only when `verified` (it passed on the
    original and failed on the mutant, each in its own child)."""

    mutant_id: str
    classification: Classification
    call: str = ""  # the distinguishing call, as a reader would type it
    expected: str = ""  # what the original does: "returns [3, 6]", "raises ValueError: ..."
    actual: str = ""  # what the mutant does, in the same words
    why: str = ""  # the kind of difference: "returns a different value", "raises", "hangs", ...
    test: str = ""  # the test that made the call (unasserted only)
    tried: str = ""  # what was replayed and searched
    suggested_test: str = ""
    verified: bool = False
    note: str = ""  # why no verified test, or why not triaged
    seconds: float = 0.0
    # Why a possibly equivalent survivor may be equivalent, where the code shows it (a dead
    # store, a comparison an earlier guard decided: harness.triage.equivalence); "" otherwise.
    argument: str = ""

    @property
    def witness(self) -> str:
        if not self.call:
            return "; ".join(part for part in (self.argument, self.tried or self.note) if part)
        made_by = f" (called by {self.test})" if self.test else ""
        # The kind of difference is said by expected and actual; where the values differ (which
        # may not show in them: two texts in other Unicode normalisations print alike) is not.
        _, _, where = self.why.partition(": ")
        return f"{self.call}{made_by}: the original {self.expected}, the mutant {self.actual}" + (
            f" ({where})" if where and where not in self.actual else "")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["classification"] = self.classification.value
        # The report reads these three keys (harness.report.view.TriageFindings).
        data["witness"] = self.witness
        data["suggested_test"] = self.suggested_test if self.verified else ""
        data["draft_test"] = self.suggested_test
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields["classification"] = Classification(fields["classification"])
        fields["suggested_test"] = data.get("draft_test", data.get("suggested_test", ""))
        return cls(**fields)


def describe(finding: Finding) -> str:
    """The triage part of `bugsmith show`."""
    lines = [f"triage: {finding.classification.value}"]
    if finding.call:
        lines.append(f"  call:     {finding.call}")
        if finding.test:
            lines.append(f"  made by:  {finding.test}")
        lines.append(f"  original: {finding.expected}")
        lines.append(f"  mutant:   {finding.actual}")
    if finding.argument:
        lines.append(f"  argument: {finding.argument}")
    if finding.tried:
        lines.append(f"  tried:    {finding.tried}")
    if finding.note:
        lines.append(f"  note:     {finding.note}")
    if finding.verified:
        lines += ["", "suggested test (passes on the original, fails on this mutant):", "",
                  finding.suggested_test.rstrip("\n")]
    return "\n".join(lines)


def stored_findings(extras: Mapping[str, Mapping[str, Any]]) -> dict[str, Finding]:
    """Findings from `store.extras(KIND)`, skipping records this version cannot read."""
    found = {}
    for mutant_id, data in extras.items():
        try:
            found[mutant_id] = Finding.from_dict(data)
        except (KeyError, TypeError, ValueError):
            continue
    return found
