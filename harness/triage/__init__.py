"""Survivor triage: for each mutant the suite let through, what input shows the bug, and what
assertion was missing.

`triage(options)` classifies the survivors of the last run as unasserted (a test ran the bug
and saw a wrong value), undertested (a searched input shows it) or possibly equivalent, and
drafts a pytest test that is verified to pass on the original and fail on the mutant.

The names below load on first use: the forked children that replay and search import
`harness.child.triage.probe`, and must not pay for the engine's imports (libcst, coverage) each time.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Classification": "bugsmith.harness.triage.finding",
    "Finding": "bugsmith.harness.triage.finding",
    "describe": "bugsmith.harness.triage.finding",
    "TriageOptions": "bugsmith.harness.triage.classify",
    "TriageResult": "bugsmith.harness.triage.classify",
    "load_findings": "bugsmith.harness.triage.classify",
    "triage": "bugsmith.harness.triage.classify",
    "report_findings": "bugsmith.harness.triage.display",
    "triage_text": "bugsmith.harness.triage.display",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'bugsmith.harness.triage' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
