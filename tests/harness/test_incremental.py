"""A warm run re-tests only what an edit can affect, and gives a cold run's verdicts."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from toyproject import TOY_MUTATORS, by_source

from bugsmith import harness
from bugsmith.errors import BaselineError
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import resolve
from bugsmith.harness.incremental import (
    carry_line,
    file_units,
    merge,
    mutated_meaning,
    plan_reuse,
    scope_of,
    support_files,
)
from bugsmith.harness.mutation_run import execution
from bugsmith.harness.mutation_run.planning import other_hashes
from bugsmith.harness.mutation_run.verdict_reuse import (
    KILLS,
    known_passes,
    likely_survivors,
    passed_before,
    record_passes,
    renamed_verdicts,
    split_collected,
    survivors_first,
)
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.shared.protocol import Job, TestResult, Verdict
from bugsmith.harness.store import Store
from bugsmith.mutators.family import Family
from bugsmith.mutators.mutant import Mutant, Span

BEFORE = "X = 1\n\n\ndef f(a):\n    b = a + 1\n    return b\n\n\ndef g(a):\n    return a * 2\n"


def test_renaming_a_local_keeps_the_meaning_a_constant_does_not() -> None:
    """A renamed local or a comment leaves a function's digest alone; a changed constant or
    parameter changes it; module-level code has its own digest."""
    base = file_units(BEFORE).units[0]
    renamed = file_units(BEFORE.replace("b = a + 1\n    return b", "c = a + 1  # why\n    return c")).units[0]
    constant = file_units(BEFORE.replace("a + 1", "a + 2")).units[0]
    parameter = file_units(BEFORE.replace("def f(a):\n    b = a + 1", "def f(z):\n    b = z + 1")).units[0]
    assert (renamed.digest, renamed.layout) == (base.digest, base.layout)
    assert constant.digest != base.digest
    assert parameter.digest != base.digest
    assert file_units(BEFORE.replace("X = 1", "X = 2")).skeleton != file_units(BEFORE).skeleton


def test_a_local_read_by_name_is_not_renamed() -> None:
    """A function that reads its frame (`locals()`) sees its variables' names: renaming one
    is a change."""
    source = "def f(a):\n    b = a\n    return locals()\n"
    assert file_units(source).units[0].digest != file_units(source.replace("b = a", "c = a")).units[0].digest


def _digest_of(source: str) -> str:
    return file_units(source).units[0].digest


def test_only_a_name_the_function_itself_binds_is_renamed() -> None:
    """A name bound only in a comprehension or a nested function is a global where the
    function reads it; a default value is read in the enclosing scope; a local renamed to a
    global the function reads shadows it. Each "rename" is a change."""
    comprehension = "def f(xs):\n    a = [y for y in xs]\n    return a, y\n"
    assert _digest_of(comprehension) != _digest_of(comprehension.replace("y", "z"))
    nested = "def f():\n    def g():\n        y = 1\n        return y\n    return g() + y\n"
    assert _digest_of(nested) != _digest_of(nested.replace("y", "z"))
    default = "def f(a=K):\n    K = 1\n    return a + K\n"
    assert _digest_of(default) != _digest_of(default.replace("K", "J"))
    shadow = "def f(a):\n    b = len(a)\n    return b\n"
    assert _digest_of(shadow) != _digest_of(shadow.replace("b", "len"))
    closure = "def f(a):\n    b = a\n    def g():\n        return b\n    return g\n"
    assert _digest_of(closure) == _digest_of(closure.replace("b", "c"))  # read through the closure: a rename


def _mutant(source: str, original: str, mutated: str, function: str | None = "f", mutant_id: str = "m") -> Mutant:
    start = source.index(original)
    line = source.count("\n", 0, start) + 1
    column = start - (source.rfind("\n", 0, start) + 1)
    return Mutant(id=mutant_id, operator="o", family=Family.CLASSIC, file="m.py", module="m", function=function,
                  scope=function or "", span=Span(line=line, column=column, end_line=line, end_column=column + len(original)),
                  original=original, mutated=mutated, explanation="", diff="")


def test_a_mutant_of_a_renamed_function_has_the_meaning_of_the_one_it_was() -> None:
    """The mutated function's meaning is blind to a renamed local, not to what the mutant changed."""
    renamed = BEFORE.replace("b = a + 1\n    return b", "c = a + 1\n    return c")

    before = mutated_meaning(BEFORE, _mutant(BEFORE, "b = a + 1", "b = a - 1"))
    assert before is not None
    assert mutated_meaning(renamed, _mutant(renamed, "c = a + 1", "c = a - 1")) == before
    assert mutated_meaning(renamed, _mutant(renamed, "c = a + 1", "c = a + 2")) != before
    assert mutated_meaning(BEFORE, _mutant(BEFORE, "X = 1", "X = 2", function=None)) is None
    method = "class C:\n    def f(self, a):\n        b = a + 1\n        return b\n"
    other = method.replace("b = a + 1\n        return b", "c = a + 1\n        return c")
    in_class = mutated_meaning(method, _mutant(method, "b = a + 1", "b = a - 1", function="C.f"))
    assert in_class is not None
    assert mutated_meaning(other, _mutant(other, "c = a + 1", "c = a - 1", function="C.f")) == in_class
    twice = BEFORE + "\n\ndef f(a):\n    return a\n"
    assert mutated_meaning(twice, _mutant(twice, "b = a + 1", "b = a - 1")) is None  # which f?


@pytest.mark.parametrize("status", [Status.KILLED, Status.EQUIVALENT])
def test_a_renamed_mutant_takes_the_verdict_and_kill_of_the_one_it_was(tmp_path: Path, status: Status) -> None:
    """After `b` is renamed to `c`, the new mutant `c = a - 1` gets the outcome the last run
    stored for `b = a - 1` under the same tests, and its kill record (which names it); a
    mutant that does something else gets nothing, nor does a reviewed equivalence (it names
    the old mutant)."""
    renamed = BEFORE.replace("b = a + 1\n    return b", "c = a + 1\n    return c")
    old = _mutant(BEFORE, "b = a + 1", "b = a - 1", mutant_id="old")
    new = _mutant(renamed, "c = a + 1", "c = a - 1", mutant_id="new")
    other = _mutant(renamed, "c = a + 1", "c = a * 1", mutant_id="other")
    store = Store.open(tmp_path / "store.sqlite")
    outcome = Outcome(mutant_id="old", status=status, killed_by=("t",), covered_by=("t",), tests_run=1)
    store.put_mutants([old])
    store.start_run(started="s", root="r", options={}, keys={"old": "k-old"}, tests=[], sources={"m.py": BEFORE},
                    dropped={})
    store.put_outcome("k-old-t", outcome)
    store.put_extra(KILLS, "s-old", {"test": "t", "outcome": outcome.to_dict(), "digest": "d"})

    def old_keys(mutant: Mutant, source: str, tests: tuple[str, ...]) -> tuple[str, str]:
        assert source == BEFORE
        return f"k-{mutant.id}-{'-'.join(tests)}", f"s-{mutant.id}"

    found = renamed_verdicts(store, {"new": (new, ("t",)), "other": (other, ("t",))}, {"new", "other"},
                             {"m.py": renamed}, {"new": "s-new", "other": "s-other"}, old_keys)
    if status is Status.EQUIVALENT:
        assert found == {}
    else:
        assert found == {"new": replace(outcome, mutant_id="new")}
        assert (store.extras_at(KILLS, "s-new") or {})["outcome"]["mutant_id"] == "new"
    assert renamed_verdicts(store, {"new": (new, ("t", "u"))}, {"new"}, {"m.py": renamed}, {"new": "s-new"},
                            old_keys) == {}  # other tests: no stored outcome under that key
    # A run of the renamed code in between (the sample a big full run takes first) does not
    # hide the run before the edit: the rest of the mutants still take their verdicts.
    store.start_run(started="s2", root="r", options={}, keys={}, tests=[], sources={"m.py": renamed}, dropped={})
    again = renamed_verdicts(store, {"new": (new, ("t",))}, {"new"}, {"m.py": renamed}, {"new": "s-new"}, old_keys)
    assert again == ({} if status is Status.EQUIVALENT else {"new": replace(outcome, mutant_id="new")})
    store.close()


def test_lines_below_an_edit_move_with_their_unit() -> None:
    """Two lines added in f move g's lines by two; lines of the edited f are not carried."""
    old = file_units(BEFORE)
    new = file_units(BEFORE.replace("    b = a + 1\n", "    b = a + 1\n    b += 0\n    b -= 0\n"))
    assert carry_line(old, new, 10) == 12  # g's body
    assert carry_line(old, new, 1) == 1  # above every unit
    assert carry_line(old, new, 5) is None  # inside f, which changed


def _baseline() -> Baseline:
    tests = (TestInfo(id="t.py::test_f", file="t.py", duration=0.1),
             TestInfo(id="t.py::test_g", file="t.py", duration=0.2),
             TestInfo(id="u.py::test_g", file="u.py", duration=0.3))
    lines = {"m.py": {5: ("t.py::test_f",), 6: ("t.py::test_f",), 10: ("t.py::test_g", "u.py::test_g")}}
    return Baseline(tests=tests, lines=lines, duration=1.0)


def test_only_the_tests_that_ran_an_edited_function_run_again() -> None:
    """f's constant changed: test_f runs again, test_g keeps its record with g's moved line."""
    old = {"m.py": file_units(BEFORE)}
    edited = BEFORE.replace("    b = a + 1\n", "    b = a + 2\n    b += 0\n")
    new = {"m.py": file_units(edited)}
    hashes = {"t.py": "1", "u.py": "2"}
    reuse = plan_reuse(_baseline(), old, new, hashes, hashes)
    assert reuse.rerun_tests == ("t.py::test_f",)
    assert reuse.rerun_files == ()
    assert [t.id for t in reuse.kept] == ["t.py::test_g", "u.py::test_g"]
    fresh = Baseline(tests=(TestInfo(id="t.py::test_f", file="t.py", duration=0.5),),
                     lines={"m.py": {5: ("t.py::test_f",), 7: ("t.py::test_f",)}}, duration=0.5)
    merged = merge(_baseline(), reuse, fresh, old, new)
    assert [t.id for t in merged.tests] == ["t.py::test_f", "t.py::test_g", "u.py::test_g"]
    assert merged.lines["m.py"] == {5: ("t.py::test_f",), 7: ("t.py::test_f",),
                                    11: ("t.py::test_g", "u.py::test_g")}


def test_a_changed_test_file_runs_all_its_tests_again() -> None:
    """A test file's own edit re-runs that file (new tests come from its collection)."""
    units = {"m.py": file_units(BEFORE)}
    reuse = plan_reuse(_baseline(), units, units, {"t.py": "1", "u.py": "2"}, {"t.py": "1", "u.py": "3"})
    assert reuse.rerun_files == ("u.py",)
    assert [t.id for t in reuse.kept] == ["t.py::test_f", "t.py::test_g"]


# Runs: worker processes, mutants.
def run(root: Path):
    return harness.run(resolve(root), mutators=TOY_MUTATORS)


@pytest.fixture
def tested(monkeypatch: pytest.MonkeyPatch):
    """A `run` that also returns the mutants whose verdict the run computed from tests it ran
    (during the baseline or after it): every such verdict, and only such a verdict, passes
    through `outcome_of`; a reused one (by its stored key, a kill by a test that kept its
    digest, tests known to pass) does not. Timings cannot tell the two apart: two runs of a
    fast mutant may well take the same rounded time."""
    ran: set[str] = set()
    real = execution.outcome_of

    def recording(job, verdict):
        outcome = real(job, verdict)
        ran.add(outcome.mutant_id)
        return outcome

    monkeypatch.setattr(execution, "outcome_of", recording)

    def run_tested(root: Path):
        ran.clear()
        return run(root), set(ran)

    return run_tested


def _tested_ones(result) -> set[str]:
    """The mutants a run needs tests for (no "no coverage", no reviewed equivalent)."""
    return {o.mutant_id for o in result.outcomes if o.status not in (Status.NO_COVERAGE, Status.EQUIVALENT)}


def _functions(result, ids) -> set[str | None]:
    mutants = {m.id: m for m in result.mutants}
    return {mutants[i].function for i in ids}


@pytest.mark.slow
def test_an_edit_in_one_function_retests_only_what_runs_it(project: Path, tmp_path: Path,
                                                           tested) -> None:
    """A constant changed in `total`: its mutants run again (and the module-level one, which
    every test covers, test_total too, unless a test that did not change kills it); every other
    verdict is reused, and the verdicts equal a cold run's on the edited code. A local renamed in `spin` re-runs only
    spin's own mutants: no test's dependencies changed meaning."""
    first, ran = tested(project)
    assert ran == _tested_ones(first)  # a cold run runs every covered mutant
    calc = project / "calcpkg" / "calc.py"
    calc.write_text(calc.read_text().replace("    s = 0\n", "    s = 0 + 0\n"))
    second, ran = tested(project)
    assert ran and {"total"} <= _functions(second, ran) <= {"total", None}
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, ignore=shutil.ignore_patterns(".bugsmith"))
    assert by_source(second) == by_source(run(cold))
    calc.write_text(calc.read_text().replace("    i = 0\n    while i < n:\n        i += 1\n    return i\n",
                                             "    j = 0\n    while j < n:\n        j += 1\n    return j\n"))
    third, ran = tested(project)
    assert ran == set()
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns(".bugsmith"))
    assert by_source(third) == by_source(run(fresh))


@pytest.mark.slow
def test_a_rename_that_shadows_a_global_runs_the_mutants_again(project: Path, tmp_path: Path, tested) -> None:
    """`i` renamed to `LIMIT` in a function that reads the global LIMIT is no rename: the
    function's mutants run again, and the verdicts equal a cold run's."""
    calc = project / "calcpkg" / "calc.py"
    calc.write_text(calc.read_text().replace("        i += 1\n    return i\n", "        i += 1\n    return min(i, LIMIT + n)\n"))
    tested(project)
    calc.write_text(calc.read_text().replace("    i = 0\n    while i < n:\n        i += 1\n    return min(i,",
                                             "    LIMIT = 0\n    while LIMIT < n:\n        LIMIT += 1\n"
                                             "    return min(LIMIT,"))
    second, ran = tested(project)
    assert ran and _functions(second, ran) == {"spin"}
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, ignore=shutil.ignore_patterns(".bugsmith"))
    assert by_source(second) == by_source(run(cold))


@pytest.mark.slow
def test_a_changed_test_file_or_conftest_retests_everything(project: Path, tested) -> None:
    """The tests' own file changed: no verdict its tests gave is reused (not even a kill). A
    new conftest.py may change every test: no verdict is reused."""
    tested(project)
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "# an edit\n")
    second, ran = tested(project)
    assert ran and ran == _tested_ones(second)
    (project / "tests" / "conftest.py").write_text("# a fixture could live here\n")
    third, ran = tested(project)
    assert ran and ran == _tested_ones(third)


def test_a_renamed_local_keeps_the_scope_of_mutants_that_do_not_name_it() -> None:
    """After `b` is renamed in f, a mutant of `a + 1` keeps its scope (its verdict is reused);
    a mutant that brings in a name its site did not have is keyed by f's text."""
    renamed = BEFORE.replace("b = a + 1\n    return b", "c = a + 1\n    return c")
    texts = {"f": "def f(a): ..."}
    before = scope_of(file_units(BEFORE), texts, "f", 5, "a + 1", "a - 1")
    after = scope_of(file_units(renamed), {"f": "def f(a): changed"}, "f", 5, "a + 1", "a - 1")
    assert before == after
    assert scope_of(file_units(BEFORE), texts, "f", 5, "a", "b") == texts["f"]
    assert scope_of(file_units(BEFORE.replace("a + 1", "a + 2")), texts, "f", 5, "a + 1", "a - 1") != before


def test_only_tests_not_known_to_pass_run_again(tmp_path: Path) -> None:
    """A test that passed on a mutant and kept its digest is known to pass; one whose digest
    changed is not (it runs again)."""
    store = Store.open(tmp_path / "store.sqlite")
    verdict = Verdict(mutant_id="m", results=(TestResult(id="t1", outcome="passed", when="call"),
                                              TestResult(id="t2", outcome="passed", when="call")))
    assert record_passes(store, "site", verdict, {"t1": "a", "t2": "b"}, frozenset()) == {"t1", "t2"}
    passed = passed_before(store, ["m", "never-ran"], {"m": "site", "never-ran": "other site"})
    assert passed == {"m": {"t1": "a", "t2": "b"}}
    known = known_passes(passed, {"m": ("t1", "t2", "t3")}, {"t1": "a", "t2": "changed", "t3": "c"})
    assert known == {"m": frozenset({"t1"})}
    store.close()


def test_likely_survivors_passed_every_test_their_job_runs_and_go_first_the_longest_first() -> None:
    """A mutant on which every test of its job passed before (whatever their digests now) is a
    likely survivor; one that passed only some, or never ran, is not. Likely survivors go
    first, the one with the most test seconds first; the others keep their order."""
    passed = {"short": {"t1": "old"}, "long": {"t1": "a", "t2": "b"}, "killed": {"t1": "a"}}
    jobs = [Job.unmutated("first", ("t1",), 1.0), Job.unmutated("killed", ("t1", "t2"), 1.0),
            Job.unmutated("short", ("t1",), 1.0), Job.unmutated("long", ("t1", "t2"), 1.0),
            Job.unmutated("last", ("t2",), 1.0)]
    likely = likely_survivors(passed, jobs)
    assert likely == {"short", "long"}
    by_id = {t: TestInfo(id=t, file="tests/test_x.py", duration=d) for t, d in (("t1", 0.01), ("t2", 0.3))}
    assert [job.mutant_id for job in survivors_first(jobs, likely, by_id)] == ["long", "short", "first", "killed", "last"]


def test_a_job_is_cut_to_the_collected_tests() -> None:
    """Tests a narrowed executor collected run first; the rest wait (and run only if needed)."""
    job = Job.unmutated("m", ("t1", "t2"), 1.0)
    only = Job.unmutated("n", ("t3",), 1.0)
    now, later = split_collected([job, only], frozenset({"t1"}), lambda j, tests: replace(j, tests=tests))
    assert [j.tests for j in now] == [("t1",)]
    assert {i: j.tests for i, j in later.items()} == {"m": ("t2",), "n": ("t3",)}


def test_units_come_from_the_store_for_a_text_split_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm run splits its sources and the last run's without walking unchanged texts again."""
    from bugsmith.harness.mutation_run import warm_baseline

    store = Store.open(tmp_path / "store.sqlite")
    texts = {"a.py": BEFORE, "b.py": "X = 1\n\n\ndef g():\n    return X\n"}
    first = warm_baseline.units_of(store, texts)
    assert first == {file: file_units(text) for file, text in texts.items()}
    monkeypatch.setattr(warm_baseline, "file_units", lambda text: pytest.fail("split again"))
    assert warm_baseline.units_of(store, texts) == first
    store.close()


def test_the_last_killer_is_found_and_runs_first(tmp_path: Path) -> None:
    """A mutant re-run because its killing test changed starts with that test (in the
    covering tests only: a record of a test that no longer covers it is ignored)."""
    from bugsmith.harness.config import RunOptions
    from bugsmith.harness.mutation_run.kill_order import KillOrder
    from bugsmith.harness.mutation_run.verdict_reuse import KILLS, last_killers

    store = Store.open(tmp_path / "store.sqlite")
    store.put_extra(KILLS, "site-m", {"test": "slow", "outcome": {}, "digest": "old"})
    store.put_extra(KILLS, "site-n", {"test": "gone", "outcome": {}, "digest": "old"})
    killers = last_killers(store, {"m": ("fast", "slow"), "n": ("fast", "slow")}, {"m": "site-m", "n": "site-n"})
    assert killers == {"m": "slow"}
    by_id = {name: TestInfo(id=name, file="tests/test_a.py", duration=d) for name, d in {"fast": 0.1, "slow": 2.0}.items()}
    order = KillOrder({"m": ("a.py", "f"), "n": ("a.py", "f")}, by_id,
                      RunOptions(root=Path("."), paths=("a.py",), tests=("tests",)), killers)
    job = Job.unmutated("m", ("fast", "slow"), 10.0)
    assert order.prepare(job).tests == ("slow", "fast")
    assert order.prepare(replace(job, mutant_id="n")).tests == ("fast", "slow")
    store.close()


def test_the_files_a_test_may_read_are_importable_modules_and_those_under_tests_and_sources() -> None:
    tree = {
        "calcpkg": ("d", 0, 0), "calcpkg/__init__.py": ("f", 0, 0), "calcpkg/calc.py": ("f", 10, 1),
        "calcpkg/table.json": ("f", 5, 2), "helpers/__init__.py": ("f", 0, 0), "helpers/util.py": ("f", 7, 3),
        "helpers/notes.txt": ("f", 7, 3), "README.md": ("f", 9, 4), "tests/test_calc.py": ("f", 8, 5),
        "tests/data/case.json": ("f", 6, 6), "tests/link": ("l", 0, 0), "tool.py": ("f", 3, 7),
        "testsuite/x.txt": ("f", 1, 8), "src/lib/__init__.py": ("f", 0, 0), "src/lib/core.py": ("f", 2, 9),
        "mutants/calcpkg/__init__.py": ("f", 0, 0), "mutants/calcpkg/calc.py": ("f", 11, 10),
        "build/lib/calcpkg/__init__.py": ("f", 0, 0), "docs/conf.py": ("f", 4, 11),
    }
    found = support_files(tree, {"calcpkg/calc.py", "tests/test_calc.py"}, ["tests", "calcpkg", "."])
    assert [path for path, _, _ in found] == [
        "calcpkg/__init__.py", "calcpkg/table.json", "helpers/__init__.py", "helpers/util.py",
        "src/lib/__init__.py", "src/lib/core.py", "tests/data/case.json", "tool.py"]
    assert found[1] == ("calcpkg/table.json", 5, 2)


def test_other_files_are_read_again_only_when_their_size_or_time_changed(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "store.sqlite")
    helper = tmp_path / "util.py"
    helper.write_text("A = 1\n")
    stat = helper.stat()
    first = other_hashes(store, tmp_path, [("util.py", stat.st_size, stat.st_mtime_ns)])
    helper.write_text("A = 2\n")  # the same size: put back its time, and the stored digest stands
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert other_hashes(store, tmp_path, [("util.py", stat.st_size, stat.st_mtime_ns)]) == first
    now = helper.stat()
    os.utime(helper, ns=(now.st_atime_ns, now.st_mtime_ns + 10**9))
    moved = other_hashes(store, tmp_path, [("util.py", now.st_size, now.st_mtime_ns + 10**9)])
    assert moved != first and moved["util.py"] == hashlib.sha256(b"A = 2\n").hexdigest()


@pytest.mark.slow
def test_an_edit_to_a_module_that_is_not_mutated_is_seen(project: Path, tested) -> None:
    """A module the tests import that bugsmith neither mutates nor collects: broken, the next run
    says the suite is red (the stored baseline was green); changed, every mutant runs again;
    back to a text run before, every verdict of that run is reused."""
    helpers = project / "helperpkg"
    helpers.mkdir()
    (helpers / "__init__.py").write_text("")
    double = helpers / "double.py"
    double.write_text("def double(x):\n    return 2 * x\n")
    tests = project / "tests" / "test_calc.py"
    tests.write_text(tests.read_text() + "\n\ndef test_double():\n    from helperpkg.double import double\n"
                     "    assert double(2) == 4\n")
    first, ran = tested(project)
    assert ran == _tested_ones(first)
    double.write_text("def double(x):\n    return 3 * x\n")
    with pytest.raises(BaselineError, match="test_double"):
        tested(project)
    double.write_text("def double(x):\n    return x + x\n")
    second, ran = tested(project)
    assert ran and ran == _tested_ones(second)
    double.write_text("def double(x):\n    return 2 * x\n")
    third, ran = tested(project)
    assert ran == set() and by_source(third) == by_source(first)


def test_a_fifo_among_the_other_files_is_known_by_its_size_and_time_not_read(tmp_path: Path) -> None:
    """A FIFO under the test paths (a hostile or odd project): reading it would block the run for ever."""
    os.mkfifo(tmp_path / "pipe")
    found: dict[str, str] = {}

    def hash_them() -> None:  # in a thread of its own, which a blocked read would never leave
        found.update(other_hashes(Store.open(tmp_path / "store.sqlite"), tmp_path, [("pipe", 0, 5)]))

    reader = threading.Thread(target=hash_them, daemon=True)
    reader.start()
    reader.join(30)
    assert found == {"pipe": "0:5"}
