"""`bugsmith score` on a real two-test AUC suite teaches what it misses (a harness run: slow)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.judge.scoring import score_schema, score_tests
from bugsmith.harness.exercises.summary import score_text

SUITE = Path(__file__).parent / "suites" / "auc_two_tests.py"


def _suite(folder: Path) -> Path:
    """The fixture under a name pytest collects (`test_*.py`)."""
    target = folder / "test_auc_two.py"
    shutil.copy(SUITE, target)
    return target


@pytest.fixture(scope="module")
def weak(tmp_path_factory, root):
    return score_tests("auc", _suite(tmp_path_factory.mktemp("weak")), root=root, jobs=2)


@pytest.mark.slow
def test_a_two_test_suite_learns_what_it_never_checks(weak):
    """The summary is short and leads with the missing behaviours: sample weights and the
    column input; one test per behaviour, through the public API, named for the behaviour."""
    text = score_text(weak)
    lines = text.splitlines()
    assert len(lines) < 60, text
    lessons = lines[lines.index(next(line for line in lines if line.startswith("What the tests never check"))):]
    assert "sample weights (`sample_weight=`) are never tested" in lessons[1], text
    assert any("column `(n, 1)`" in line and "never tested" in line for line in lessons[:8]), text
    assert "Code no test runs: reference/auc/auc.py lines" in text
    names = [lesson.test_name for lesson in weak.lessons]
    assert len(set(names)) == len(names) and len({lesson.suggested_test for lesson in weak.lessons}) == len(names)
    ids = {s.mutant_id for s in weak.survivors}
    for lesson in weak.lessons:
        assert not any(i.lower() in lesson.test_name for i in ids), lesson.test_name
        imports = re.findall(r"^from \S+ import (.+)$", lesson.suggested_test, flags=re.MULTILINE)
        assert all(not name.strip().startswith("_") for line in imports for name in line.split(","))
        assert not re.search(r"\b_(validated|weights|column|check_length)\(", lesson.suggested_test)
    weights = weak.lessons[0]
    assert weights.verified_on > 0 and "sample_weight=" in weights.suggested_test
    assert sum(lesson.uncovered for lesson in weak.lessons) == sum(not s.covered for s in weak.survivors) > 0
    assert not any(s.mutant_id in text for s in weak.survivors)  # the per-bug list is --verbose only


@pytest.mark.slow
def test_the_json_record_of_a_real_run_validates(weak):
    """Every missed bug is in one lesson, and the record validates against the shipped schema."""
    record = json.loads(json.dumps(weak.to_dict()))
    jsonschema.validate(record, score_schema())
    grouped = [i for lesson in record["lessons"] for i in lesson["mutants"]]
    assert sorted(grouped) == sorted(m["mutant_id"] for m in record["mutants"])


@pytest.mark.slow
def test_score_json_on_the_command_line(tmp_path):
    """`bugsmith score --json` prints one JSON document with the lessons."""
    done = CliRunner().invoke(cli, ["score", "--json", "--no-triage", "--problem", "auc", "--family", "metric",
                                    "--jobs", "2", "--tests", str(_suite(tmp_path))])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    jsonschema.validate(record, score_schema())
    assert record["lessons"] and record["counts"]["killed"] > 0
