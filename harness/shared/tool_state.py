"""Keep the test tools' own state out of the user's tree.

Test plugins keep caches where pytest runs: Hypothesis its example database and constants in
`.hypothesis/`, pytest-benchmark its storage in `.benchmarks/` (pytest's own cache is off).
During a run mutants make tests fail, and these tools write down the failures: into the
user's tree, and Hypothesis would replay one mutant's failing examples against the next.
Every process that runs the user's tests points them under `.bugsmith/` instead (the pytest
plugin that moves pytest-benchmark's storage is harness.child.session.StateOutsideTheTree:
this module stays free of pytest, which the coordinator need not import). Only the baseline
writes Hypothesis' database there: a process that tests a mutant reads it and saves nothing
(harness.child.hypothesis_view).
"""

from __future__ import annotations

from pathlib import Path

STATE_DIR = Path(".bugsmith") / "tool-state"


def tool_env(root: str | Path) -> dict[str, str]:
    """Environment variables for a process that runs tests in `root`."""
    return {"HYPOTHESIS_STORAGE_DIRECTORY": str(Path(root) / STATE_DIR / "hypothesis")}
