"""Triage on a tiny project whose three survivors are one of each class."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from triage_toy import EQUIVALENT, TOY_MUTATORS, UNASSERTED, UNDERTESTED, make_project

from bugsmith import harness
from bugsmith.errors import BugsmithError, UnknownMutantError
from bugsmith.harness.cli import cli
from bugsmith.harness.config import resolve
from bugsmith.harness.triage import Classification, TriageOptions, load_findings, triage

pytestmark = pytest.mark.slow  # every test needs the module's run and triage

# The search ends at its example count, not its clock: the time allowed is only a guard, so that
# a loaded machine finds the same inputs, only later.
FAST = TriageOptions(search_seconds=120.0, max_examples=200)


@pytest.fixture(scope="module")
def triaged(tmp_path_factory):
    """The toy project after one run and one triage of all its survivors."""
    root = make_project(tmp_path_factory.mktemp("triage"))
    result = harness.run(resolve(root), mutators=TOY_MUTATORS)
    by_site = {(m.span.line, m.original, m.mutated): m for m in result.mutants}
    return root, by_site, triage(resolve(root), settings=FAST)


def finding(triaged, site):
    _, by_site, result = triaged
    return next(f for f in result.findings if f.mutant_id == by_site[site].id)


def test_each_survivor_gets_its_class(triaged):
    """Exactly the three survivors are triaged: one unasserted, one undertested, one equivalent."""
    _, _, result = triaged
    assert result.counts() == {"unasserted": 1, "undertested": 1, "possibly equivalent": 1, "not triaged": 0}


def test_unasserted_survivor_is_found_from_the_suites_own_call(triaged):
    """test_scale_keeps_the_length called scale([1, 2], 3) and saw [4, 5] but asserted only the length."""
    found = finding(triaged, UNASSERTED)
    assert found.classification is Classification.UNASSERTED
    assert found.test == "tests/test_shapes.py::test_scale_keeps_the_length"
    assert (found.call, found.expected, found.actual) == ("scale([1, 2], 3)", "returns [3, 6]", "returns [4, 5]")
    assert found.verified and "assert result == expected" in found.suggested_test


def test_undertested_survivor_is_found_by_search(triaged):
    """No test calls spin(0); searching around the suite's spin(3) finds it and shrinks to it."""
    found = finding(triaged, UNDERTESTED)
    assert found.classification is Classification.UNDERTESTED
    assert (found.call, found.expected, found.actual) == ("spin(0)", "returns 0", "returns 1")
    assert found.test == "" and found.verified


def test_equivalent_mutant_is_possibly_equivalent_with_what_was_tried(triaged):
    """`x < lo` -> `x <= lo` in floor_at returns x == lo either way: no input tells them apart."""
    found = finding(triaged, EQUIVALENT)
    assert found.classification is Classification.POSSIBLY_EQUIVALENT
    assert "replayed 2 recorded call(s); tried 200 input(s)" in found.tried and found.suggested_test == ""
    assert not found.verified


def run_pytest(root: Path, sources, folder: Path) -> int:
    """Pytest's exit status on the given test modules, run from `root` in a fresh interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    for number, source in enumerate(sources):
        (folder / f"test_suggested_{number}.py").write_text(source)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          cwd=root, capture_output=True, check=False).returncode


def test_suggested_tests_pass_on_the_original_and_fail_on_the_mutant(triaged, tmp_path):
    """Checked here independently of triage: real pytest on the original and on a mutated copy."""
    root, by_site, result = triaged
    mutants = {m.id: m for m in by_site.values()}
    drafted = {f.mutant_id: f.suggested_test for f in result.findings if f.suggested_test}
    assert len(drafted) == 2
    assert run_pytest(root, drafted.values(), tmp_path / "on-original" / "tests") == 0
    for mutant_id, source in drafted.items():
        copy = tmp_path / mutant_id
        shutil.copytree(root / "shapes", copy / "shapes")
        mutant = mutants[mutant_id]
        (copy / mutant.file).write_text(mutant.apply((root / mutant.file).read_text()))
        assert run_pytest(copy, [source], copy / "tests") == 1


def test_findings_are_stored_and_shown(triaged, monkeypatch):
    """`bugsmith show` prints the stored class, witness and verified test, and writes nothing."""
    root, by_site, _ = triaged
    assert set(load_findings(root)) == {by_site[s].id for s in (EQUIVALENT, UNDERTESTED, UNASSERTED)}
    monkeypatch.chdir(root)
    store = root / ".bugsmith" / "bugsmith.sqlite"
    before = store.stat().st_mtime_ns
    shown = CliRunner().invoke(cli, ["show", by_site[UNASSERTED].id])
    assert shown.exit_code == 0, shown.output
    assert "triage: unasserted" in shown.output and "def test_scale_catches_" in shown.output
    assert store.stat().st_mtime_ns == before


def test_unknown_and_killed_mutants_are_refused(triaged):
    """Asking to triage a mutant the last run does not know, or one it killed, is a user error."""
    root, by_site, _ = triaged
    with pytest.raises(UnknownMutantError):
        triage(resolve(root), ["nosuchid"], settings=FAST)
    killed = by_site[(9, "<", "<=")]
    with pytest.raises(BugsmithError, match="did not survive"):
        triage(resolve(root), [killed.id], settings=FAST)


def test_sources_edited_since_the_run_are_refused(triaged, tmp_path):
    """Replaying on code that no longer matches the run's would classify the wrong code."""
    copy = tmp_path / "proj"
    shutil.copytree(triaged[0], copy)
    source = copy / "shapes" / "shapes.py"
    source.write_text(source.read_text() + "\n# edited\n")
    with pytest.raises(BugsmithError, match="changed since the last run"):
        triage(resolve(copy), settings=FAST)


def test_the_command_triages_one_survivor_and_prints_it(triaged):
    """`bugsmith triage ID` re-triages only that survivor and prints its class, witness and totals."""
    root, by_site, _ = triaged
    mutant_id = by_site[UNASSERTED].id
    done = subprocess.run([sys.executable, "-c", "from bugsmith.harness.cli import main; main()", "triage", mutant_id],
                          cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{mutant_id}  unasserted" in done.stdout
    assert "1 survivors triaged: 1 unasserted; 100% with a verified test" in done.stdout


def test_the_command_reports_an_unknown_id_in_one_line(triaged):
    """A user error is one line on stderr and exit status 2, not a traceback."""
    done = subprocess.run([sys.executable, "-c", "from bugsmith.harness.cli import main; main()", "triage", "nosuchid"],
                          cwd=triaged[0], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == "bugsmith: error: no mutant with id 'nosuchid' in the last run"
