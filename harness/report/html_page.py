"""The HTML report: one self-contained page (styles and script inline) rendered by jinja2.

Everything a user sees is computed here, from records; the page's script only shows, hides and
filters what is already rendered, so the report works with scripts off and needs no network.
A Content-Security-Policy with the script's hash stops any injected script from running, as a
second line of defence behind autoescaping.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup, escape

from bugsmith.harness.corpus import cache_subfolder
from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report.about import homepage, version
from bugsmith.harness.report.highlight import Site, highlight, source_lines
from bugsmith.harness.report.section_cache import SectionCache, section_key
from bugsmith.harness.report.view import (
    FAMILY_ORDER,
    PENDING,
    SEVERITY,
    STATUS_ORDER,
    FileView,
    MutantView,
    RunView,
    Tally,
    TriageFindings,
    build_view,
    tally,
    worst,
)
from bugsmith.harness.report.wording import percent, seconds, slug

_BACKQUOTED = re.compile(r"(`[^`\n]+`)")
COVERED_CAP = 25  # covering tests listed per survivor; a hot line can be covered by hundreds
STATUS_HELP = {
    Status.KILLED: "a test failed: the bug was caught",
    Status.SURVIVED: "every covering test passed: the bug went unnoticed",
    Status.TIMEOUT: "the tests hung; counted as caught",
    Status.NO_COVERAGE: "no test runs this line",
    Status.ERROR: "the mutant could not be run; not counted",
    Status.EQUIVALENT: "behaves exactly like the original; not counted",
    PENDING: "not run yet (the run was interrupted)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    number: int
    html: Markup
    marker: str  # worst status of the mutants touching this line, "" if none
    mutants: tuple[MutantView, ...]  # the mutants that start on this line
    touching: str  # ids of the mutants whose span covers this line, space-separated


def render_html(result: RunResult, *, triage: TriageFindings | None = None,
                sections: SectionCache | None = None) -> str:
    """The whole report as one HTML document; each file's section is taken from `sections`
    where it was rendered before from the same view (default: bugsmith's user cache)."""
    view = build_view(result, triage)
    env = _environment()
    script = _asset("report.js")
    sections = SectionCache.default() if sections is None else sections
    parts = env.get_template("report_parts.html.j2").module
    rendered = {file.path: Markup(_file_section(parts, file, view, sections)) for file in view.files}
    sections.trim()
    return env.get_template("report.html.j2").render(
        view=view,
        sections=rendered,
        matrix=_matrix(view),
        options=[(key, _option_text(value)) for key, value in sorted(view.result.options.items())],
        style=Markup(_asset("report.css")),
        script=Markup(script),
        script_hash=base64.b64encode(hashlib.sha256(script.encode()).digest()).decode(),
        version=version(),
        homepage=homepage(),
        anchors={file.path: file.anchor for file in view.files},
        severity=SEVERITY,
    )


def _file_section(parts: Any, file: FileView, view: RunView, sections: SectionCache) -> str:
    rating = view.rating(file.tally.score)
    return sections.get(section_key(file, rating),
                        lambda: str(parts.file_section(file, file_lines(file), rating)))


def file_lines(file: FileView) -> list[Line]:
    """The file's lines, coloured, with each mutated site underlined in its worst status."""
    if file.source is None:
        return []
    sites, touching = _sites(file, source_lines(file.source))
    starting: dict[int, list[MutantView]] = {}
    for mutant in file.mutants:
        starting.setdefault(mutant.span.line, []).append(mutant)
    return [
        Line(
            number=number,
            html=html,
            marker=worst(m.status for m in touching.get(number, ())),
            mutants=tuple(starting.get(number, ())),
            touching=" ".join(sorted({m.id for m in touching.get(number, ())})),
        )
        for number, html in enumerate(highlight(file.source, sites), 1)
    ]


def _sites(
    file: FileView, lines: list[str]
) -> tuple[dict[int, list[Site]], dict[int, list[MutantView]]]:
    """Per line, the ranges to underline and the mutants whose span covers it."""
    sites: dict[int, list[Site]] = {}
    touching: dict[int, list[MutantView]] = {}
    # Best status first, so that where sites overlap the worst one is drawn last and shows.
    for mutant in sorted(file.mutants, key=lambda m: -SEVERITY.index(m.status)):
        span = mutant.span
        for number in range(span.line, min(span.end_line, len(lines)) + 1):
            text = lines[number - 1]
            indent = len(text) - len(text.lstrip())  # a deleted statement's span starts at column 0
            start = max(span.column, indent) if number == span.line else indent
            end = span.end_column if number == span.end_line else len(text)
            sites.setdefault(number, []).append((start, end, f"u u-{slug(mutant.status)}"))
            touching.setdefault(number, []).append(mutant)
    return sites, touching


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """(CSS class, text) per line of a unified diff, without the two file header lines."""
    rows = []
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            continue
        css = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
        rows.append((css, line))
    return rows


def prose(text: str) -> Markup:
    """Escaped text in which `backquoted` parts, as explanations write code, become <code>."""
    parts = _BACKQUOTED.split(text)
    return Markup("").join(
        Markup("<code>{}</code>").format(part[1:-1]) if index % 2 else escape(part)
        for index, part in enumerate(parts)
    )


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """The page's template compiled once per version of its text (jinja checks the source's
    checksum), in bugsmith's user cache, so that a run's report does not compile it again. A
    folder that cannot be written is no cache."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled_templates() -> jinja2.BytecodeCache | None:
    folder = cache_subfolder("templates")
    return None if folder is None else _CompiledTemplates(str(folder))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bugsmith.harness.report", "templates"),
        bytecode_cache=_compiled_templates(),
        autoescape=True,  # every template here is HTML; none may emit unescaped text
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        slug=slug, seconds=seconds, percent=percent, diff_lines=diff_lines, prose=prose
    )
    # The parts (report_parts.html.j2) are imported without the page's context: what they
    # read besides their arguments is here.
    env.globals.update(bar_order=STATUS_ORDER, status_help=STATUS_HELP, covered_cap=COVERED_CAP)
    return env


def _asset(name: str) -> str:
    """A stylesheet or script, read as plain text: jinja must not parse braces in CSS or JS."""
    return resources.files("bugsmith.harness.report").joinpath("templates", name).read_text(encoding="utf-8")


def _matrix(view: RunView) -> list[tuple[FileView, list[Tally | None]]]:
    """Per file, the tally of each family present in the run (None where the file has none)."""
    families = [family for family in FAMILY_ORDER if family in view.families]
    rows = []
    for file in view.files:
        cells: list[Tally | None] = []
        for family in families:
            mutants = [m for m in file.mutants if m.family == family]
            cells.append(tally(mutants) if mutants else None)
        rows.append((file, cells))
    return rows


def _option_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
