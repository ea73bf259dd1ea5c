"""Import-time mutants re-executed in place (harness.child.reexec): only where that equals a
fresh import, with what other modules took from the module rebound, and refused elsewhere."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bugsmith.harness.child.activation import NeedsFreshImport
from bugsmith.harness.child.import_effects import outside_effect, uses_of
from bugsmith.harness.child.reexec import reexecute, same_value, survey
from bugsmith.harness.child.worker import run_fresh
from bugsmith.harness.executors.fork_pool import ForkPool
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup

# Rules built at import by a function of the module, as inflection builds its tables.
RULES = '''\
PLURALS = [("s$", "ses")]


def _irregular(singular, plural):
    PLURALS.insert(0, ("^" + singular + "$", plural))


def pluralize(word):
    for pattern, replacement in PLURALS:
        if word.endswith(pattern.strip("^$")):
            return replacement if pattern.startswith("^") else word + "es"
    return word + "s"


STOPS = {"fish", "sheep"}
_irregular("person", "people")
_irregular("child", "children")
'''


@pytest.mark.parametrize(("source", "refused"), [
    (RULES, None),
    ("import re\nPATTERN = re.compile('a+')\nTABLE = {k: v.upper() for k, v in [('a', 'b')]}\n", None),
    ("from enum import Enum\n\nclass Colour(Enum):\n    RED = 1\n", None),
    ("import logging\nlogging.getLogger(__name__).addHandler(logging.NullHandler())\n", "logging.getLogger"),
    ("from registry import REGISTRY\nREGISTRY.append(1)\n", "REGISTRY.append"),
    ("from registry import register\n\n@register\ndef f():\n    pass\n", "register"),
    ("from models import Base\n\nclass User(Base):\n    pass\n", "Base"),
    ("import os\nos.environ['X'] = '1'\n", "object the module did not build"),
    ("def helper():\n    open('log', 'w')\n\nhelper()\n", "open"),
])
def test_an_import_that_touches_only_its_own_namespace_is_told_apart(source: str, refused: str | None) -> None:
    """Calls to the module's own functions, pure builtins and the standard library's value
    builders, and changes to its own containers are fine; anything that may register, log or
    change what another module owns refuses the re-execution."""
    found = outside_effect(source)
    assert (found is None) if refused is None else (found is not None and refused in found), found


def test_what_another_module_reads_while_it_is_imported_is_named() -> None:
    """A parametrize list built from the module's table is read at import; calls inside test
    functions are not; `from m import x as y` is a binding to rebind; passing the module whole
    means any of its names may have been read."""
    test = textwrap.dedent('''\
        import pytest
        import rules
        from rules import pluralize as plural

        @pytest.mark.parametrize("word", sorted(rules.STOPS))
        def test_stop(word):
            assert rules.pluralize(word) == plural(word)
        ''')
    uses = uses_of("rules", test, "test_rules", False)
    assert uses is not None
    assert uses.reads == frozenset({"STOPS"}) and uses.bindings == (("plural", "pluralize"),)
    whole = uses_of("pkg.rules", "from pkg import rules\nREGISTRY = dict(vars(rules))\n", "other", False)
    assert whole is not None and whole.reads is None
    assert uses_of("rules", "import os\n", "other", False) is None


def test_plain_data_is_the_same_value_only_with_the_same_order() -> None:
    assert same_value({"a": [1, (2, "x")]}, {"a": [1, (2, "x")]})
    assert not same_value(["a", "b"], ["b", "a"])
    assert not same_value({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same_value(1, 1.0) and not same_value(len, abs)


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path whose modules are forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in set(sys.modules) - before:
            del sys.modules[name]


def test_a_mutant_of_an_import_time_table_reaches_the_names_tests_took(modules: Path) -> None:
    """`from rules import pluralize` in a test module is rebound to the mutant's function, which
    reads the mutant's table: the test sees what a fresh import would have shown it."""
    (modules / "rules.py").write_text(RULES, encoding="utf-8")
    (modules / "test_rules.py").write_text("from rules import pluralize\n", encoding="utf-8")
    test = importlib.import_module("test_rules")
    rules = sys.modules["rules"]
    found = survey("rules", rules.__file__, str(modules))
    assert found.refused is None and found.bindings == (("test_rules", "pluralize", "pluralize"),)
    assert test.pluralize("person") == "people"
    reexecute(found, rules.__file__, RULES.replace('"people"', '"persons"'))
    assert test.pluralize("person") == "persons" and rules.pluralize("person") == "persons"


def test_a_name_re_exported_by_a_package_is_rebound_where_it_went(modules: Path) -> None:
    """`from .sizes import LIMIT` in a package's `__init__`, then `from pkg import LIMIT` in a
    test module: both copies of the number take the mutant's value."""
    (modules / "pkg").mkdir()
    (modules / "pkg" / "__init__.py").write_text("from .sizes import LIMIT\n", encoding="utf-8")
    (modules / "pkg" / "sizes.py").write_text("LIMIT = 10\n", encoding="utf-8")
    (modules / "test_sizes.py").write_text("from pkg import LIMIT\n", encoding="utf-8")
    test = importlib.import_module("test_sizes")
    sizes = sys.modules["pkg.sizes"]
    found = survey("pkg.sizes", sizes.__file__, str(modules))
    assert found.refused is None
    assert set(found.bindings) == {("pkg", "LIMIT", "LIMIT"), ("test_sizes", "LIMIT", "LIMIT")}
    reexecute(found, sizes.__file__, "LIMIT = 11\n")
    assert test.LIMIT == 11 and sys.modules["pkg"].LIMIT == 11


def test_a_table_read_while_a_test_module_was_imported_must_come_out_equal(modules: Path) -> None:
    """Parameters built from the module's set at collection stay valid when the mutant leaves
    the set as it was, and send the mutant to a fresh import when it changes it."""
    (modules / "rules.py").write_text(RULES, encoding="utf-8")
    (modules / "test_rules.py").write_text("import rules\nWORDS = sorted(rules.STOPS)\n", encoding="utf-8")
    importlib.import_module("test_rules")
    rules = sys.modules["rules"]
    found = survey("rules", rules.__file__, str(modules))
    assert found.reads == frozenset({"STOPS"})
    reexecute(found, rules.__file__, RULES.replace('"child"', '"kid"'))  # STOPS unchanged
    with pytest.raises(NeedsFreshImport, match="STOPS"):
        reexecute(found, rules.__file__, RULES.replace('"sheep"', '"deer"'))


def test_objects_built_elsewhere_from_the_module_refuse_the_rebinding(modules: Path) -> None:
    """An instance of the module's class kept in another module's data, or its function in a
    registry, was built by the original import and cannot be rebound: fresh import."""
    (modules / "shapes.py").write_text(
        "class Square:\n    def __init__(self, side):\n        self.side = side * 1\n", encoding="utf-8")
    (modules / "data.py").write_text("import shapes\nCASES = [shapes.Square(2)]\n", encoding="utf-8")
    (modules / "hooks.py").write_text("from shapes import Square\nHOOKS = {'square': Square}\n",
                                      encoding="utf-8")
    importlib.import_module("data")
    importlib.import_module("hooks")
    shapes = sys.modules["shapes"]
    found = survey("shapes", shapes.__file__, str(modules))
    assert found.refused is None and "Square" in found.held
    with pytest.raises(NeedsFreshImport, match="holds Square"):
        reexecute(found, shapes.__file__, shapes.__spec__.loader.get_source("shapes").replace("* 1", "* 2"))


def test_an_import_with_effects_outside_the_module_is_refused(modules: Path) -> None:
    (modules / "registry.py").write_text("HOOKS = []\n", encoding="utf-8")
    (modules / "plugin.py").write_text("import registry\nregistry.HOOKS.append(len)\n", encoding="utf-8")
    plugin = importlib.import_module("plugin")
    found = survey("plugin", plugin.__file__, str(modules))
    assert found.refused is not None and "registry.HOOKS.append" in found.refused
    with pytest.raises(NeedsFreshImport):
        reexecute(found, plugin.__file__, "import registry\n")


TABLE_TESTS = '''\
import pytest

import calcpkg.rules as rules
from calcpkg.rules import pluralize


COUNT = len(rules.STOPS)


@pytest.mark.parametrize("word", sorted(rules.STOPS))
def test_stops_are_left_alone(word):
    assert word in rules.STOPS


def test_count():
    assert COUNT == 2


def test_irregular():
    assert pluralize("person") == "people" and pluralize("child") == "children"


def test_regular():
    assert pluralize("bus") == "buses" and pluralize("cat") == "cats"
'''

HELD = '''\
class Rule:
    def __init__(self, word):
        self.word = word + ""


DEFAULT = "person"
'''

HELD_TESTS = '''\
from calcpkg.held import Rule

CASES = [Rule("person")]


def test_case():
    assert CASES[0].word == "person"
'''


def _job(root: Path, name: str, original: str, mutated: str, tests: tuple[str, ...]) -> Job:
    assert mutated != original
    return Job(mutant_id=name, module=f"calcpkg.{name}", path=str(root / "calcpkg" / f"{name}.py"),
               function=None, source=mutated, tests=tests, timeout=30.0)


@pytest.mark.slow
def test_import_time_mutants_in_a_worker_get_plain_pytests_verdicts(project: Path, tmp_path: Path) -> None:
    """Mutants of a table built at import by a module function, killed only through that table,
    run re-executed in the worker's child (no fresh interpreter) with plain pytest's verdicts; a
    mutant of the set a test module read while collected (kept 'survived' by an in-place run),
    and one of a class whose instance a test module built then, go to a fresh import."""
    (project / "calcpkg" / "rules.py").write_text(RULES, encoding="utf-8")
    (project / "tests" / "test_rules.py").write_text(TABLE_TESTS, encoding="utf-8")
    (project / "calcpkg" / "held.py").write_text(HELD, encoding="utf-8")
    (project / "tests" / "test_held.py").write_text(HELD_TESTS, encoding="utf-8")
    rules = ("tests/test_rules.py::test_irregular", "tests/test_rules.py::test_regular")
    stops = tuple(f"tests/test_rules.py::test_stops_are_left_alone[{w}]" for w in ("fish", "sheep"))
    jobs = [
        _job(project, "rules", RULES, RULES.replace('"people"', '"persons"'), rules),  # killed
        _job(project, "rules", RULES, RULES.replace('"ses")', '"sez")'), rules),  # survived
        _job(project, "rules", RULES, RULES.replace('("s$", "ses")', '("x$", "ses")'), rules),  # killed
        _job(project, "rules", RULES, RULES.replace('"sheep"}', '"sheep", "deer"}'),
             ("tests/test_rules.py::test_count", *stops)),  # fresh: STOPS was read at import
        _job(project, "held", HELD, HELD.replace('word + ""', 'word + "s"'), ("tests/test_held.py::test_case",)),
        _job(project, "rules", RULES, RULES.replace('"^" + singular', '"^" - singular'), rules),  # import fails
        _job(project, "held", HELD, HELD + "1 / 0\n", rules),  # fails, but these tests never import it
    ]
    jobs = [Job(**{**job.to_dict(), "mutant_id": f"m{n}", "extra": (), "task": None}) for n, job in enumerate(jobs)]
    setup = WorkerSetup(root=str(project), pytest_args=(), test_paths=("tests",),
                        sources=(jobs[0].path, jobs[-1].path), memory_limit_mb=1024)
    verdicts: dict[str, Verdict] = {}
    with ForkPool(setup, 1, tmp_path / "logs") as pool:
        pool.run(jobs, lambda job, verdict: verdicts.__setitem__(job.mutant_id, verdict))
    failed = {key: [r.id for r in v.results if r.outcome == "failed"] for key, v in verdicts.items()}
    assert failed == {"m0": [rules[0]], "m1": [], "m2": [rules[1]], "m3": ["tests/test_rules.py::test_count"],
                      "m4": ["tests/test_held.py::test_case"], "m5": ["tests/test_rules.py"], "m6": []}
    assert [verdicts[f"m{n}"].fresh_import for n in range(7)] == [False, False, False, True, True, False, True]
    # The failed import in place is reported as a fresh interpreter's collection reports it.
    fresh = run_fresh(setup, jobs[5], collect_limit=30.0)
    assert fresh.results == verdicts["m5"].results
    assert fresh.results[0].exception == "TypeError" and fresh.results[0].in_source
