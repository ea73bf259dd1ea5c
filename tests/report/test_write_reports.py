"""write_reports writes the formats asked for, and fails with a bugsmith error when it cannot."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bugsmith.errors import BugsmithError
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.report import ReportError, write_reports


def test_writes_each_requested_format(run: RunResult, tmp_path: Path) -> None:
    """All five formats are written (folders created) and returned in order; each parses."""
    paths = dict(
        html=tmp_path / "out/report.html",
        json=tmp_path / "out/mutation.json",
        markdown=tmp_path / "summary.md",
        junit=tmp_path / "junit/mutants.xml",
        sarif=tmp_path / "bugsmith.sarif",
    )
    written = write_reports(run, **paths)
    assert written == list(paths.values())
    assert paths["html"].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["schemaVersion"] == "2"
    assert paths["markdown"].read_text(encoding="utf-8").startswith("## bugsmith")
    assert ET.parse(paths["junit"]).getroot().tag == "testsuites"
    assert json.loads(paths["sarif"].read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_writes_nothing_unasked(run: RunResult, tmp_path: Path) -> None:
    """Only the given formats are written."""
    assert write_reports(run, markdown=str(tmp_path / "s.md")) == [tmp_path / "s.md"]
    assert [p.name for p in tmp_path.iterdir()] == ["s.md"]
    assert write_reports(run) == []


def test_unwritable_path_is_a_bugsmith_error(run: RunResult, tmp_path: Path) -> None:
    """Writing onto a folder raises ReportError, which the CLI reports as one line."""
    with pytest.raises(ReportError, match="cannot write report") as caught:
        write_reports(run, html=tmp_path)
    assert isinstance(caught.value, BugsmithError)
