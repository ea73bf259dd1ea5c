"""A kill is the mutant's doing (issue 43): workers never share the files tests write.

The suites here have the shape that gave false kills on python-box: an autouse fixture removes
and re-creates a folder of the tests (found from `__file__`) around every test, and the tests
write files there or under a fixed name in the system's temporary folder. Two workers running
such tests at once in one copy of the project delete each other's files; and a file one
mutant's test leaves behind must not change a later mutant's verdict.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bugsmith import harness
from bugsmith.harness.config import resolve

pytestmark = pytest.mark.slow  # real runs: worker processes, mutants

SHELF = '''\
import csv
import os


def save(path, rows, header=("a", "b")):
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        for row in rows:
            writer.writerow(row)
    return len(rows)


def load(path):
    with open(path, newline="") as file:
        reader = csv.reader(file)
        next(reader)
        return [tuple(int(value) for value in row) for row in reader]


def scaled(rows, factor=2):
    return [(a * factor, b + 1) for a, b in rows]


def load_part(folder, index):
    number = index + 1
    return load(os.path.join(folder, "part{}.csv".format(number)))


def flag(folder, name, enabled=True):
    """Leave a mark file in `folder` when enabled."""
    if enabled:
        open(os.path.join(folder, name), "w").close()
    return enabled
'''

TESTS = '''\
import os
import shutil
import tempfile
import time

import pytest

from shelf.rows import flag, load, load_part, save, scaled

HERE = os.path.dirname(os.path.abspath(__file__))
TMP = os.path.join(HERE, "tmp")


@pytest.fixture(autouse=True)
def fresh_tmp():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    yield
    shutil.rmtree(TMP, ignore_errors=True)


def test_a_part_is_read_from_its_own_file():
    save(os.path.join(TMP, "part4.csv"), [(1, 2)])
    assert load_part(TMP, 3) == [(1, 2)]


@pytest.mark.parametrize("n", range(12))
def test_round_trip(n):
    rows = [(i, i * n) for i in range(n + 1)]
    path = os.path.join(TMP, f"rows{n}.csv")
    assert save(path, rows) == n + 1
    time.sleep(0.05)  # long enough for a neighbour's fixture to strike
    assert load(path) == rows


@pytest.mark.parametrize("n", range(6))
def test_scaled_round_trip_in_the_temp_folder(n):
    path = os.path.join(tempfile.gettempdir(), "shelf-fixed-name.csv")
    save(path, scaled([(n, n)]))
    time.sleep(0.05)
    assert load(path) == [(2 * n, n + 1)]


def test_a_disabled_flag_leaves_no_mark():
    assert flag(HERE, "mark", enabled=False) is False
    assert not os.path.exists(os.path.join(HERE, "mark"))


def test_nothing_is_marked_at_the_start():
    assert not os.path.exists(os.path.join(HERE, "mark"))
'''


def build_shelf(root: Path) -> Path:
    """The project at `root` (benchmarks/shared_files.py builds it too)."""
    (root / "shelf").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "shelf" / "__init__.py").write_text("")
    (root / "shelf" / "rows.py").write_text(SHELF)
    (root / "test" / "test_rows.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["shelf"]\ntests = ["test"]\n')
    return root


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    return build_shelf(tmp_path / "shelfproj")


def _verdicts(root: Path, jobs: int) -> dict[str, str]:
    shutil.rmtree(root / ".bugsmith", ignore_errors=True)  # from a fresh store: no verdict reused
    result = harness.run(resolve(root, jobs=jobs))
    return {outcome.mutant_id: outcome.status.value for outcome in result.outcomes}


def test_workers_that_share_a_test_folder_give_the_verdicts_of_one_worker(shelf: Path) -> None:
    """The baseline is green with two workers, and every verdict is the one worker's (four
    workers, and ten rounds: benchmarks/shared_files.py)."""
    alone = _verdicts(shelf, 1)
    assert "killed" in alone.values() and "survived" in alone.values()
    assert _verdicts(shelf, 2) == alone


def test_a_file_a_mutants_test_leaves_changes_no_later_verdict(shelf: Path) -> None:
    """The mutant that drops `if enabled:` writes the mark a later job's test looks for: it is
    killed by its own test, the mark is in no tree afterwards, and a second run from a fresh
    store gives every mutant the verdict of the first."""
    (shelf / "test" / "test_rows.py").write_text(TESTS + "\n\ndef test_the_mark_is_written():\n"
                                                 "    assert flag(TMP, 'mark') is True\n")
    first = harness.run(resolve(shelf, jobs=1))
    mutants = {m.id: m for m in first.mutants}
    dropped = [o for o in first.outcomes if mutants[o.mutant_id].original.lstrip().startswith("if enabled:")
               and "if enabled" not in mutants[o.mutant_id].mutated]
    assert dropped and all(o.status.value == "killed" for o in dropped)
    assert not list(shelf.rglob("mark"))
    shutil.rmtree(shelf / ".bugsmith")
    again = harness.run(resolve(shelf, jobs=2))
    assert {o.mutant_id: o.status for o in again.outcomes} == {o.mutant_id: o.status for o in first.outcomes}


def test_a_mutant_that_really_opens_a_wrong_path_stays_killed(shelf: Path) -> None:
    """FileNotFoundError from the mutant's own wrong path is the mutant's doing."""
    result = harness.run(resolve(shelf, jobs=2))
    mutants = {m.id: m for m in result.mutants}
    line = SHELF.splitlines().index("    number = index + 1") + 1
    wrong_path = [o for o in result.outcomes if mutants[o.mutant_id].span.line == line]
    assert wrong_path and all(o.status.value == "killed" for o in wrong_path)
    assert any(o.exception == "FileNotFoundError" for o in wrong_path), [(mutants[o.mutant_id].mutated, o.exception, o.killed_by) for o in wrong_path]


def test_a_write_into_the_project_by_absolute_path_is_kept_out_and_said(shelf: Path) -> None:
    """A test that writes next to the project's own files by absolute path reaches neither the
    project nor the copy the other jobs read; the run says so."""
    escaped = shelf / "escaped.txt"
    (shelf / "test" / "test_rows.py").write_text(TESTS + f"\n\ndef test_escapes():\n    open({str(escaped)!r}, 'w').write('x')\n")
    result = harness.run(resolve(shelf, jobs=2))
    assert not escaped.exists()
    assert any("writes into the project itself" in w and f"created {escaped}" in w for w in result.warnings), result.warnings


ORDERED = """\
import os

from shelf.rows import read_cache, write_cache

HERE = os.path.dirname(os.path.abspath(__file__))


def test_writes_the_cache():
    write_cache(HERE, "42")


def test_reads_the_cache():  # passes only after the test above
    assert read_cache(HERE) == 42
"""


def test_a_kill_by_a_test_that_fails_alone_on_the_unmutated_code_is_decided_without_it(shelf: Path) -> None:
    """A test that reads a file an earlier test wrote passes in the baseline and fails alone:
    its FileNotFoundError on a mutant is no kill; the run names the test."""
    rows = shelf / "shelf" / "rows.py"
    rows.write_text(rows.read_text() + (
        "\n\ndef write_cache(folder, value):\n    with open(os.path.join(folder, 'cache.txt'), 'w') as file:\n"
        "        file.write(value)\n\n\ndef read_cache(folder):\n"
        "    with open(os.path.join(folder, 'cache.txt')) as file:\n        return int(file.read()) + 0\n"))
    (shelf / "test" / "test_ordered.py").write_text(ORDERED)
    result = harness.run(resolve(shelf, jobs=2))
    mutants = {m.id: m for m in result.mutants}
    line = rows.read_text().splitlines().index("        return int(file.read()) + 0") + 1
    reading = [o for o in result.outcomes if mutants[o.mutant_id].span.line == line]
    assert reading and all(o.status.value == "error" and "fails on the unmutated code too" in o.detail
                           for o in reading), [(o.status, o.detail) for o in reading]
    assert any("test/test_ordered.py::test_reads_the_cache fails on the unmutated code when it runs alone" in w
               for w in result.warnings), result.warnings


AFTER_ANOTHER = """\
from shelf.rows import scaled

SEEN = []


def test_scales_and_remembers():
    SEEN.append(scaled([(1, 1)]))
    assert SEEN[-1] == [(2, 2)]


def test_nothing_remembered_yet():  # fails after the test above, in the same process
    assert SEEN == []
"""


def test_a_test_that_fails_only_after_another_is_named_and_counts_in_no_verdict(shelf: Path) -> None:
    """The baseline is not red for a test that passes alone: the run names it and the test it
    ran after, and no mutant is killed by it."""
    (shelf / "test" / "test_after.py").write_text(AFTER_ANOTHER)
    result = harness.run(resolve(shelf, jobs=2))
    name = "test/test_after.py::test_nothing_remembered_yet"
    assert any(w.startswith(f"{name} fails on the unmutated code when it runs after other tests (after "
                            "test/test_after.py::test_scales_and_remembers) but passes alone") for w in result.warnings)
    assert all(name not in o.killed_by and name not in o.covered_by for o in result.outcomes)
