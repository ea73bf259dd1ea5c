"""The HTML report's file sections kept between runs: taken back only for exactly what they show."""

from __future__ import annotations

import os
from pathlib import Path

from bugsmith.harness.outcome import Status
from bugsmith.harness.report import render_html, section_cache
from bugsmith.harness.report.section_cache import SectionCache

from .runs import SNIPPET, make_run

OTHER = "def f(x):\n    return x < 1\n"


def test_a_page_from_kept_sections_is_the_page_rendered_afresh(tmp_path: Path) -> None:
    """Two files, two sections kept; the second page takes both back and is the same page."""
    run = make_run({"pkg/snippet.py": SNIPPET, "pkg/other.py": OTHER})
    kept = SectionCache(tmp_path)
    first = render_html(run, sections=kept)
    assert len(list(tmp_path.glob("*.html"))) == 2
    again = SectionCache(tmp_path)
    assert render_html(run, sections=again) == first == render_html(run, sections=SectionCache(None))
    assert again.added == 0


def test_a_changed_outcome_renders_its_files_section_again(tmp_path: Path) -> None:
    """The mutants of one file, killed before, now time out (the file's score and rating stay
    the same): that file's section is rendered again and shows the new status; the other
    file's section is taken back."""
    sources = {"pkg/snippet.py": SNIPPET, "pkg/other.py": OTHER}
    before = make_run(sources, lambda mutant: Status.KILLED)
    after = make_run(sources, lambda mutant: Status.TIMEOUT if mutant.file == "pkg/other.py" else Status.KILLED)
    render_html(before, sections=SectionCache(tmp_path))
    kept = SectionCache(tmp_path)
    page = render_html(after, sections=kept)
    assert kept.added == 1
    assert page == render_html(after, sections=SectionCache(None))
    other, snippet = page.split('<details class="panel file"')[1:]  # by path
    assert "pkg/other.py" in other and 'data-status="timeout"' in other
    assert "pkg/snippet.py" in snippet and 'data-status="timeout"' not in snippet


def test_the_sections_used_least_recently_go_beyond_the_limit(tmp_path: Path, monkeypatch) -> None:
    """Three kept sections of 1,000 bytes, used at times 1, 2 and 3; the one of time 1 is taken
    back, then a new one is kept: over 3,000 bytes, the one used longest ago (time 2) goes."""
    monkeypatch.setattr(section_cache, "MAX_BYTES", 3000)
    for used in (1, 2, 3):
        path = tmp_path / f"{used:064d}.html"
        path.write_text("x" * 1000, encoding="utf-8")
        os.utime(path, (used, used))
    kept = SectionCache(tmp_path)
    assert kept.get(f"{1:064d}", lambda: "rendered again") == "x" * 1000
    assert kept.get("new", lambda: "y" * 1000) == "y" * 1000
    kept.trim()
    assert sorted(path.name for path in tmp_path.glob("*.html")) == [f"{1:064d}.html", f"{3:064d}.html", "new.html"]


def test_a_folder_that_cannot_be_written_keeps_nothing_and_the_page_is_whole(tmp_path: Path) -> None:
    run = make_run({"pkg/snippet.py": SNIPPET})
    missing = SectionCache(tmp_path / "a file, not a folder")
    (tmp_path / "a file, not a folder").write_text("")
    assert render_html(run, sections=missing) == render_html(run, sections=SectionCache(None))
    assert missing.added == 0
