"""A short Markdown summary for a pull-request comment or a CI job summary.

GitHub caps a comment at 65,536 characters, so the survivor table is capped and every cell is
trimmed. Text is escaped for GitHub-flavoured Markdown: a `|` would split a table cell and raw
HTML would be rendered (or stripped) instead of shown.
"""

from __future__ import annotations

import re

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report.view import STATUS_ORDER, MutantView, TriageFindings, build_view
from bugsmith.harness.report.wording import percent, plural, seconds

DEFAULT_LIMIT = 10
_CELL_CHARS = 160
_RATING_WORDS = {"good": "good", "fair": "fair", "poor": "poor", "none": "nothing scored"}
_BACKQUOTED = re.compile(r"(`[^`]+`)")
# Characters that can start markup inside a table cell; `(` only matters after `]`.
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def markdown_summary(
    result: RunResult,
    *,
    limit: int = DEFAULT_LIMIT,
    triage: TriageFindings | None = None,
) -> str:
    """Score, counts, a per-family table and the first `limit` survivors, realistic ones first."""
    view = build_view(result, triage)
    t = view.tally
    high, low = view.thresholds
    statuses = [s for s in STATUS_ORDER if t.counts[s] or s in (Status.KILLED, Status.SURVIVED)]
    out = [
        f"## bugsmith mutation score: {percent(t.score)}",
        "",
        f"**{t.detected} of {t.counted}** counted mutants detected "
        f"({_RATING_WORDS[view.rating(t.score)]}; thresholds {high}% / {low}%). "
        f"{plural(t.total, 'mutant')} over {plural(len(view.files), 'file')}, "
        f"{plural(len(result.tests), 'test')}, "
        f"{seconds(result.duration)}.",
        *([] if view.sample is None else ["", view.sample.sentence().capitalize() + "."]),
        "",
        "| " + " | ".join(statuses) + " |",
        "|" + "---:|" * len(statuses),
        "| " + " | ".join(str(t.counts[s]) for s in statuses) + " |",
    ]
    if view.families:
        out += ["", "### By bug family", "", "| family | score | detected | survived | no coverage |",
                "|---|---:|---:|---:|---:|"]
        for family, ft in view.families.items():
            out.append(
                f"| {family} | {percent(ft.score)} | {ft.detected} / {ft.counted} "
                f"| {ft.counts[Status.SURVIVED]} | {ft.counts[Status.NO_COVERAGE]} |"
            )
    out += _survivors(view.survivors, max(limit, 0))
    return "\n".join(out) + "\n"


def _survivors(survivors: tuple[MutantView, ...], limit: int) -> list[str]:
    if not survivors:
        return ["", "Every mutant that counts was detected."]
    shown = _spread(survivors)[:limit]
    heading = f"### Survivors ({len(shown)} of {len(survivors)})" if len(shown) < len(survivors) else (
        f"### Survivors ({len(survivors)})"
    )
    lines = ["", heading, ""]
    if not shown:
        return lines + ["See the full report for the list."]
    with_triage = any(view.triage for view in shown)
    lines += [
        "| id | family | where | operator | why |" + (" triage |" if with_triage else ""),
        "|---|---|---|---|---|" + ("---|" if with_triage else ""),
    ]
    for view in shown:
        row = [
            code(view.id),
            view.family + (" (no coverage)" if view.status == Status.NO_COVERAGE else ""),
            code(f"{view.mutant.file}:{view.span.line}"),
            code(view.mutant.operator),
            prose(view.mutant.explanation),
        ]
        if with_triage:
            row.append(text(view.triage.classification) if view.triage else "")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Inspect one with `bugsmith show <id>`."]
    return lines


def _spread(survivors: tuple[MutantView, ...]) -> list[MutantView]:
    """Round-robin over families (realistic first), so a short list shows every kind of miss."""
    by_family: dict[str, list[MutantView]] = {}
    for view in survivors:
        by_family.setdefault(view.family, []).append(view)
    queues = list(by_family.values())
    return [queue[i] for i in range(max(map(len, queues), default=0)) for queue in queues if i < len(queue)]


def text(value: str) -> str:
    """Plain text for a table cell: one line, trimmed, Markdown and HTML characters escaped."""
    return _escape(_one_line(value))


def prose(value: str) -> str:
    """Text whose `backquoted` parts, as explanations write code, stay code spans."""
    parts = _BACKQUOTED.split(_one_line(value))
    return "".join(
        _code(part[1:-1]) if index % 2 else _escape(part) for index, part in enumerate(parts)
    )


def code(value: str) -> str:
    """A code span that survives backticks and `|` in the value (GFM splits cells first)."""
    return _code(_one_line(value))


def _code(value: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    escaped = value.replace("|", "\\|")
    return f"{fence}{pad}{escaped}{pad}{fence}"


def _escape(value: str) -> str:
    return _SPECIAL.sub(r"\\\1", value).replace("&", "&amp;")


def _one_line(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= _CELL_CHARS else value[: _CELL_CHARS - 1] + "…"
