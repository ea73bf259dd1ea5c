"""Keep the test tools' own state out of the user's tree.

Test plugins keep caches where pytest runs: Hypothesis its example database and constants in
`.hypothesis/`, pytest-benchmark its storage in `.benchmarks/` (pytest's own cache is off).
During a run mutants make tests fail, and these tools write down the failures: into the
user's tree, and Hypothesis would replay one mutant's failing examples against the next.
Every process that runs the user's tests points them under `.bugsmith/` instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

STATE_DIR = Path(".bugsmith") / "tool-state"


def tool_env(root: str | Path) -> dict[str, str]:
    """Environment variables for a process that runs tests in `root`."""
    return {"HYPOTHESIS_STORAGE_DIRECTORY": str(Path(root) / STATE_DIR / "hypothesis")}


class StateOutsideTheTree:
    """A pytest plugin: moves pytest-benchmark's storage when that plugin is loaded."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        if hasattr(config.option, "benchmark_storage"):
            config.option.benchmark_storage = f"file://{self.root / STATE_DIR / 'benchmarks'}"
