"""Reports of a finished run, rendered from its records: HTML, Stryker JSON, Markdown, JUnit, SARIF.

Each format has one function that returns the document; `write_reports` writes the ones asked
for. No function here runs anything again or reads the user's tree: a report is a view of a
`RunResult` (and, when survivor triage has run, of its findings).
"""

from __future__ import annotations

import json as _json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bugsmith.errors import BugsmithError
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.report.html_page import render_html
from bugsmith.harness.report.junit import junit_xml
from bugsmith.harness.report.markdown import markdown_summary
from bugsmith.harness.report.sarif_log import sarif
from bugsmith.harness.report.stryker import stryker_json
from bugsmith.harness.report.view import TriageFindings

__all__ = [
    "FORMATS",
    "ReportError",
    "ReportFormat",
    "TriageFindings",
    "junit_xml",
    "markdown_summary",
    "render",
    "render_html",
    "sarif",
    "stryker_json",
    "write_reports",
]


class ReportError(BugsmithError):
    """A report could not be written (a missing permission, a full disk, a path that is a folder)."""


class Renderer(Protocol):
    def __call__(self, result: RunResult, *, triage: TriageFindings | None) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportFormat:
    """One report format: the CLI offers `--<name> PATH`, and `run` writes the default ones."""

    name: str
    file_name: str  # when written into the reports folder
    description: str
    render: Renderer
    default: bool = False


def _stryker(result: RunResult, *, triage: TriageFindings | None) -> str:
    return _json.dumps(stryker_json(result, triage=triage), ensure_ascii=False)


def _sarif(result: RunResult, *, triage: TriageFindings | None) -> str:
    return _json.dumps(sarif(result, triage=triage), indent=2, ensure_ascii=False)


# Every report format, in the order they are written. A new format is one entry here.
FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat(name="html", file_name="bugsmith.html", render=render_html, default=True,
                 description="a self-contained page: scores, the source with every mutant, filters"),
    ReportFormat(name="json", file_name="mutation-report.json", render=_stryker, default=True,
                 description="Stryker's mutation-testing-report schema (its viewer and dashboard read it)"),
    ReportFormat(name="markdown", file_name="bugsmith.md", render=markdown_summary,
                 description="a summary for a pull request"),
    ReportFormat(name="junit", file_name="bugsmith-junit.xml", render=junit_xml,
                 description="JUnit XML: one test case per mutant, survivors fail"),
    ReportFormat(name="sarif", file_name="bugsmith.sarif", render=_sarif,
                 description="SARIF 2.1.0: survivors inline in code scanning"),
)
_BY_NAME = {fmt.name: fmt for fmt in FORMATS}


def render(result: RunResult, name: str, *, triage: TriageFindings | None = None) -> str:
    """The document of format `name`."""
    return _BY_NAME[name].render(result, triage=triage)


def write_reports(result: RunResult, *, triage: TriageFindings | None = None,
                  **targets: str | Path | None) -> list[Path]:
    """Write each format given a path (`html=..., json=...`; creating folders); return the paths
    written, in the table's order."""
    unknown = sorted(set(targets) - set(_BY_NAME))
    if unknown:
        raise ReportError(f"unknown report format {unknown[0]!r}")
    written = []
    for fmt in FORMATS:
        target = targets.get(fmt.name)
        if target is None:
            continue
        path = Path(target)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fmt.render(result, triage=triage), encoding="utf-8")
        except OSError as error:
            raise ReportError(f"cannot write report {path}: {error.strerror or error}") from None
        written.append(path)
    return written


def default_targets(folder: Path) -> Mapping[str, Path]:
    """The default formats, as files in `folder`."""
    return {fmt.name: folder / fmt.file_name for fmt in FORMATS if fmt.default}
