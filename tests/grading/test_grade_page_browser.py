"""The interviewer's page of a real graded attempt, in real headless Chromium.

A candidate works in the handed-out folder with real pytest runs: the whole suite (red), the
one failing test alone (red), then the fix and the whole suite again (green). `bugsmith grade
--format html --output page.html` grades it in the sandbox and writes the page, which Chromium
then opens: one timeline row per run, red, red, green, a diff that opens on a click, a
screenshot, and no console error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.judge.attempt_log import LOG
from bugsmith.harness.exercises.records import is_hidden_test
from bugsmith.harness.exercises.sources.handout_names import corpus_names
from tests.grading.submissions import requires_bwrap
from tests.report.chromium import Chromium, find_chromium

pytestmark = [pytest.mark.slow, requires_bwrap]

ROWS = "[...document.querySelectorAll('ol.timeline > li.run')]"


def _pytest(folder: Path, *args: str) -> None:
    """pytest in the candidate's folder as they would run it (their recorder logs the run)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=folder, env=env, capture_output=True,
                   timeout=300, check=False)


@pytest.fixture(scope="module")
def page(auc_exercises, auc_pack, tmp_path_factory) -> Path:
    """The page of an attempt with three recorded runs (red, red, green), written by the CLI."""
    exercise = auc_exercises[0]
    folder = Path(shutil.copytree(auc_pack.candidate / exercise.id, tmp_path_factory.mktemp("attempt") / "careful"))
    names = corpus_names(exercise.problem)  # the folder names the package `auc/`, the records `reference/auc/`
    failing = sorted(names.test_id(t) for t in exercise.fail_to_pass if not is_hidden_test(t))
    _pytest(folder)
    _pytest(folder, failing[0])
    for path, text in exercise.reference.items():
        (folder / names.path(path)).write_text(text, encoding="utf-8")
    _pytest(folder)
    assert len((folder / LOG).read_text(encoding="utf-8").splitlines()) == 3
    written = tmp_path_factory.mktemp("page") / "page.html"
    done = CliRunner().invoke(cli, ["grade", "--format", "html", "--output", str(written),
                                    str(auc_pack.instructor), exercise.id, str(folder)])
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"{exercise.id} ({exercise.problem}): PASS")  # the text summary on stdout
    return written


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    """Chromium; its absence fails under CI and skips only on a workstation (as tests/report does)."""
    found = find_chromium()
    if found is None:
        message = "chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with Chromium(found, width=1200, height=1600) as opened:
        yield opened


def test_the_timeline_has_one_row_per_run_red_red_green(browser: Chromium, page: Path) -> None:
    """Three rows in order, the first two red and the last green, each marker drawn in its colour."""
    browser.load(page.as_uri())
    assert browser.evaluate(f"{ROWS}.map(r => r.dataset.run)") == ["1", "2", "3"]
    assert browser.evaluate(f"{ROWS}.map(r => r.dataset.marker)") == ["red", "red", "green"]
    colours = browser.evaluate(f"{ROWS}.map(r => getComputedStyle(r.querySelector('.marker')).backgroundColor)")
    assert colours[0] == colours[1] != colours[2]
    assert browser.evaluate(f"{ROWS}[1].querySelector('details.tests summary').textContent") == "1 test selected"
    assert browser.evaluate("document.body.innerText").startswith("For the interviewer: lists held-back tests")
    assert browser.console_errors() == []


def test_a_diff_opens_on_a_click_and_shows_the_fix(browser: Chromium, page: Path, auc_exercises) -> None:
    """The third run's diff is closed, opens on a click on its summary, and shows added and removed lines."""
    browser.load(page.as_uri())
    diff = "document.querySelector('#run-3 details.diff')"
    assert browser.evaluate(f"{diff}.open") is False
    assert browser.evaluate(f"{diff}.querySelector('pre').checkVisibility()") is False
    browser.click("#run-3 details.diff summary")
    assert browser.evaluate(f"{diff}.open") is True
    assert browser.evaluate(f"{diff}.querySelector('pre').checkVisibility()") is True
    added = browser.evaluate(f"[...{diff}.querySelectorAll('span.add')].map(s => s.textContent)")
    removed = browser.evaluate(f"[...{diff}.querySelectorAll('span.del')].map(s => s.textContent)")
    assert added and removed and all(line.startswith("+") for line in added)
    reference = "".join(auc_exercises[0].reference.values())
    assert all(line[1:] in reference for line in added)
    assert browser.evaluate("document.querySelectorAll('#run-1 details.diff, #run-2 details.diff').length") == 0
    assert browser.console_errors() == []


def test_the_page_screenshots_without_console_errors(browser: Chromium, page: Path, tmp_path: Path) -> None:
    """A full-page screenshot is a non-empty PNG; loading the page logged no error (no blocked resource)."""
    browser.load(page.as_uri())
    browser.click("#run-2 details.tests summary")
    shot = tmp_path / "attempt.png"
    browser.screenshot(shot, full_page=True)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    assert browser.console_errors() == []
    assert not [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
