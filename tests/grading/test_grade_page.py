"""The interviewer's page of a grade (`bugsmith grade --format html`), from hand-made logs.

The page is read as a browser would read its markup (html.parser): the elements it has, their
classes and attributes, and the text a person sees. The real-browser test is
test_grade_page_browser.py.
"""

from __future__ import annotations

from html.parser import HTMLParser

from bugsmith.harness.exercises.judge.attempt_log import AttemptLog, LogStatus, parse_attempt
from bugsmith.harness.exercises.judge.differential import Differential, Mismatch
from bugsmith.harness.exercises.judge.grade_formats import FormatOptions, grade_format
from bugsmith.harness.exercises.judge.grade_page import grade_page
from bugsmith.harness.exercises.judge.grading import Grade, TestResult
from bugsmith.harness.exercises.judge.process import Process, judge
from bugsmith.harness.shared.protocol import TestOutcome
from tests.grading.attempt_logs import FIXED, HANDOUT, VISIBLE, log_text

CORE = "pkg/core.py"
FAILING = VISIBLE[:1]
HOSTILE = "</pre></code><script>alert(1)</script><img src=x onerror=alert(2)>"
GUESS = {CORE: HANDOUT[CORE].replace("sum(xs) / len(xs)", "sum(xs) / max(len(xs), 1)")}
HELD_BACK = "tests/test_core_hidden.py::test_area_of_nothing"


class Page(HTMLParser):
    """The elements of a page: (tag, attributes) in document order, and its visible text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.chunks: list[str] = []
        self._head = False
        self.feed(html)
        self.text = " ".join(" ".join(self.chunks).split())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._head = self._head or tag == "head"

    def handle_endtag(self, tag: str) -> None:
        self._head = self._head and tag != "head"

    def handle_data(self, data: str) -> None:
        if not self._head:  # the title and the styles are not text on the page
            self.chunks.append(data)

    def having(self, tag: str, css_class: str) -> list[dict[str, str]]:
        return [attrs for name, attrs in self.elements if name == tag and css_class in attrs.get("class", "").split()]


def _judge(runs, code, *, log: AttemptLog | None = None) -> Process:
    return judge(log or parse_attempt(log_text(runs), HANDOUT), handout=HANDOUT, code=code, solution=FIXED,
                 visible=VISIBLE, fill=False)


def _grade(process: Process, *, passed: bool = True, message: str = "assert 0 == 1", **fields) -> Grade:
    """A grade with the visible tests and one held-back test, which fails unless `passed`."""
    tests = (*(TestResult(id=t, hidden=False, outcome=TestOutcome.PASSED) for t in VISIBLE),
             TestResult(id=HELD_BACK, hidden=True, outcome=TestOutcome.PASSED if passed else TestOutcome.FAILED,
                        message="" if passed else message))
    return Grade(exercise_id="exercise-01", problem="core", tests=tests, fix="reference" if passed else "none",
                 diff_lines=process.change.lines, timed_out=False, duration=1.0, process=process, **fields)


RED_RED_GREEN = [(HANDOUT, {"failing": FAILING}), (HANDOUT, {"selected": FAILING, "failing": FAILING}), (FIXED, {})]


def test_one_row_per_run_in_order_with_its_marker_time_tests_and_diff():
    """Run all (red), the failing test alone (red), fix and run all (green): three rows, their markers,
    minutes since the first run, the tests each selected, and the fix as a coloured diff on the third."""
    page = Page(grade_page(_grade(_judge(RED_RED_GREEN, FIXED))))
    rows = page.having("li", "run")
    assert [row["data-marker"] for row in rows] == ["red", "red", "green"]
    assert [row["data-run"] for row in rows] == ["1", "2", "3"]
    assert "+0:00" in page.text and "+1:00" in page.text and "+2:00" in page.text
    assert "2 tests selected" in page.text and "1 test selected" in page.text
    assert "the code as handed out" in page.text and "no change since the run before" in page.text
    assert len(page.having("details", "diff")) == 1  # only the third run changed the code
    assert [line.strip() for line in page.chunks if line.startswith(("+ ", "- "))] == [
        "-    return total * 2", "+    return total"]
    assert len(page.having("span", "add")) == 1 and len(page.having("span", "del")) == 1


def test_the_process_summary_and_the_account_line_are_on_the_page():
    """The measures of the text summary, each named, and the line saying the log is the candidate's own."""
    text = Page(grade_page(_grade(_judge(RED_RED_GREEN, FIXED)))).text
    for fact in ("tests first yes", "re-run after each change yes", "runs 3 over 2.0 min", "code states 2",
                 "time to green 2.0 min", "narrowed to one failing case yes (to 1 test at fewest)",
                 "edits outside the fix none", "reverts none", "final change minimal", "lines changed 2 (the fix: 2)",
                 "functions changed area", "log ok"):
        assert fact in text, fact
    assert "the candidate's own account" in text and "could have edited it" in text


def test_the_verdict_names_held_back_tests_for_the_interviewer():
    """A failing held-back test is listed by name with its message, under the warning at the top."""
    page = Page(grade_page(_grade(_judge(RED_RED_GREEN, FIXED), passed=False, message="assert 0.5 == 1.0")))
    assert page.text.startswith("For the interviewer: lists held-back tests")
    assert "FAILED exercise-01 (core) some tests fail" in page.text
    assert "visible tests 2/2 pass" in page.text and "held-back tests 0/1 pass" in page.text
    assert HELD_BACK in page.text and "held back" in page.text and "assert 0.5 == 1.0" in page.text


def test_tampering_and_differing_outputs_are_listed():
    """Each tampering reason, and every differing call with the test that made it."""
    check = Differential(calls=4, functions=("area",), mismatches=1,
                         examples=(Mismatch(call="area([1])", test=HELD_BACK, difference="2 != 1"),))
    text = Page(grade_page(_grade(_judge(RED_RED_GREEN, FIXED), tampering=("a canary reported passed",),
                                  differential=check))).text
    assert "TAMPERED WITH: a canary reported passed" in text
    assert "1 of 4 calls of area differ from the reference: area([1]) (called by" in text
    assert f"{HELD_BACK} ): 2 != 1" in text


def test_a_missing_or_broken_log_is_one_line_and_no_timeline():
    """Nothing of an unverified log is drawn: its one line, the change against the fix, no run."""
    forged = parse_attempt(log_text(RED_RED_GREEN).replace('"failed"', '"passed"', 1), HANDOUT)
    for log, word in ((AttemptLog(status=LogStatus.MISSING, note="no record of the test runs", runs=()), "missing"),
                      (forged, "broken")):
        page = Page(grade_page(_grade(_judge([], FIXED, log=log))))
        assert page.having("li", "run") == [] and page.having("ol", "timeline") == []
        assert f"log {word}: " in page.text and "the end state is graded as usual" in page.text
        assert "final change minimal" in page.text and "tests first" not in page.text


def test_a_stale_log_keeps_its_timeline_and_says_so():
    """Code changed after the last run: the runs are drawn, and the note says the log ends early."""
    page = Page(grade_page(_grade(_judge(RED_RED_GREEN[:2], FIXED))))
    assert [row["data-marker"] for row in page.having("li", "run")] == ["red", "red"]
    assert "log stale: the code was changed after the last recorded test run" in page.text


def test_a_run_with_no_failure_that_is_not_green_is_amber():
    """Only part of the visible suite selected, all of it passing: neither red nor green."""
    page = Page(grade_page(_grade(_judge([(FIXED, {"selected": FAILING}), (FIXED, {})], FIXED))))
    assert [row["data-marker"] for row in page.having("li", "run")] == ["amber", "green"]
    assert "no failure, but not every visible test was selected" in page.text


def test_hostile_names_messages_and_code_are_text():
    """A test name, a message and the candidate's code carrying markup stay text: no script or image element."""
    code = {CORE: FIXED[CORE] + f"\n\n# {HOSTILE}\n"}
    process = _judge([(HANDOUT, {"failing": FAILING}), (code, {})], code)
    grade = _grade(process, passed=False, message=HOSTILE, tampering=(HOSTILE,))
    html = grade_page(grade)
    page = Page(html)
    assert not [tag for tag, _ in page.elements if tag in ("script", "img", "iframe", "object")]
    assert page.text.count(HOSTILE) >= 3  # the message, the tampering reason, the diff
    assert "&lt;script&gt;" in html


def test_the_page_needs_nothing_from_outside():
    """One file: inline styles, no script, nothing loaded from anywhere but the page itself."""
    html = grade_page(_grade(_judge(RED_RED_GREEN, FIXED)))
    page = Page(html)
    links = [attrs.get(key, "") for _, attrs in page.elements for key in ("src", "href") if key in attrs]
    assert all(link.startswith("data:") for link in links)
    assert not [tag for tag, _ in page.elements if tag == "script"] and "<style>" in html
    (policy,) = [attrs["content"] for tag, attrs in page.elements if attrs.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy


def test_html_is_a_format_of_the_table():
    """`--format html` renders the page of the grade it is given."""
    grade = _grade(_judge(RED_RED_GREEN, FIXED))
    assert grade_format("html").render(grade, FormatOptions()) == grade_page(grade)
    assert grade_format("html").failure is None  # no platform reads it alone
