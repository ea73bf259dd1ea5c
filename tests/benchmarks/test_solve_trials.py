"""Blind solve trials as data (benchmarks/solve_trials.py) and the time limits fitted on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bugsmith.harness.exercises.measure import difficulty
from bugsmith.harness.exercises.measure.difficulty import (
    FORMULA,
    MinutesFit,
    minutes_fit,
    minutes_for,
    parse_minutes_fit,
    time_limit_minutes,
)
from bugsmith.harness.exercises.records import ExerciseError

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
import solve_trials  # noqa: E402 - the benchmarks are scripts, not a package


def trial(number: int, **changes: Any) -> dict[str, Any]:
    """A valid trial record; `changes` override its fields."""
    score = changes.get("score", 5)
    record = {"trial": f"t{number:03d}", "date": "2026-12-08", "bugsmith_commit": "abc1234", "problem": "auc",
              "level": "easy" if score <= 4 else "medium" if score <= 7 else "hard", "seed": number, "bugs": 1, "score": score,
              "factors": {"fault_localisation": 2}, "suggested_minutes": 40, "solver": "blind helper session",
              "steps": 10, "test_runs": 3, "hypotheses": 2, "first_hypothesis_right": False, "solved": True,
              "wall_seconds": 300.5, "mid_level_minutes": 30, "in_fit": True, "notes": ""}
    return {**record, **changes}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = solve_trials.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def line_points(a: float, b: float, scores: list[int], noise: list[float]) -> list[dict[str, Any]]:
    """In-fit trials whose minutes lie on a + b * score, moved by `noise`."""
    return [trial(i, score=s, mid_level_minutes=a + b * s + e) for i, (s, e) in enumerate(zip(scores, noise))]


def test_a_record_against_the_schema_is_refused_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A level outside easy/medium/hard on line 3: one line naming the file, the line and the field; exit 2."""
    data = write(tmp_path / "trials.jsonl", [trial(1), trial(2), trial(3, level="expert")])
    status, out, err = run(capsys, "--data", data)
    assert status == 2
    assert err.count("\n") == 1
    assert f"{data}:3: $.level:" in err and "expert" in err
    assert out == ""


@pytest.mark.parametrize(("line", "expected"), [
    ("{not json", ":2: not JSON"),
    (json.dumps({k: v for k, v in trial(2).items() if k != "solved"}), ":2: the record: 'solved' is a required"),
    (json.dumps(trial(2, score=11)), ":2: $.score: 11 is greater than the maximum of 10"),
    (json.dumps(trial(2, extra=1)), ":2: the record: Additional properties"),
    (json.dumps(trial(1)), ":2: trial 't001' is already line 1"),
])
def test_each_kind_of_bad_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str,
                                        expected: str) -> None:
    """Broken JSON, a missing or extra field, a score past 10, a repeated id: exit 2 and the line's number."""
    data = tmp_path / "trials.jsonl"
    data.write_text(json.dumps(trial(1)) + "\n" + line + "\n", encoding="utf-8")
    status, _, err = run(capsys, "--data", data)
    assert status == 2
    assert expected in err


def test_the_fit_recovers_a_known_line_and_writes_what_the_code_reads(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Minutes on 7 + 4 x score with noise that cancels: a and b come back, and a pack's limits follow them."""
    scores = [1, 1, 3, 3, 5, 5, 8, 8, 10, 10]
    data = write(tmp_path / "trials.jsonl", line_points(7, 4, scores, [2, -2] * 5))
    fit_file = tmp_path / "minutes_fit.json"
    status, out, _ = run(capsys, "--data", data, "--write-fit", "--fit-file", fit_file)
    assert status == 0
    written = json.loads(fit_file.read_text())
    assert (written["a"], written["b"], written["n"]) == (7, 4, 10)
    assert written["residual_sd"] == pytest.approx((40 / 8) ** 0.5, abs=1e-3)
    assert written["data_digest"].startswith("sha256:")
    assert "n 10, a 7, b 4 minutes per point" in out
    assert written["margin"] == pytest.approx(1.2816 * (40 / 8) ** 0.5, abs=1e-3)  # 9 in 10 within the limit
    shipped = parse_minutes_fit(fit_file.read_text())
    assert minutes_for(shipped, 5, 1) == 30  # 7 + 20 + 2.87 = 29.9, to the nearest 5
    assert minutes_for(shipped, 5, 2) == 30  # the score counts the further bug


def test_a_trial_of_two_bugs_is_fitted_on_its_estimate_as_it_is(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The score counts further bugs already, so a fitted line adds nothing per bug: a two-bug
    trial's estimate enters the fit as it is, and the written fit says so."""
    records = line_points(7, 4, [1, 3, 5, 8, 10, 10], [0] * 6)
    records[3] = {**records[3], "bugs": 2}
    data = write(tmp_path / "trials.jsonl", records)
    fit_file = tmp_path / "minutes_fit.json"
    assert run(capsys, "--data", data, "--write-fit", "--fit-file", fit_file)[0] == 0
    written = json.loads(fit_file.read_text())
    assert (written["a"], written["b"], written["per_further_bug"]) == (7, 4, 0.0)
    assert minutes_for(parse_minutes_fit(fit_file.read_text()), 8, 2) == 40  # 7 + 32 = 39


def test_too_few_trials_refuse_to_write_and_keep_the_previous_fit(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Five in-fit trials (and any number outside the fit) are not enough: exit 1, one line, the file untouched."""
    records = line_points(7, 4, [1, 3, 5, 8, 10], [0] * 5) + [trial(i, in_fit=False) for i in range(10, 14)]
    data = write(tmp_path / "trials.jsonl", records)
    fit_file = tmp_path / "minutes_fit.json"
    fit_file.write_text("previous\n")
    status, out, err = run(capsys, "--data", data, "--write-fit", "--fit-file", fit_file)
    assert status == 1
    assert err.count("\n") == 1 and "5 in-fit trials, at least 6 needed" in err
    assert fit_file.read_text() == "previous\n"
    assert "n 5, a 7, b 4" in out  # the figures are still shown


def test_a_slope_that_is_not_positive_refuses_to_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Harder exercises estimated as quicker: the fit is shown but never shipped."""
    data = write(tmp_path / "trials.jsonl", line_points(60, -3, [1, 2, 4, 6, 8, 10], [0] * 6))
    fit_file = tmp_path / "minutes_fit.json"
    status, _, err = run(capsys, "--data", data, "--write-fit", "--fit-file", fit_file)
    assert status == 1
    assert "slope is -3" in err
    assert not fit_file.exists()


def test_without_write_fit_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Summarising is read-only: a good fit is printed, not written."""
    data = write(tmp_path / "trials.jsonl", line_points(7, 4, [1, 3, 5, 8, 10, 10], [0] * 6))
    fit_file = tmp_path / "minutes_fit.json"
    assert run(capsys, "--data", data, "--fit-file", fit_file)[0] == 0
    assert not fit_file.exists()


def _levelled(steps: dict[str, int], hard_right: int, problems: int) -> list[dict[str, Any]]:
    """Two trials per problem and level, with the given steps; the first `hard_right` hard ones right at once."""
    score = {"easy": 2, "medium": 6, "hard": 9}
    records: list[dict[str, Any]] = []
    for p in range(problems):
        for level, n in steps.items():
            for _ in range(2):
                right = level == "hard" and sum(r["first_hypothesis_right"] for r in records) < hard_right
                records.append(trial(len(records), problem=f"p{p}", level=level, score=score[level], steps=n,
                                     mid_level_minutes=score[level] * 5, first_hypothesis_right=right))
    return records


def test_the_checks_of_issue_38_pass_on_effort_that_grows_with_the_level(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Steps 4 < 8 < 15 (15 >= 3 x 4), hard mostly wrong at first, four problems: every check passes."""
    data = write(tmp_path / "trials.jsonl", _levelled({"easy": 4, "medium": 8, "hard": 15}, 2, 4))
    out = run(capsys, "--data", data)[1]
    assert "PASS  easy < medium < hard in median steps: easy 4, medium 8, hard 15" in out
    assert "PASS  easy < medium < hard in median minutes: easy 10, medium 30, hard 45" in out
    assert "PASS  hard median steps >= 3 x easy median steps: hard 15 against 3 x 4 = 12" in out
    assert "PASS  hard usually not solved at the first hypothesis (share < 0.5): 2 of 8 right" in out
    assert "PASS  at least 4 problems tried at every level: 4: p0, p1, p2, p3" in out
    assert "FAIL" not in out


def test_the_checks_fail_with_their_figures_when_hard_is_not_hard(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Hard only a little slower than easy, always right at once, three problems: those checks fail."""
    data = write(tmp_path / "trials.jsonl", _levelled({"easy": 4, "medium": 5, "hard": 6}, 6, 3))
    out = run(capsys, "--data", data)[1]
    assert "PASS  easy < medium < hard in median steps" in out
    assert "FAIL  hard median steps >= 3 x easy median steps: hard 6 against 3 x 4 = 12" in out
    assert "FAIL  hard usually not solved at the first hypothesis (share < 0.5): 6 of 6 right" in out
    assert "FAIL  at least 4 problems tried at every level: 3" in out


def test_the_tables_cover_the_fit_unless_asked_for_every_trial(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Trials of an earlier builder stay out of the tables and checks, and --all brings them in."""
    records = [trial(1, steps=10), trial(2, steps=20), trial(3, steps=90, in_fit=False, problem="scheduler")]
    data = write(tmp_path / "trials.jsonl", records)
    table = [line.split() for line in run(capsys, "--data", data)[1].splitlines()]
    assert ["medium", "2", "2", "15"] in [row[:4] for row in table]
    assert not any("scheduler" in row for row in table)
    every = [line.split() for line in run(capsys, "--data", data, "--all")[1].splitlines()]
    assert ["medium", "3", "3", "20"] in [row[:4] for row in every]
    assert ["scheduler", "medium", "1", "1", "90"] in [row[:5] for row in every]


def test_spearman_matches_pandas_with_ties() -> None:
    """Rank correlation with tied scores agrees with pandas' own (no scipy needed)."""
    x = [1, 2, 2, 3, 5, 5, 5, 8]
    y = [3, 1, 4, 4, 9, 2, 6, 7]
    expected = pd.DataFrame({"x": x, "y": y}).corr(method="spearman").loc["x", "y"]
    assert solve_trials.spearman(x, y) == pytest.approx(expected)
    assert solve_trials.spearman(x, [4] * len(x)) is None


def test_the_attempt_log_gives_test_runs_and_wall_seconds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three recorded runs, first at 100 s and last at 342.5 s: 3 runs over 242.5 s."""
    (tmp_path / ".attempt").mkdir()
    lines = [{"epoch": e, "outcomes": {}} for e in (100.0, 150.0, 342.5)]
    (tmp_path / ".attempt" / "runs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    status, out, _ = run(capsys, "--attempt", tmp_path)
    assert status == 0
    assert json.loads(out) == {"test_runs": 3, "wall_seconds": 242.5}
    assert run(capsys, "--attempt", tmp_path / "nowhere")[0] == 2


def test_the_committed_data_is_valid_and_the_shipped_fit_comes_from_it() -> None:
    """Every committed trial passes the schema; a fitted minutes_fit.json is exactly the fit of those trials,
    and an unfitted one is today's formula."""
    trials = solve_trials.load_trials(solve_trials.TRIALS)
    shipped = json.loads(solve_trials.FIT_PATH.read_text(encoding="utf-8"))
    if shipped["n"] > 0:
        found = solve_trials.fit(trials)
        assert found is not None
        assert solve_trials.fit_record(found) == shipped
    else:
        assert (shipped["a"], shipped["b"]) == (15, 5)
    assert minutes_fit() == parse_minutes_fit(solve_trials.FIT_PATH.read_text(encoding="utf-8"))


def test_time_limits_follow_the_loaded_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is a + b x score, plus the fit's minutes per further bug, to the nearest 5, never under 10."""
    monkeypatch.setattr(difficulty, "minutes_fit",
                        lambda: MinutesFit(a=20, b=2, n=8, source="test", per_further_bug=10))
    assert time_limit_minutes(5, 1) == 30
    assert time_limit_minutes(5, 3) == 50
    assert time_limit_minutes(9, 1) == 40  # 38, to the nearest 5
    monkeypatch.setattr(difficulty, "minutes_fit", lambda: MinutesFit(a=-40, b=1, n=8, source="test"))
    assert time_limit_minutes(2, 1) == 10


def test_without_a_fit_file_the_formula_holds_and_a_broken_one_is_an_error() -> None:
    """No file: 15 + 5 x score as before; a file without b, or with a text for a, is a one-line ExerciseError."""
    assert parse_minutes_fit(None) == FORMULA
    assert [minutes_for(FORMULA, s, 1) for s in (1, 3, 9)] == [20, 30, 60]
    with pytest.raises(ExerciseError, match="minutes_fit.json is malformed"):
        parse_minutes_fit('{"a": 15, "n": 0}')
    with pytest.raises(ExerciseError, match="a, b, per_further_bug and margin must be numbers"):
        parse_minutes_fit('{"a": "15", "b": 5, "n": 0}')
    with pytest.raises(ExerciseError, match="malformed"):
        parse_minutes_fit("{")


@pytest.mark.slow
def test_the_script_runs_as_a_script(tmp_path: Path) -> None:
    """`python benchmarks/solve_trials.py --data BAD` exits 2 with one line and no traceback."""
    data = write(tmp_path / "trials.jsonl", [trial(1, steps=-1)])
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "solve_trials.py"), "--data", str(data)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and ":1: $.steps: -1 is less than the minimum of 0" in done.stderr


def test_built_from_keeps_the_trials_of_builders_since_a_commit(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A change's effect is read on the trials built after it: a builder with the commit in its
    history counts, an earlier one or one git does not know does not, and a bad commit is an error."""
    git = ["git", "-C", str(REPO)]
    if subprocess.run([*git, "rev-parse", "HEAD~1"], capture_output=True, check=False).returncode:
        pytest.skip("a checkout without history")  # a shallow clone: nothing to compare
    head, parent = (subprocess.run([*git, "rev-parse", "--short", rev], capture_output=True, text=True,
                                   check=True).stdout.strip() for rev in ("HEAD", "HEAD~1"))
    data = write(tmp_path / "t.jsonl", [trial(1, bugsmith_commit=head, score=9), trial(2, bugsmith_commit=parent, score=9),
                                        trial(3, bugsmith_commit="unknown", score=9)])
    kept = solve_trials.built_from(solve_trials.load_trials(data), head)
    assert [t.trial for t in kept] == ["t001"]
    assert [t.trial for t in solve_trials.built_from(solve_trials.load_trials(data), parent)] == ["t001", "t002"]
    code, out, err = run(capsys, "--data", data, "--built-from", head)
    assert code == 0 and "1 trials" in out and "hard        1" in out
    code, _, err = run(capsys, "--data", data, "--built-from", "no-such-commit")
    assert code == 2 and err.strip() == "solve_trials: --built-from no-such-commit: not a commit of this repository"
