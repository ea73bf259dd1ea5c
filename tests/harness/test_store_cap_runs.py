"""Real runs keep the store under its cap (issue 41, item 3), and what they evict is never what
the next run reuses or what `show` and `report` read. The hundred-run case drives the store's
API (tests/harness/test_store_cap.py); these check the run's end calls it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.store import Store, last_run
from bugsmith.harness.store_cap import MB, on_disk

pytestmark = pytest.mark.slow  # real runs: worker processes, mutants

CODE = ("def clamp(x, lo, hi):\n{edit}    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n"
        "    return x\n")
TESTS = ("from shop import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 10) == 5\n"
         "    assert clamp(-1, 0, 10) == 0\n    assert clamp(11, 0, 10) == 10\n")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop-project"
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shop" / "__init__.py").write_text(CODE.format(edit=""))
    (root / "tests" / "test_clamp.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["shop"]\ntests = ["tests"]\njobs = 1\n'
                                         'families = ["classic"]\nstore-cap-mb = 1\n')
    return root


def invoke(root: Path, *args: str):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return CliRunner().invoke(cli, list(args))


def count(path: Path, sql: str) -> tuple:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(sql).fetchone()
    finally:
        connection.close()


def test_runs_with_edits_end_under_the_cap_and_keep_what_they_reuse(shop: Path) -> None:
    """A store that starts with 2 MB of entries from an earlier session, then runs after edits
    under `store-cap-mb = 1`: each run ends with the store under 1 MB, the old entries are the
    ones that went, `show` and `report` read the last run, and a run after no edit finds every
    verdict and the baseline still stored (it writes no verdict)."""
    path = shop / ".bugsmith" / "bugsmith.sqlite"
    old = Store.open(path)
    for n in range(1000):
        old.put_extra("old", str(n), {"text": "x" * 2000})
    old.close()
    assert on_disk(path) > 2 * MB
    for edit in ("", "    _edit = 1\n", "    _edit = 2\n"):
        (shop / "shop" / "__init__.py").write_text(CODE.format(edit=edit))
        done = invoke(shop, "run", "--no-report")
        assert done.exit_code == 0, done.output
        assert on_disk(path) <= MB
    # of the 2 MB of old entries, no more than the runs' own entries leave room for under 90 % of the cap
    assert count(path, "SELECT COUNT(*) FROM extras WHERE kind = 'old'")[0] < 0.9 * MB / 2000
    result = last_run(shop)
    assert result.mutants and len(result.outcomes) == len(result.mutants)

    verdicts = count(path, "SELECT COUNT(*), MAX(rowid) FROM outcomes")
    baselines = count(path, "SELECT group_concat(fingerprint) FROM baselines")
    again = invoke(shop, "run", "--no-report")
    assert again.exit_code == 0, again.output
    assert count(path, "SELECT COUNT(*), MAX(rowid) FROM outcomes") == verdicts
    assert count(path, "SELECT group_concat(fingerprint) FROM baselines") == baselines

    shown = invoke(shop, "show", result.mutants[0].id)
    assert shown.exit_code == 0 and result.mutants[0].id in shown.output
    report = invoke(shop, "report", "--json", "-")
    assert report.exit_code == 0 and "files" in json.loads(report.output)
    cache = invoke(shop, "cache")
    assert cache.exit_code == 0 and "of a 1.0 MB cap" in cache.output
