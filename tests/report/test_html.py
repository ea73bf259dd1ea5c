"""The HTML report: self-contained, escaped, and showing every mutant where it belongs."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
from html.parser import HTMLParser

from markupsafe import escape

from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.report import render_html

from .conftest import HOSTILE
from .runs import SNIPPET, make_run


class Tags(HTMLParser):
    """Collects start tags with their attributes, and the text of <script> elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def parse(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def with_attr(tags: Tags, name: str) -> list[dict[str, str | None]]:
    return [attrs for _, attrs in tags.tags if name in attrs]


def test_hostile_text_is_escaped_everywhere(hostile_run: RunResult) -> None:
    """A payload in source, test names, a file name and options never closes the report's script."""
    html = render_html(hostile_run)
    assert "</script><script>alert(1)" not in html
    assert html.count("<script") == 1 and html.count("</script>") == 1
    assert str(escape(HOSTILE)) in html  # shown, as text
    assert len(parse(html).scripts) == 1


def test_only_the_report_script_may_run(run: RunResult) -> None:
    """The CSP allows no network and only the script whose hash it names."""
    html = render_html(run)
    tags = parse(html)
    (script,) = tags.scripts
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    (csp,) = [a["content"] for t, a in tags.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    assert not [a for a in with_attr(tags, "src")]  # no external scripts or images
    assert not [t for t, a in tags.tags if t == "link" and a.get("rel") == "stylesheet"]


def test_every_mutant_has_a_pill_and_a_card(run: RunResult) -> None:
    """Each mutant appears once as a clickable pill and once as a details card, with its status and family."""
    tags = parse(render_html(run))
    statuses = {o.mutant_id: o.status.value.replace(" ", "-") for o in run.outcomes}
    pills = [a for t, a in tags.tags if t == "button" and "pill" in (a.get("class") or "")]
    cards = [a for t, a in tags.tags if t == "article"]
    assert sorted(p["data-mutant"] for p in pills) == sorted(c["data-mutant"] for c in cards) == sorted(statuses)
    for attrs in pills + cards:
        assert attrs["data-status"] == statuses[attrs["data-mutant"]]
        assert attrs["data-family"] in ("window", "classic")


def test_card_tells_who_killed_it_and_how(run: RunResult) -> None:
    """A killed mutant's card names the killing test and the silent failure; a survivor's says it survived."""
    html = render_html(run)
    killed = next(o for o in run.outcomes if o.status is Status.KILLED)
    card = re.search(rf'<article[^>]*id="m-{killed.mutant_id}".*?</article>', html, re.S).group()
    assert "Killed by" in card and killed.killed_by[0] in card and "silent" in card
    mutant = next(m for m in run.mutants if m.id == killed.mutant_id)
    assert mutant.operator in card and f"bugsmith show {mutant.id}" in card
    survivor = next(o for o in run.outcomes if o.status is Status.SURVIVED)
    card = re.search(rf'<article[^>]*id="m-{survivor.mutant_id}".*?</article>', html, re.S).group()
    assert "Survived: all 2 covering tests passed" in card


def test_survivors_come_first_with_a_copyable_command(run: RunResult) -> None:
    """The survivor list precedes the source and holds exactly the undetected mutants."""
    html = render_html(run)
    undetected = {o.mutant_id for o in run.outcomes if o.status in (Status.SURVIVED, Status.NO_COVERAGE)}
    section = html[html.index('id="survivors"') : html.index('id="files"')]
    listed = set(re.findall(r'<li data-mutant="(\w+)"', section))
    assert listed == undetected
    for mutant_id in undetected:
        assert f'data-copy="bugsmith show {mutant_id}"' in section
    assert html.index('id="survivors"') < html.index('class="code"')


def test_mutated_lines_are_marked_by_their_worst_status(run: RunResult) -> None:
    """A line holding a survivor and a killed mutant is marked survived; untouched lines are not marked."""
    html = render_html(run)
    rows = dict(re.findall(r'<tr id="file-pkg-snippet-py-L(\d+)"( class="[^"]*")?', html))
    by_line: dict[int, set[str]] = {}
    status = {o.mutant_id: o.status.value for o in run.outcomes}
    for mutant in run.mutants:
        by_line.setdefault(mutant.span.line, set()).add(status[mutant.id])
    order = ["survived", "no coverage", "timeout", "error", "equivalent", "killed"]
    for line in range(1, len(SNIPPET.splitlines()) + 1):
        expected = min(by_line[line], key=order.index).replace(" ", "-") if line in by_line else None
        assert rows[str(line)] == (f' class="mk-{expected}"' if expected else "")


def test_summary_shows_score_counts_families_files_and_options(run: RunResult) -> None:
    """The summary has the score, a bar per family and per file, the run time and the options."""
    html = render_html(run)
    assert '<div class="big">50.0%</div>' in html
    windows = sum(m.family.value == "window" for m in run.mutants)
    assert f'data-family-link="window">window</button></td><td class="num">{windows}</td>' in html
    assert 'href="#file-pkg-snippet-py"' in html
    assert "3.5 s" in html and "<th>workers</th><td><code>2</code></td>" in html
    assert len(re.findall(r'<div class="bar" role="img"', html)) >= 1 + 2 + 1


def test_triage_is_shown_for_a_survivor(run: RunResult) -> None:
    """Triage classification, witness and suggested test appear when given."""
    survivor = next(o.mutant_id for o in run.outcomes if o.status is Status.SURVIVED)
    triage = {survivor: {"classification": "unasserted", "witness": "values=[1, 2]", "suggested_test": "def test_x():\n    assert 1"}}
    html = render_html(run, triage=triage)
    assert html.count("unasserted") == 2  # in the survivor list and in the card
    assert "values=[1, 2]" in html and "def test_x():\n    assert 1" in html
    assert "Triage" not in render_html(run)


def test_ids_are_unique_and_links_resolve(run: RunResult) -> None:
    """Every element id is unique and every in-page link points at an existing id."""
    tags = parse(render_html(run))
    ids = [a["id"] for a in with_attr(tags, "id")]
    assert len(ids) == len(set(ids))
    targets = [a["href"][1:] for a in with_attr(tags, "href") if (a["href"] or "").startswith("#")]
    assert targets and set(targets) <= set(ids)


def test_a_file_without_recorded_source_still_lists_its_mutants(run: RunResult) -> None:
    """When the run kept no source, the file's mutants are still shown with their cards."""
    html = render_html(dataclasses.replace(run, sources={}))
    assert "did not record this file" in html
    assert html.count("<article") == len(run.mutants)


def test_an_empty_run_renders() -> None:
    """A run with no mutants renders with a dash for the score instead of failing."""
    html = render_html(make_run({"m.py": "x = 'no sites'\n"}))
    assert '<div class="big">—</div>' in html and "No mutants." in html
