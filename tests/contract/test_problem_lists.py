"""One list of the reference problems: the folders `reference/<name>/problem.md`, found, never typed.

A toy problem is added to a copy of the corpus and every consumer of the list, given that copy,
takes it in without another edit: the harness's catalogue, the wheel's package list, the
problems the contract, rewrite, grading and lessons tests run over. Where a problem needs data
of its own beside its folder (a contract table, a rewrite, hand-written bugs), the toy is
reported missing it rather than skipped. Fast: nothing is run, only files are read.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
import test_realistic_bugs
import test_rewrites
from contract_tables import problems, table_gaps

from bugsmith.harness.exercises.sources.catalogue import load_problems, reference_names
from tests.grading.rewrites import graded_problems

REPO = Path(__file__).resolve().parents[2]
# Where a list of the problems could be typed: everything of ours that is Python.
SEARCHED = ("bugsmith", "harness", "mutators", "reference", "tests", "benchmarks")

TOY = {
    "problem.md": """\
        # Double

        ## API (`from reference.toy import double`)

        `double(x)` returns `2 * x` for any number `x`.
        """,
    "__init__.py": '"""Double a number."""\n\nfrom .toy import double\n\n__all__ = ["double"]\n',
    "toy.py": '"""The toy problem\'s code."""\n\n\ndef double(x):\n    return 2 * x\n',
    "strategies.py": '"""Inputs for `reference.toy`."""\n\nfrom hypothesis import strategies as st\n\nNUMBERS = st.integers()\n',
    "tests/test_toy.py": """\
        from hypothesis import given

        from reference.toy import double
        from reference.toy.strategies import NUMBERS


        @given(NUMBERS)
        def test_double_is_twice(x):
            assert double(x) == x + x
        """,
}


def _setup_py() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bugsmith_setup_for_problem_lists", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its setup() runs only as a script
    return module


@pytest.fixture
def with_toy(tmp_path: Path) -> Path:
    """A copy of the repository's corpus (reference/ and the pyproject.toml that configures it)
    with one more problem folder, `reference/toy/`, and nothing else edited."""
    shutil.copytree(REPO / "reference", tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    for relative, text in TOY.items():
        path = tmp_path / "reference" / "toy" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_every_consumer_of_the_problem_list_takes_in_a_new_problem(with_toy: Path) -> None:
    """Given the copy with the toy, each list of problems holds the toy and the corpus's own."""
    corpus = reference_names(REPO)
    assert len(corpus) >= 2 and "toy" not in corpus
    expected = sorted([*corpus, "toy"])
    found = load_problems(with_toy)
    lists = {
        # the harness's one list; the lessons test runs over it (reference_names(builtin_root()))
        "reference_names": reference_names(with_toy),
        "load_problems (exercises, packs, bugsmith score)": sorted(found),
        "contract_tables.problems (tables, messages, imports, bugs, rewrites)": problems(with_toy),
        "tests.grading.rewrites.graded_problems": graded_problems(with_toy),
    }
    wrong = {consumer: listed for consumer, listed in lists.items() if listed != expected}
    assert not wrong, f"not the corpus and the toy ({expected}): {wrong}"
    toy = found["toy"]
    assert "reference/toy/toy.py" in toy.code and toy.statement == "reference/toy/problem.md"
    assert toy.visible == ("reference/toy/tests/test_toy.py",) and toy.hidden == ()
    packages = _setup_py().packages(with_toy)  # the wheel ships it
    assert {"bugsmith.reference.toy", "bugsmith.reference.toy.tests"} <= set(packages)


def test_a_new_problem_without_its_own_test_data_is_reported_missing(with_toy: Path) -> None:
    """The toy has no contract table, no rewrite and no hand-written bugs: each check names it."""
    assert table_gaps(with_toy) == (["toy"], [])
    assert test_rewrites.rewrite_gaps(with_toy) == (["toy"], [])
    assert test_realistic_bugs.problems_without_bugs(with_toy) == ["toy"]


def typed_lists(source: str, names: set[str]) -> list[str]:
    """Each literal (tuple, list, set, or a dict's keys) that spells three or more of `names`."""
    found: list[str] = []
    if sum(name in source for name in names) < 3:  # most files: nothing to parse
        return found
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [key for key in node.keys if key is not None]
        else:
            continue
        spelled = {item.value for item in items if isinstance(item, ast.Constant) and item.value in names}
        if len(spelled) >= 3:
            found.append(f"line {node.lineno}: {sorted(spelled)}")
    return found


def test_no_list_of_problems_is_typed_by_hand() -> None:
    """No module of ours spells the problems out: a typed list would miss the next problem. A
    test about one or two problems names them; one about every problem asks reference_names."""
    names = set(reference_names(REPO))
    typed = {}
    for folder in SEARCHED:
        for path in sorted((REPO / folder).rglob("*.py")):
            if not {"__pycache__", ".cache"} & set(path.relative_to(REPO).parts):
                found = typed_lists(path.read_text(encoding="utf-8"), names)
                if found:
                    typed[path.relative_to(REPO).as_posix()] = found
    assert not typed, f"lists of problems typed by hand: {typed}"


def test_the_typed_list_check_finds_what_it_looks_for() -> None:
    """A tuple and a dict keyed by problems are reported; one or two names in a test are not."""
    names = {"alpha", "beta", "gamma", "delta"}  # made up: this file is searched too
    source = ('PROBLEMS = ("alpha", "beta", "gamma")\nRENAMED = {"alpha": 1, "beta": 2, "delta": 3}\n'
              'ONE = ("alpha", "a1")\nTWO = [("alpha", "x"), ("beta", "y")]\n')
    assert [hit.split(":")[0] for hit in typed_lists(source, names)] == ["line 1", "line 2"]
