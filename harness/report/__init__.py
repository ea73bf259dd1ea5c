"""Reports of a finished run, rendered from its records: HTML, Stryker JSON, Markdown, JUnit, SARIF.

Each format has one function that returns the document; `write_reports` writes the ones asked
for. No function here runs anything again or reads the user's tree: a report is a view of a
`RunResult` (and, when survivor triage has run, of its findings).
"""

from __future__ import annotations

import json as _json
from collections.abc import Callable
from pathlib import Path

from bugsmith.errors import BugsmithError
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.report.html_page import render_html
from bugsmith.harness.report.junit import junit_xml
from bugsmith.harness.report.markdown import markdown_summary
from bugsmith.harness.report import sarif_log  # the module: `sarif` the keyword hides `sarif` the function
from bugsmith.harness.report.sarif_log import sarif
from bugsmith.harness.report.stryker import stryker_json
from bugsmith.harness.report.view import TriageFindings

__all__ = [
    "ReportError",
    "TriageFindings",
    "junit_xml",
    "markdown_summary",
    "render_html",
    "sarif",
    "stryker_json",
    "write_reports",
]


class ReportError(BugsmithError):
    """A report could not be written (a missing permission, a full disk, a path that is a folder)."""


def write_reports(
    result: RunResult,
    *,
    html: str | Path | None = None,
    json: str | Path | None = None,
    markdown: str | Path | None = None,
    junit: str | Path | None = None,
    sarif: str | Path | None = None,
    triage: TriageFindings | None = None,
) -> list[Path]:
    """Write each report given a path (creating folders); return the paths written, in that order."""
    renderers: list[tuple[str | Path | None, Callable[[], str]]] = [
        (html, lambda: render_html(result, triage=triage)),
        (json, lambda: _json.dumps(stryker_json(result, triage=triage), ensure_ascii=False)),
        (markdown, lambda: markdown_summary(result, triage=triage)),
        (junit, lambda: junit_xml(result, triage=triage)),
        (sarif, lambda: _json.dumps(sarif_log.sarif(result, triage=triage), indent=2, ensure_ascii=False)),
    ]
    written = []
    for target, render in renderers:
        if target is None:
            continue
        path = Path(target)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(), encoding="utf-8")
        except OSError as error:
            raise ReportError(f"cannot write report {path}: {error.strerror or error}") from None
        written.append(path)
    return written

