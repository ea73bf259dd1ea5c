"""`bugsmith triage --write PATH` (issue 44, item 2) and a clean tree (item 4), on the toy project
of triage_toy with a pytest plugin, loaded through `addopts = -p ...` as pytest-cov's `--cov` is,
that writes a file where the session ran when it ends."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import pytest
from triage_toy import EQUIVALENT, TOY_MUTATORS, UNASSERTED, UNDERTESTED, make_project

from bugsmith import harness
from bugsmith.errors import ConfigError
from bugsmith.harness.config import resolve
from bugsmith.harness.mutation_run.progress import Progress
from bugsmith.harness.triage import Classification, Finding, TriageOptions, load_findings, triage
from bugsmith.harness.triage.display import TriageProgress
from bugsmith.harness.triage.found_tests import Drafted, compose, refuse_overwrite, write_tests
from bugsmith.mutators.base import Mutator
from bugsmith.mutators.mutant import Family

PLUGIN = '''\
import os


def pytest_sessionfinish(session):
    """Like pytest-cov's `.coverage`: a file written where the session runs, as it ends."""
    with open(os.path.join(str(session.config.rootpath), ".session-" + str(os.getpid())), "w") as out:
        out.write(os.getcwd())
    with open(os.environ["SESSION_LOG"], "a") as log:
        log.write(os.getcwd() + "\\n")
'''
WRITTEN = "tests/test_bugsmith_found.py"


def tree(root: Path) -> set[str]:
    """Every file and folder of the project but bugsmith's own folder."""
    found = set()
    for top, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f != ".bugsmith"]
        found |= {os.path.relpath(os.path.join(top, name), root) for name in folders + files}
    return found


def bugsmith(root: Path, *arguments: str, log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from bugsmith.harness.cli import main; main()", *arguments],
                          cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, "SESSION_LOG": str(log)})


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The toy project with the session plugin, after one run and `triage --write`."""
    base = tmp_path_factory.mktemp("write")
    root = make_project(base)
    (root / "session_plugin.py").write_text(PLUGIN)
    with (root / "pyproject.toml").open("a") as pyproject:
        pyproject.write("\n[tool.pytest.ini_options]\naddopts = \"-p session_plugin\"\npythonpath = [\".\"]\n")
    log = base / "sessions.log"
    os.environ["SESSION_LOG"] = str(log)  # the run's own workers load the plugin too
    try:
        result = harness.run(resolve(root), mutators=TOY_MUTATORS)
    finally:
        del os.environ["SESSION_LOG"]
    before = tree(root)
    done = bugsmith(root, "triage", "--write", WRITTEN, log=log)
    assert done.returncode == 0, done.stderr
    return root, {(m.span.line, m.original, m.mutated): m for m in result.mutants}, before, done, log


@pytest.mark.slow
def test_triage_writes_nothing_into_the_project_but_the_file_asked_for(written):
    """The plugin ran in triage's pytest sessions (its log says where), yet the project holds no
    file of its: triage's sessions run in bugsmith's private copy, as the run's do."""
    root, _, before, _, log = written
    assert tree(root) - before == {WRITTEN}
    assert before - tree(root) == set()
    sessions = log.read_text().split()
    assert sessions and all(Path(cwd).is_relative_to(root / ".bugsmith") for cwd in sessions)


@pytest.mark.slow
def test_the_progress_counts_survivors_not_a_score(written):
    """The log-mode progress says how many survivors are done and shown, never a mutation score."""
    _, _, _, done, _ = written
    assert "triage: 3/3 survivors, 2 shown by an input so far" in done.stderr
    assert "score" not in done.stderr


@pytest.mark.slow
def test_the_written_file_holds_one_test_per_verified_survivor(written):
    """Imports once at the top; each test under a comment naming its mutant, the place and the edit."""
    root, by_site, _, done, _ = written
    text = (root / WRITTEN).read_text()
    assert text.count("from shapes.shapes import") == 1 and "from shapes.shapes import scale, spin" in text
    for site in (UNASSERTED, UNDERTESTED):
        mutant = by_site[site]
        assert f"# mutant {mutant.id}, shapes/shapes.py:{site[0]} ({mutant.operator}): `{site[1]}` -> `{site[2]}`" in text
    assert by_site[EQUIVALENT].id not in text
    assert f"wrote 2 test(s) to {root / WRITTEN}" in done.stdout


@pytest.mark.slow
def test_the_written_file_passes_ruff_and_pytest_and_each_test_fails_on_its_mutant(written, tmp_path):
    """Checked here independently of bugsmith, in copies of the project: ruff's default rules,
    pytest on the original code, and each test on its own mutant."""
    root, by_site, _, _, _ = written
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", WRITTEN],
                          cwd=root, capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout
    original = tmp_path / "original"
    shutil.copytree(root, original, ignore=shutil.ignore_patterns(".bugsmith"))
    env = {**os.environ, "SESSION_LOG": str(tmp_path / "log")}
    pytest_run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    assert subprocess.run([*pytest_run, WRITTEN], cwd=original, env=env, capture_output=True).returncode == 0
    for site in (UNASSERTED, UNDERTESTED):
        mutant = by_site[site]
        copy = tmp_path / mutant.id
        shutil.copytree(original, copy)
        (copy / mutant.file).write_text(mutant.apply((copy / mutant.file).read_text()))
        selected = f"{WRITTEN}::{next(line.split('(')[0][4:] for line in (copy / WRITTEN).read_text().splitlines() if line.startswith('def ') and mutant.id in line)}"
        assert subprocess.run([*pytest_run, selected], cwd=copy, env=env, capture_output=True).returncode == 1


@pytest.mark.slow
def test_an_existing_file_is_replaced_only_with_force(written, monkeypatch):
    """Without --force the command refuses in one line before it triages anything."""
    root, _, _, _, log = written
    monkeypatch.setenv("SESSION_LOG", str(log))
    path = root / WRITTEN
    kept = path.read_text()
    done = bugsmith(root, "triage", "--write", WRITTEN, log=log)
    assert done.returncode == 2 and path.read_text() == kept
    assert done.stderr.strip() == f"bugsmith: error: {WRITTEN} already exists: choose another path, or pass --force to replace it"
    result = write_tests(resolve(root), list(load_findings(root).values()), path, force=True)
    assert len(result.written) == 2 and path.read_text() == kept


@pytest.mark.slow
def test_tests_that_do_not_hold_are_left_out_with_a_count(written, tmp_path, monkeypatch):
    """A test that fails on the original, and one that passes on its mutant too, are not written;
    the summary counts them with the reason."""
    root, by_site, _, _, log = written
    monkeypatch.setenv("SESSION_LOG", str(log))
    wrong = Finding(mutant_id=by_site[UNDERTESTED].id, classification=Classification.UNDERTESTED, verified=True,
                    suggested_test=textwrap.dedent('''\
                        from shapes.shapes import spin


                        def test_spin_wrong():
                            assert spin(0) == 5
                        '''))
    blind = Finding(mutant_id=by_site[UNASSERTED].id, classification=Classification.UNASSERTED, verified=True,
                    suggested_test=textwrap.dedent('''\
                        from shapes.shapes import scale


                        def test_scale_blind():
                            assert len(scale([1, 2], 3)) == 2
                        '''))
    result = write_tests(resolve(root), [wrong, blind], tmp_path / "test_found.py")
    assert result.written == ()
    assert sorted(result.left_out) == sorted([(wrong.mutant_id, "fail on the original beside the others"),
                                              (blind.mutant_id, "pass on their mutant too")])
    assert "left out 2: " in result.summary()


def test_refuse_overwrite(tmp_path):
    """An existing file is the user's: a one-line configuration error, unless forced."""
    path = tmp_path / "test_found.py"
    refuse_overwrite(path, force=False)
    path.write_text("x = 1\n")
    with pytest.raises(ConfigError, match="already exists"):
        refuse_overwrite(path, force=False)
    refuse_overwrite(path, force=True)


def test_compose_merges_imports_and_keeps_each_test(tmp_path):
    """Two drafted modules become one: each import once, at the top; each function after its comment."""
    from bugsmith.mutators.mutant import Mutant

    def mutant(name: str, line: int) -> Mutant:
        return Mutant.from_dict({
            "id": name, "operator": "toy/op", "family": "classic", "file": "pkg/mod.py", "module": "pkg.mod",
            "function": "f", "scope": "f", "original": "a  +\n b", "mutated": "", "explanation": "", "diff": "",
            "span": {"line": line, "column": 0, "end_line": line, "end_column": 1}})

    first = ("import pytest\n\nfrom pkg.mod import f\n\n\ndef test_one():\n    with pytest.raises(ValueError):\n"
             "        f(-1)\n")
    many = "".join(f"from pkg.mod import helper_number_{n}\n" for n in range(6)) + (
        "\n\ndef test_many():\n    assert " + " and ".join(f"helper_number_{n}" for n in range(6)) + "\n")
    second = ("import math\nimport pytest\n\nfrom pkg.mod import Frozen, g\n\n\ndef test_two():\n"
              "    with pytest.raises(Frozen):\n        assert g() == math.inf\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("")
    drafted = [Drafted(mutant=mutant("m1", 3), source=first), Drafted(mutant=mutant("m2", 9), source=second)]
    text = compose(drafted, tmp_path)
    head, _, body = text.partition("\n\n\n")
    assert head.endswith("import math\n\nimport pytest\n\nfrom pkg.mod import Frozen, f, g")
    assert "import pytest\nfrom pkg.mod import Frozen, f, g" in compose(drafted)  # not the project's: one section
    wrapped = compose([*drafted, Drafted(mutant=mutant("m3", 12), source=many)], tmp_path)
    assert "from pkg.mod import (\n    Frozen,\n    f,\n    g,\n    helper_number_0,\n" in wrapped
    (tmp_path / "wrapped.py").write_text(wrapped)
    assert "# mutant m1, pkg/mod.py:3 (toy/op): `a + b` -> (deleted)\ndef test_one():" in body
    assert body.index("def test_one") < body.index("def test_two")
    (tmp_path / "written.py").write_text(text)
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "written.py", "wrapped.py"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout


def test_the_progress_line_is_triages_own(monkeypatch):
    """Survivors done of all and how many an input showed, then the checks; in a log at most one
    line every few seconds, but always the first and the last."""
    now = [0.0]
    lines = TriageProgress(every=5.0, clock=lambda: now[0])
    counts = {"unasserted": 1, "undertested": 2, "possibly equivalent": 3, "not triaged": 0}
    first = lines.line(Progress(done=6, total=10, counts=counts, elapsed=6.0, stage="triage"))
    assert first == ("triage: 6/10 survivors, 3 shown by an input so far (1 unasserted, 2 undertested,"
                     " 3 possibly equivalent), ETA 4 s")
    now[0] = 1.0
    assert lines.line(Progress(done=7, total=10, counts=counts, elapsed=7.0, stage="triage")) is None
    assert lines.line(Progress(done=10, total=10, counts=counts, elapsed=8.0, stage="triage")) is not None
    assert lines.line(Progress(done=1, total=4, counts={}, elapsed=1.0, stage="checks")) == (
        "triage: checked 1/4 drafted tests on the original and the mutant, ETA 3 s")


READER = '''\
import os


def first_line(path):
    if not os.path.exists(path):
        raise ValueError(f"{path} does not exist")
    with open(path) as handle:
        return handle.readline().rstrip("\\n")
'''

READER_TESTS = '''\
import os

from files.reader import first_line

DATA = os.path.join(os.path.dirname(__file__), "data.txt")


def test_first_line_reads_something():
    assert first_line(DATA)
'''


class ReadAll(Mutator):
    """`handle.readline()` becomes `handle.read()`: the whole file instead of its first line."""

    name = "toy/read-all"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Call(func=m.Attribute(attr=m.Name("readline")))
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(func=node.func.with_changes(attr=cst.Name("read")))


@pytest.mark.slow
def test_a_test_that_names_a_file_of_the_project_is_written_from_the_files_own_place(tmp_path):
    """The suite ran in bugsmith's copy, so the call it made names the copy's data file: the
    written test names it from its own place, and runs in the project and in a copy of it."""
    root = tmp_path / "proj"
    (root / "files").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "files" / "__init__.py").write_text("")
    (root / "files" / "reader.py").write_text(READER)
    (root / "tests" / "test_reader.py").write_text(READER_TESTS)
    (root / "tests" / "data.txt").write_text("hello\nworld\n")
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["files"]\ntests = ["tests"]\njobs = 1\n')
    harness.run(resolve(root), mutators=(ReadAll(),))
    found = triage(resolve(root), settings=TriageOptions(search_seconds=60.0, max_examples=50)).findings
    assert [f.verified for f in found] == [True] and str(root / ".bugsmith") in found[0].suggested_test
    result = write_tests(resolve(root), found, root / WRITTEN)
    text = (root / WRITTEN).read_text()
    assert result.written == (found[0].mutant_id,), result.summary()
    assert "PROJECT_ROOT = Path(__file__).resolve().parents[1]" in text and ".bugsmith" not in text
    assert "first_line(f'{PROJECT_ROOT}/tests/data.txt')" in text
    moved = tmp_path / "elsewhere"
    shutil.copytree(root, moved, ignore=shutil.ignore_patterns(".bugsmith"))
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", WRITTEN], cwd=moved,
                          capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout
    pytest_run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", WRITTEN]
    assert subprocess.run(pytest_run, cwd=moved, capture_output=True).returncode == 0
