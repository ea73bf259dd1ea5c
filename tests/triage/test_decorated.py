"""Triage follows a site inside a decorator's wrapper to the wrappers the suite calls, and sees
the warning the mutant emits (semver's `deprecated`)."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import libcst.matchers as m
import pytest

from bugsmith import harness
from bugsmith.harness.config import resolve
from bugsmith.harness.triage import Classification, TriageOptions, triage
from bugsmith.harness.triage.classify import callee
from bugsmith.mutators.base import Mutator
from bugsmith.mutators.mutant import Family

OLD = '''\
import functools
import warnings


def deprecated(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        message = "this function is deprecated"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return func(*args, **kwargs)

    return wrapper


@deprecated
def old_double(x):
    return 2 * x


@deprecated
def old_half(x):
    return x / 2
'''

TESTS = '''\
from olds.old import old_double, old_half


def test_old_double():
    assert old_double(2) == 4


def test_old_half():
    assert old_half(4) == 2
'''


class OtherWarning(Mutator):
    """The warning's text changes: the user is told something else."""

    name = "toy/other-warning"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.SimpleString(value='"this function is deprecated"')
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(value='"this function is fine"')


@pytest.fixture(scope="module")
def triaged(tmp_path_factory):
    root = tmp_path_factory.mktemp("decorated") / "proj"
    (root / "olds").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "olds" / "__init__.py").write_text("")
    (root / "olds" / "old.py").write_text(OLD)
    (root / "tests" / "test_old.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["olds"]
        tests = ["tests"]
        jobs = 1
        '''))
    result = harness.run(resolve(root), mutators=(OtherWarning(),))
    assert [o.status.value for o in result.outcomes] == ["survived"]
    return result, triage(resolve(root), settings=TriageOptions(search_seconds=30.0, max_examples=50))


def test_a_site_in_a_wrapper_is_triaged_through_the_wrapper() -> None:
    """The mutant's function is the decorator (the outermost def, run at import); the calls that
    show it are the wrapper's."""
    in_wrapper = SimpleNamespace(function="deprecated", span=SimpleNamespace(line=8, end_line=8))
    assert callee(in_wrapper, OLD) == "deprecated.<locals>.wrapper"
    in_function = SimpleNamespace(function="old_half", span=SimpleNamespace(line=22, end_line=22))
    assert callee(in_function, OLD) == "old_half"


@pytest.mark.slow
def test_a_mutant_that_emits_another_warning_is_unasserted(triaged) -> None:
    """The suite's own call old_double(2) (or old_half(4)) is replayed on the wrapper it went
    through: same value, another warning, so the mutant is not "possibly equivalent"."""
    _, found = triaged
    (finding,) = found.findings
    assert finding.classification is Classification.UNASSERTED, finding
    assert finding.call in ("old_double(2)", "old_half(4)")
    assert "emits other warnings" in finding.why and "this function is fine" in finding.why
