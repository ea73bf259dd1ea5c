"""The log of test runs is verified line by line: JSON, a chain of digests, times in order, diffs that tell the truth."""

from __future__ import annotations

import json
import os
import random

import pytest

from bugsmith.harness.exercises.judge.attempt_log import (
    LOG,
    LogStatus,
    apply_diff,
    line_digest,
    parse_attempt,
    read_attempt,
)
from bugsmith.harness.exercises.pack import attempt_recorder
from tests.grading.attempt_logs import FIXED, HANDOUT, T0, VISIBLE, line, log_text

EDITED = {"pkg/core.py": HANDOUT["pkg/core.py"].replace("return total * 2", "return total  # halved?")}


def _three_runs() -> str:
    return log_text([(HANDOUT, {"failing": VISIBLE[:1]}), (EDITED, {"failing": VISIBLE[:1]}), (FIXED, {})])


def _rows(text: str) -> list[dict]:
    return [json.loads(row) for row in text.splitlines()]


def _joined(rows: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)


def test_a_whole_log_verifies_and_each_run_gets_its_code_back():
    """Three chained runs: ok, in order, each run's code rebuilt from its diff against the handout."""
    log = parse_attempt(_three_runs(), HANDOUT)
    assert log.status == LogStatus.OK and log.note == ""
    assert [run.code for run in log.runs] == [HANDOUT, EDITED, FIXED]
    assert [run.outcomes[VISIBLE[0]] for run in log.runs] == ["failed", "failed", "passed"]
    assert [run.exit_status for run in log.runs] == [1, 1, 0]


def test_the_recorders_own_lines_verify(tmp_path):
    """Lines appended by the recorder's `append` (real time, its own digests) verify with the same code."""
    log = tmp_path / "runs.jsonl"
    for code in (HANDOUT, FIXED):
        facts = {"selected": list(VISIBLE), "outcomes": {t: "passed" for t in VISIBLE}, "exit": 0,
                 "code": {p: attempt_recorder.digest(t) for p, t in code.items()},
                 "diff": attempt_recorder.diff_all(HANDOUT, code)}
        attempt_recorder.append(log, facts, [])
    parsed = parse_attempt(log.read_text(), HANDOUT)
    assert parsed.status == LogStatus.OK and [run.code for run in parsed.runs] == [HANDOUT, FIXED]


def test_an_empty_log_is_whole_and_has_no_runs():
    """The pack ships the log empty: a folder whose tests never ran."""
    assert parse_attempt("", HANDOUT).status == LogStatus.OK and parse_attempt("", HANDOUT).runs == ()


@pytest.mark.parametrize("forge, why", [
    (lambda rows: rows[0]["outcomes"].update({VISIBLE[0]: "passed"}), "line 1 was edited after it was written"),
    (lambda rows: rows.pop(1), "line 2 does not follow the line before it"),
    (lambda rows: rows.pop(0), "line 1 does not start the chain"),
    (lambda rows: rows.insert(1, "not json"), "line 2 is not JSON"),
    (lambda rows: rows[2].pop("selected"), "line 3 has no 'selected'"),
])
def test_a_forged_line_breaks_the_log_and_the_note_names_it(forge, why):
    """An edited, removed, inserted or incomplete line: broken, no runs, one line saying where."""
    rows: list = _rows(_three_runs())
    forge(rows)
    text = "".join((r if isinstance(r, str) else json.dumps(r, sort_keys=True)) + "\n" for r in rows)
    log = parse_attempt(text, HANDOUT)
    assert log.status == LogStatus.BROKEN and log.runs == ()
    assert why in log.note and "\n" not in log.note


def test_a_line_forged_with_a_fresh_digest_still_breaks_the_chain():
    """Re-digesting an edited line does not help: the next line names the old digest."""
    rows = _rows(_three_runs())
    rows[0]["outcomes"][VISIBLE[0]] = "passed"
    rows[0]["digest"] = line_digest(rows[0])
    log = parse_attempt(_joined(rows), HANDOUT)
    assert log.status == LogStatus.BROKEN and "line 2 does not follow" in log.note


def test_times_that_go_back_are_out_of_order():
    """A whole chain forged with an earlier time: broken, out of order."""
    first = line(HANDOUT, prev="", epoch=T0, failing=VISIBLE[:1])
    second = line(FIXED, prev=first["digest"], epoch=T0 - 60)
    log = parse_attempt(_joined([first, second]), HANDOUT)
    assert log.status == LogStatus.BROKEN and "line 2 is earlier than the line before it" in log.note


def test_a_diff_that_does_not_give_the_named_code_is_caught():
    """Digests of the fixed code with the diff of another edit (both re-chained): broken."""
    first = line(HANDOUT, prev="", epoch=T0)
    lying = line(FIXED, prev=first["digest"], epoch=T0 + 60, diff=attempt_recorder.diff_all(HANDOUT, EDITED))
    log = parse_attempt(_joined([first, lying]), HANDOUT)
    assert log.status == LogStatus.BROKEN and "does not give the code its digest names" in log.note


def test_diffs_are_checked_against_the_instructors_handout():
    """A log written against another starting code (a candidate's own start.json) does not verify."""
    other = {"pkg/core.py": HANDOUT["pkg/core.py"].replace('"""Core."""', '"""Mine."""')}
    text = log_text([(FIXED, {"handout": other})])
    assert parse_attempt(text, other).status == LogStatus.OK
    log = parse_attempt(text, HANDOUT)
    assert log.status == LogStatus.BROKEN and "diff" in log.note


def test_a_run_the_recorder_could_not_read_keeps_its_outcomes():
    """`code: null` (the recorder noted an error): a run whose code is unknown, not a broken log."""
    log = parse_attempt(log_text([(None, {"note": "code: OSError"}), (FIXED, {})]), HANDOUT)
    assert log.status == LogStatus.OK and log.runs[0].code is None and log.runs[0].note == "code: OSError"


def test_the_log_is_read_from_the_submission_safely(tmp_path):
    """Absent: missing; a link: broken (never followed); a plain file: read."""
    (tmp_path / ".attempt").mkdir()
    assert read_attempt(tmp_path, HANDOUT).status == LogStatus.MISSING
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(_three_runs())
    os.symlink(outside, tmp_path / LOG)
    linked = read_attempt(tmp_path, HANDOUT)
    assert linked.status == LogStatus.BROKEN and "link" in linked.note
    (tmp_path / LOG).unlink()
    (tmp_path / LOG).write_text(_three_runs())
    assert len(read_attempt(tmp_path, HANDOUT).runs) == 3


def test_diffs_round_trip_on_awkward_text():
    """Lines that look like diff headers, no final newline, carriage returns, new and deleted files."""
    rng = random.Random(7)
    pieces = ["a\n", "-- x\n", "--- y\n", "+++ z\n", "b\r\n", "\n", "@@ -1 +1 @@\n", "c", "\\ q\n", "\x0c\n"]
    for _ in range(500):
        before = {f"f{i}.py": "".join(rng.choices(pieces, k=rng.randint(0, 9))) for i in range(rng.randint(0, 2))}
        after = {f"f{i}.py": "".join(rng.choices(pieces, k=rng.randint(0, 9))) for i in range(rng.randint(0, 3))}
        rebuilt = apply_diff(before, attempt_recorder.diff_all(before, after))
        assert {p: rebuilt.get(p, "") for p in after} == after


def test_a_hunk_that_does_not_match_is_refused():
    diff = attempt_recorder.diff_all(HANDOUT, FIXED)
    with pytest.raises(ValueError):
        apply_diff(EDITED, diff)
