"""The HTML report in real headless Chromium: no console errors, filters and cards work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bugsmith.harness.report import render_html

from .chromium import Chromium
from .conftest import ALL_STATUSES, HOSTILE_TEST
from .runs import SNIPPET, make_run

pytestmark = pytest.mark.slow

VISIBLE = (
    "(selector) => [...document.querySelectorAll(selector)]"
    ".filter(el => el.checkVisibility()).map(el => el.dataset.status)"
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report over two files, two mutants per status, with a hostile test name."""
    run = make_run(
        {"pkg/snippet.py": SNIPPET, "pkg/other.py": SNIPPET.replace("BANNER", "OTHER")},
        ALL_STATUSES,
        tests=(HOSTILE_TEST, "tests/test_snippet.py::test_clip"),
    )
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_html(run), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Chromium]:
    with Chromium(chromium) as browser:
        yield browser


def visible(browser: Chromium, selector: str) -> list[str]:
    return browser.evaluate(f"({VISIBLE})({selector!r})")


def test_page_loads_without_console_errors(browser: Chromium, report: Path) -> None:
    """The report's script runs cleanly: no exception, console error or dialog (no injected script ran)."""
    browser.load(report.as_uri())
    assert browser.evaluate("document.querySelectorAll('.pill').length") == 12
    assert browser.console_errors() == []
    assert not [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]


def test_selecting_survived_shows_only_survivors(browser: Chromium, report: Path) -> None:
    """After clicking the "survived" filter, every visible mutant survived, and all survivors are visible."""
    browser.load(report.as_uri())
    assert sorted(set(visible(browser, ".pill"))) == sorted(s.value.replace(" ", "-") for s in ALL_STATUSES)
    browser.click('.chip[data-value="survived"]')
    assert visible(browser, ".pill") == ["survived", "survived"]
    assert visible(browser, ".survivors li") == ["survived", "survived"]
    assert browser.evaluate("document.getElementById('shown').textContent") == "2 of 12 mutants shown"
    quiet = browser.evaluate("[...document.querySelectorAll('tr[data-touched]')].map(r => r.classList.contains('quiet'))")
    assert quiet.count(False) == 2 and len(quiet) > 2  # only the survivors' lines stay marked
    browser.click("#clear")
    assert len(visible(browser, ".pill")) == 12
    assert browser.console_errors() == []


def test_filters_are_read_from_the_url(browser: Chromium, report: Path) -> None:
    """`?status=survived` and `#status=no-coverage&family=classic` preselect their filters."""
    browser.load(report.as_uri() + "?status=survived")
    assert visible(browser, ".pill") == ["survived", "survived"]
    browser.load(report.as_uri() + "#status=no-coverage,killed&family=classic")
    families = browser.evaluate(
        "[...document.querySelectorAll('.pill')].filter(el => el.checkVisibility()).map(el => el.dataset.family)"
    )
    assert set(visible(browser, ".pill")) <= {"no-coverage", "killed"} and set(families) == {"classic"}
    assert browser.evaluate("document.querySelector('.chip[data-value=\"classic\"]').getAttribute('aria-pressed')") == "true"


def test_clicking_a_mutant_opens_and_closes_its_card(browser: Chromium, report: Path) -> None:
    """A pill toggles the card with the mutant's details right under its line."""
    browser.load(report.as_uri())
    mutant = browser.evaluate("document.querySelector('.pill.st-killed').dataset.mutant")
    card = f"document.getElementById('m-{mutant}')"
    assert browser.evaluate(f"{card}.checkVisibility()") is False
    browser.click(f'.pill[data-mutant="{mutant}"]')
    assert browser.evaluate(f"{card}.checkVisibility()") is True
    assert "Killed by" in browser.evaluate(f"{card}.innerText")
    browser.click(f'.pill[data-mutant="{mutant}"]')
    assert browser.evaluate(f"{card}.checkVisibility()") is False


def test_survivor_link_reveals_the_mutant_in_the_source(browser: Chromium, report: Path) -> None:
    """Following a survivor's location link opens its card at its line."""
    browser.load(report.as_uri())
    mutant = browser.evaluate("document.querySelector('.survivors a[data-open]').dataset.open")
    browser.click(f'.survivors a[data-open="{mutant}"]')
    assert browser.evaluate(f"document.getElementById('m-{mutant}').checkVisibility()") is True
    assert browser.evaluate("location.hash").endswith(f"-L{_line(browser, mutant)}")
    assert browser.console_errors() == []


def _line(browser: Chromium, mutant: str) -> int:
    return browser.evaluate(f"document.querySelector('.survivors a[data-open=\"{mutant}\"]').textContent.split(':').pop()")
