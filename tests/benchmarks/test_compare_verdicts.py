"""The benchmark names the mutants whose verdict changed since an earlier run (compare_mutmut.py --against)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from compare_mutmut import compare_verdicts  # noqa: E402 - the benchmarks are scripts, not a package


def _figures(commit: str, verdicts: dict[str, str]) -> dict[str, Any]:
    return {"bugsmith_commit": commit, "toolz": {"bugsmith_all": {"verdicts": verdicts}}}


def test_a_changed_verdict_is_named_and_new_or_gone_mutants_are_counted_apart(capsys: pytest.CaptureFixture[str]) -> None:
    earlier = _figures("old", {"a": "killed", "b": "timeout", "c": "survived", "gone": "killed"})
    now = _figures("new", {"a": "killed", "b": "killed", "c": "survived", "new": "survived"})
    compare_verdicts(earlier, now, "toolz")
    out = capsys.readouterr().out
    assert "against old: 1 of 3 differ (1 mutants new, 1 gone)" in out
    assert "b: timeout -> killed" in out
    assert now["toolz"]["verdicts_differ"] == ["b"]


def test_a_target_the_earlier_run_did_not_measure_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    now = _figures("new", {"a": "killed"})
    compare_verdicts({"bugsmith_commit": "old"}, now, "toolz")
    assert "none recorded for toolz" in capsys.readouterr().out
    assert "verdicts_differ" not in now["toolz"]
