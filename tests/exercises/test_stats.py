"""`bugsmith exercises --stats`: each problem's pool per family, from the builder's own runs."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.exercises.assemble.stats import FamilyPool, ProblemPool
from bugsmith.harness.exercises.summary import pool_text


def test_the_table_has_a_row_per_family_and_a_total_per_problem():
    pool = ProblemPool(problem="auc", families=(FamilyPool(family="metric", candidates=11, silent=7, loud=2),
                                                FamilyPool(family="classic", candidates=50, silent=20, loud=9)))
    rows = [line.split() for line in pool_text([pool]).splitlines()[1:3 + 1]]
    assert rows == [["auc", "metric", "11", "7", "2"], ["auc", "classic", "50", "20", "9"],
                    ["auc", "all", "61", "27", "11"]]


@pytest.mark.slow
def test_stats_validate_the_pool_and_a_second_call_reads_the_cache():
    """The metric family of auc: every candidate is validated once; the second call agrees."""
    args = ["exercises", "--stats", "--problem", "auc", "--family", "metric", "--jobs", "2"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    metric = next(line.split() for line in first.stdout.splitlines() if line.startswith("auc") and "metric" in line)
    candidates, silent, loud = map(int, metric[2:])
    assert candidates >= silent + loud and silent >= 3
    assert "candidates run" in first.stderr
    second = CliRunner().invoke(cli, args)
    assert second.stdout == first.stdout
