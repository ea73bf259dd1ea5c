"""bugsmith.harness.run on a tiny project: every kind of verdict, safety, caching and resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from toyproject import TOY_MUTATORS, DeleteAugAssign, by_source, tree_digest

from bugsmith import harness
from bugsmith.errors import BaselineError, ConfigError
from bugsmith.harness.child.worker import COLLECT_BASE
from bugsmith.harness.config import resolve
from bugsmith.harness.executors.confirmation import TIMEOUT_CONFIRMATION
from bugsmith.harness.shared.protocol import FRESH_IMPORT_ALLOWANCE, STRETCH

pytestmark = pytest.mark.slow  # every test starts a real run: worker processes, mutants

EXPECTED = {
    (4, "10", "0"): "killed",  # module level: runs through a fresh import
    (8, "<", "<="): "survived",
    (16, "0", "1"): "killed",
    (18, "s += x", "pass"): "killed",
    (27, "0", "1"): "survived",
    (28, "<", "<="): "killed",
    (29, "i += 1", "pass"): "timeout",
    (29, "1", "0"): "timeout",
    (34, "1", "0"): "error",  # os._exit(0) under a test
    (35, "0", "1"): "no coverage",
    (36, "2", "0"): "error",  # sys.exit(0) under a test
    (37, "0", "1"): "no coverage",
    (42, "<", "<="): "survived",
    (42, "0", "1"): "survived",
    (48, "1", "0"): "no coverage",
    (52, "1", "0"): "killed",
}


def run(root: Path, **overrides):
    return harness.run(resolve(root, **overrides), mutators=TOY_MUTATORS)


def test_every_verdict_and_the_tree_is_untouched(project: Path) -> None:
    """Each mutant gets the verdict its behaviour deserves, and no byte of the tree changes."""
    before = tree_digest(project)
    result = run(project, timeout_factor=2.0)
    assert by_source(result) == EXPECTED
    assert tree_digest(project) == before


def test_test_tools_keep_their_state_out_of_the_tree(project: Path) -> None:
    """Hypothesis keeps its state (its example database, its cache of constants) under
    .bugsmith/, never in the user's tree; mutants only read that database
    (test_hypothesis_view.py)."""
    (project / "tests" / "test_props.py").write_text(
        "from hypothesis import given, strategies as st\n\n"
        "from calcpkg.calc import total\n\n\n"
        "@given(st.integers(min_value=1))\n"
        "def test_total_of_one(x):\n"
        "    assert total([x]) == x\n")
    before = tree_digest(project)
    result = run(project)
    assert by_source(result)[(18, "s += x", "pass")] == "killed"
    assert tree_digest(project) == before
    assert (project / ".bugsmith" / "tool-state" / "hypothesis").is_dir()


def test_unittest_style_failures_kill_and_skips_do_not_fail(project: Path) -> None:
    """A TestCase's failed assertion kills its mutants (pytest hands it over in a hook of its
    own, which the recorder must not pre-empt), and a TestCase's SkipTest is a skip."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text().replace(
        "def test_total():\n    assert total([1, 2, 3]) == 6\n", ""))
    (project / "tests" / "test_total_case.py").write_text(
        "import unittest\n\nfrom calcpkg.calc import total\n\n\n"
        "class TotalTests(unittest.TestCase):\n"
        "    def test_total(self):\n"
        "        self.assertEqual(total([1, 2, 3]), 6)\n\n"
        "    def test_not_ready(self):\n"
        "        raise unittest.SkipTest('not ready')\n")
    result = run(project)
    verdicts = by_source(result)
    assert verdicts[(16, "0", "1")] == "killed" and verdicts[(18, "s += x", "pass")] == "killed"
    kills = [o for o in result.outcomes if o.status.value == "killed" and o.mutant_id in
             {m.id for m in result.mutants if m.span.line in (16, 18)}]
    assert {o.killed_by for o in kills} == {("tests/test_total_case.py::TotalTests::test_total",)}


def test_a_function_that_runs_only_at_import_is_tested_through_a_fresh_import(project: Path) -> None:
    """A helper the module calls while it is imported (to register rules) is run by no test,
    yet the tests see its effect: its mutants are run through a fresh import with every test
    of the module, not called uncovered, also when a test calls the helper too."""
    (project / "calcpkg" / "rules.py").write_text(
        "RULES = {}\n\n\n"
        "def _rule(name, value):\n"
        "    RULES[name] = value * 3\n\n\n"
        "def scaled(name, value):\n"
        "    return value * 3 if name == 'a' else value\n\n\n"
        "_rule('a', 5)\n"
        "LIMIT = scaled('a', 2)\n")
    (project / "tests" / "test_rules.py").write_text(
        "from calcpkg.rules import LIMIT, RULES, scaled\n\n\n"
        "def test_rules():\n"
        "    assert RULES == {'a': 15} and LIMIT == 6\n\n\n"
        "def test_scaled_leaves_others_alone():\n"
        "    assert scaled('b', 2) == 2\n")
    result = run(project)
    mutants = {m.id: m for m in result.mutants}
    rules = {(mutants[o.mutant_id].span.line, mutants[o.mutant_id].original): o for o in result.outcomes
             if mutants[o.mutant_id].file == "calcpkg/rules.py"}
    assert rules[(5, "3")].status.value == "killed"  # inside _rule: only the import runs it
    assert rules[(5, "3")].killed_by == ("tests/test_rules.py::test_rules",)
    # `scaled` is also called by a test, which covers the line but takes the other branch:
    # only the import-time call sees the mutant, and only a test of the module notices.
    assert rules[(9, "3")].status.value == "killed"
    assert rules[(9, "3")].killed_by == ("tests/test_rules.py::test_rules",)
    assert rules[(12, "5")].status.value == "killed"  # module level, as before


def test_what_a_test_module_builds_while_collected_is_built_by_the_mutant(project: Path) -> None:
    """A decorator factory a test class applies, and a class whose objects a test module builds
    as data, run while the tests are collected: the wrappers and objects the tests use were
    made by the original code, so their mutants are killed through a fresh import (they were
    'survived' and 'no coverage' when only the live function's code was swapped)."""
    (project / "calcpkg" / "memo.py").write_text(
        "def memoized(cache):\n"
        "    def decorator(method):\n"
        "        def wrapper(self, x):\n"
        "            if x not in cache:\n"
        "                cache[x] = method(self, x) * 1\n"
        "            return cache[x]\n"
        "        wrapper.size = 3\n"
        "        return wrapper\n"
        "    return decorator\n\n\n"
        "class Span:\n"
        "    def __init__(self, days):\n"
        "        self.days = days * 1\n\n"
        "    def __eq__(self, other):\n"
        "        return self.days == other.days\n")
    (project / "tests" / "test_memo.py").write_text(
        "import pytest\n\n"
        "from calcpkg.memo import Span, memoized\n\n\n"
        "class Doubler:\n"
        "    @memoized({})\n"
        "    def double(self, x):\n"
        "        return 2 * x\n\n\n"
        "def test_double():\n"
        "    assert Doubler().double(4) == 8 and Doubler.double.size == 3\n\n\n"
        "@pytest.mark.parametrize('span', [Span(7)])\n"
        "def test_span(span):\n"
        "    assert span.days == 7\n")
    result = run(project, paths=("calcpkg/memo.py",))
    found = by_source(result)
    assert found[(5, "1", "0")] == "killed"  # inside the wrapper the factory built at collection
    assert found[(7, "3", "0")] == "killed"  # the factory's own body: ran only at collection
    assert found[(14, "1", "0")] == "killed"  # Span.__init__: the test's Span(7) was built at import


def test_a_fresh_import_that_hangs_in_a_test_is_stopped_at_the_tests_limit(project: Path) -> None:
    """A module-level mutant runs in a fresh interpreter; when it makes a test loop forever, a
    watchdog inside that interpreter ends it at the test's own limit (about 1 s here), not
    after the 30 s a new interpreter is allowed for starting up; in both isolation modes. The
    fresh interpreter's own start-up counts too, and takes seconds on a loaded machine."""
    (project / "calcpkg" / "steps.py").write_text(
        "STEP = 2\n\n\n"
        "def count_to(n):\n"
        "    i = 0\n"
        "    while i != n:\n"
        "        i = i + STEP\n"  # not `+=`: its deletion would be one more looping mutant
        "    return i\n")
    (project / "tests" / "test_steps.py").write_text(
        "from calcpkg.steps import count_to\n\n\n"
        "def test_count_to():\n"
        "    assert count_to(4) == 4\n")
    for isolation in ("fork", "subprocess"):
        result = run(project, isolation=isolation, paths=("calcpkg/steps.py",))
        mutants = {m.id: m for m in result.mutants}
        step = next(o for o in result.outcomes if mutants[o.mutant_id].span.line == 1)
        assert step.status.value == "timeout", (isolation, step)
        assert step.detail.startswith("tests/test_steps.py::test_count_to ran past its limit of ")
        assert step.duration < FRESH_IMPORT_ALLOWANCE, (isolation, step.duration)


def test_a_mutant_that_hangs_the_import_is_stopped_after_a_start_up_limit(project: Path) -> None:
    """A helper the module runs while it is imported loops forever under its mutant: the fresh
    interpreter's start and collection are stopped after a limit derived from the worker's own
    start-up (3 x it + 5 s), and the mutant is a timeout: stopped no sooner than that limit's
    5 s, and well before the 30 s allowance that would stop it if nothing else did."""
    (project / "calcpkg" / "boot.py").write_text(
        "def _settle(n):\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        i += 1\n"
        "    return i\n\n\n"
        "READY = _settle(3)\n")
    (project / "tests" / "test_boot.py").write_text(
        "from calcpkg.boot import READY\n\n\n"
        "def test_ready():\n"
        "    assert READY == 3\n")
    result = run(project, paths=("calcpkg/boot.py",))
    mutants = {m.id: m for m in result.mutants}
    loop = next(o for o in result.outcomes if mutants[o.mutant_id].original == "i += 1")
    assert loop.status.value == "timeout", loop
    assert COLLECT_BASE <= loop.duration < FRESH_IMPORT_ALLOWANCE, loop


def test_kill_details_say_which_test_and_how(project: Path) -> None:
    """A kill names its failing test and whether it was silent (assertion) or loud (raised)."""
    result = run(project)
    mutants = {m.id: m for m in result.mutants}
    kills = {(mutants[o.mutant_id].span.line): o for o in result.outcomes if o.status.value == "killed"}
    assert kills[16].killed_by == ("tests/test_calc.py::test_total",)
    assert kills[16].failure.value == "silent" and kills[16].exception == "AssertionError"
    assert kills[52].failure.value == "loud" and kills[52].exception == "IndexError"
    exits = [o for o in result.outcomes if mutants[o.mutant_id].span.line in (34, 36)]
    assert all(o.status.value == "error" and "exit" in o.detail for o in exits)


def test_timeout_is_enforced_within_its_limit(project: Path) -> None:
    """A mutant that loops forever ends as timeout at its limit, 3 x its test's baseline time
    + 1 s (a process that did not have the CPU is confirmed with 2 x that limit, see test_pool),
    and is stopped once the limit has passed: by the wall clock, its limit plus the time it
    waited for a core on a loaded machine, never more than STRETCH x the limit (test_test_clock
    shows it stopped at the limit when it waited for nothing)."""
    result = run(project)
    mutants = {m.id: m for m in result.mutants}
    loops = [o for o in result.outcomes if mutants[o.mutant_id].span.line == 29]
    assert [o.status.value for o in loops] == ["timeout", "timeout"]
    spin = next(test.duration for test in result.tests if test.id == "tests/test_calc.py::test_spin")
    for outcome in loops:
        assert outcome.detail.startswith("tests/test_calc.py::test_spin ran past its limit of ")
        limit = float(outcome.detail.split("limit of ")[1].split(" s")[0])  # rounded to 0.1 s
        assert any(limit == pytest.approx(confirmation * (3.0 * spin + 1.0), abs=0.051)
                   for confirmation in (1.0, TIMEOUT_CONFIRMATION)), (limit, spin)
        assert limit - 0.051 <= outcome.duration < STRETCH * limit + 1.0, (limit, outcome.duration)


def test_subprocess_isolation_gives_the_same_verdicts(project: Path) -> None:
    """The portable mode (a fresh interpreter per mutant) agrees with the fork server."""
    result = run(project, isolation="subprocess")
    assert by_source(result) == EXPECTED


def test_a_run_that_waits_for_the_whole_baseline_stores_the_same_verdicts_and_keys(project: Path) -> None:
    """Mutants run while the baseline drains (the default) end with the statuses, covering tests
    and cache keys of a run that starts them only after the whole baseline."""
    def stored() -> dict[str, tuple[str, str, list[str]]]:
        with sqlite3.connect(project / ".bugsmith" / "bugsmith.sqlite") as db:
            rows = db.execute("select key, mutant_id, data from outcomes").fetchall()
        return {mutant: (key, json.loads(data)["status"], sorted(json.loads(data)["covered_by"]))
                for key, mutant, data in rows}

    pipelined = run(project, timeout_factor=2.0)
    first = stored()
    shutil.rmtree(project / ".bugsmith")
    waited = run(project, timeout_factor=2.0, pipeline=False)
    assert by_source(pipelined) == by_source(waited) == EXPECTED
    assert stored() == first


def test_red_baseline_names_the_failing_test(project: Path) -> None:
    """A suite that fails on unmutated code stops the run: every verdict would be meaningless."""
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_broken():\n    assert 1 == 2\n")
    with pytest.raises(BaselineError, match="test_broken"):
        run(project)


def test_rerun_uses_cache_and_retests_what_an_edit_touched(project: Path) -> None:
    """A re-run re-tests nothing; a new test covering a survivor re-tests exactly that code."""
    first = run(project)
    again = run(project)
    assert by_source(again) == by_source(first)
    assert [o.duration for o in again.outcomes] == [o.duration for o in first.outcomes]
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_clamp_edge():\n    assert clamp(0, 0, 10) == 0\n"
                     "    assert checked(0) == 0\n")
    third = by_source(run(project))
    assert third[(42, "<", "<=")] == "killed"  # checked(0) now raises on the mutant
    assert third[(8, "<", "<=")] == "survived"  # still equivalent on these inputs


def _outcome_count(store: Path) -> int:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_sigkill_half_way_then_resume_matches_an_uninterrupted_run(project: Path, tmp_path: Path) -> None:
    """A run killed with SIGKILL loses only what was in flight, leaves the tree intact, and the
    next run resumes to exactly the verdicts of an uninterrupted run."""
    clean = tmp_path / "clean"
    shutil.copytree(project, clean)
    before = tree_digest(project)
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from pathlib import Path\nfrom bugsmith import harness\nfrom bugsmith.harness.config import resolve\n"
        "from bugsmith.harness.terminal import summary\nfrom toyproject import TOY_MUTATORS\n"
        "print(summary(harness.run(resolve(Path('.'), jobs=1), mutators=TOY_MUTATORS)))\n"
    )
    command = [sys.executable, "-c", script]
    process = subprocess.Popen(command, cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    store = project / ".bugsmith" / "bugsmith.sqlite"
    deadline = time.monotonic() + 600  # a guard against a hung run, not a speed target
    while _outcome_count(store) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert tree_digest(project) == before
    partial = _outcome_count(store)
    resumed = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
    uninterrupted = subprocess.run(command, cwd=clean, capture_output=True, text=True, check=False)
    assert resumed.returncode == uninterrupted.returncode == 0, resumed.stderr
    survivors = lambda out: sorted(line for line in out.splitlines() if line.startswith("  "))  # noqa: E731
    assert survivors(resumed.stdout) == survivors(uninterrupted.stdout)
    assert resumed.stdout.splitlines()[-1].split("(")[0] == uninterrupted.stdout.splitlines()[-1].split("(")[0]
    assert 0 < partial < _outcome_count(store)
    assert tree_digest(project) == before


def test_since_restricts_the_run_to_changed_lines(project: Path) -> None:
    """--since REF keeps only the mutants on lines changed since REF (CI on pull requests)."""
    git = lambda *args: subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "base")
    calc = project / "calcpkg" / "calc.py"
    calc.write_text(calc.read_text().replace("    return x > LIMIT\n", "    return x > LIMIT + 0\n"))
    result = run(project, since="HEAD")
    assert {m.span.line for m in result.mutants} == {23}
    assert result.mutants and len(result.outcomes) == len(result.mutants)


def test_since_outside_git_or_with_a_ref_that_names_no_commit_stops_before_any_work(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a repository every file would look new to git, and the run would test
    everything without a word: both mistakes are a one-line configuration error, raised before
    the workers start (no store, no baseline)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(project.parent))  # wherever tmp_path sits
    with pytest.raises(ConfigError, match="not in a git repository"):
        run(project, since="HEAD")
    assert not (project / ".bugsmith" / "bugsmith.sqlite").exists()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with pytest.raises(ConfigError, match="'nosuchref' names no commit"):
        run(project, since="nosuchref")


def test_non_ascii_parametrize_ids_are_found_and_kill_for_real(project: Path) -> None:
    """Tests with non-ASCII parametrize ids are selected, run and named; a missing test would
    be a harness error, never a kill (a peer tool reports false kills here)."""
    tests = project / "tests" / "test_calc.py"
    # The new test meets only `total`'s deleted `s += x`; every other mutant (a fresh interpreter
    # each here, and spin's loop a confirmed timeout) would cost seconds and say nothing of ids.
    tests.write_text(tests.read_text().replace("def test_spin():\n    assert spin(3) == 3\n", "") + (
        "\n\n@pytest.mark.parametrize('xs', [[1, 2]], ids=['ünïcödé-ß'])\n"
        "def test_total_again(xs):\n    assert total(xs) == 3\n"))
    result = harness.run(resolve(project, isolation="subprocess"), mutators=(DeleteAugAssign(),))
    outcomes = {o.mutant_id: o for o in result.outcomes}
    deleted = next(m for m in result.mutants if m.span.line == 18 and m.mutated == "pass")
    assert outcomes[deleted.id].status.value == "killed"
    assert not [o for o in result.outcomes if "harness error" in o.detail]
    assert any("test_total_again[" in test for o in result.outcomes for test in o.covered_by)


def _workers_in(folder: Path) -> list[int]:
    """Worker processes whose working folder lies in `folder` (the project or its private copy)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
        except (OSError, ValueError):
            continue
        if b"bugsmith.harness.child" in command and cwd.startswith(str(folder)):
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="reads /proc to find the workers")
def test_sigterm_half_way_stops_the_workers_and_exits_interrupted(project: Path) -> None:
    """`kill PID` is an interruption like Ctrl-C: the workers go with the run, the exit status is
    130, and the next run resumes."""
    script = "import sys\nfrom bugsmith.harness.cli import main\nsys.argv = ['bugsmith', 'run', '--jobs', '2', '--no-report']\nmain()\n"
    process = subprocess.Popen([sys.executable, "-c", script], cwd=project, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    store = project / ".bugsmith" / "bugsmith.sqlite"
    deadline = time.monotonic() + 600  # a guard against a hung run, not a speed target
    while _outcome_count(store) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    assert _workers_in(project)
    os.kill(process.pid, signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    deadline = time.monotonic() + 60
    while _workers_in(project) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers_in(project) == []
