"""The registry: every mutator is well formed, and plugins arrive through entry points."""

from __future__ import annotations

import importlib
from importlib.metadata import EntryPoint

import libcst as cst
import libcst.matchers as m
import pytest

from bugsmith.errors import ConfigError
from bugsmith.mutators import registry
from bugsmith.mutators.base import Example, Mutator
from bugsmith.mutators.family import Family
from bugsmith.mutators.testing import check_example

ALL = registry.all_mutators()


@pytest.mark.parametrize("mutator", ALL, ids=[cls.name for cls in ALL])
def test_every_mutator_is_documented_and_has_golden_examples(mutator: type[Mutator]) -> None:
    """A docstring says what bug it models; examples show a site and a near-miss non-site."""
    assert mutator.__doc__ and len(mutator.__doc__.split()) >= 5
    assert mutator.name.startswith(mutator.family.value + "/")
    assert any(example.after for example in mutator.examples), "no positive example"
    assert any(not example.after for example in mutator.examples), "no negative example"
    for example in mutator.examples:
        check_example(mutator(), example)


@pytest.mark.parametrize("family", list(Family), ids=str)
def test_each_family_in_the_table_has_a_subpackage_of_its_own_mutators(family: Family) -> None:
    """The registry finds a family's mutators through the table alone: its subpackage exports
    `MUTATORS`, every one of that family, so adding a family needs no second list."""
    classes = importlib.import_module(family.package).MUTATORS
    assert classes and all(cls.family is family for cls in classes)
    assert family.info.summary and family.info.hint and family.info.difficulty >= 0


def test_domain_families_come_first_in_the_table() -> None:
    """Of two operators that make the same code the registry keeps the first one's explanation,
    and a domain explanation says more than a generic one."""
    domains = [family.info.domain for family in Family]
    assert domains == sorted(domains, reverse=True)


class ShoutingPlugin(Mutator):
    """`enabled` becomes `not enabled`: a plugin mutator that exists only to be loaded."""

    name = "classic/plugin-negate-flag"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Name("enabled")
    examples = (Example(before="x = enabled\n", after=("x = not enabled\n",)),)

    def mutate(self, node, ctx):
        yield cst.UnaryOperation(operator=cst.Not(), expression=node)


def test_entry_point_plugins_are_registered(monkeypatch) -> None:
    """A third-party package's `bugsmith.mutators` entry point adds its mutator."""
    point = EntryPoint(name="shouting", value=f"{__name__}:ShoutingPlugin", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.ENTRY_POINT_GROUP else [])
    names = [mutator.name for mutator in registry.select(operators=["classic/plugin-negate-flag"])]
    assert names == ["classic/plugin-negate-flag"]


def test_unknown_family_or_operator_is_a_config_error() -> None:
    """Selecting something that does not exist is a clear error, not an empty run."""
    with pytest.raises(ConfigError, match="unknown family"):
        registry.select(families=["nonsense"])
    with pytest.raises(ConfigError, match="unknown operator"):
        registry.select(operators=["classic/nonsense"])


class ParenthesizeReturn(Mutator):
    """`return x` becomes `return (x)`: the same bytecode, so the engine must drop it."""

    name = "classic/parenthesize"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Return(value=m.Name())
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(value=ctx.expression(f"({node.value.value})"))
        yield node.with_changes(value=ctx.expression(f"(({node.value.value}))"))


def test_trivially_equivalent_and_duplicate_mutants_are_dropped_and_counted() -> None:
    """A rewrite that compiles to the original's bytecode is dropped as trivially equivalent."""
    from bugsmith.mutators.engine import mutants_of_source

    found = mutants_of_source("def f(x):\n    return x\n", file="f.py", module="f",
                              mutators=[ParenthesizeReturn()])
    assert found.mutants == () and found.dropped_equivalent == 2


class TwoWaysToZero(Mutator):
    """`n` becomes `0` twice over: two proposals, one mutant."""

    name = "classic/two-ways"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`"
    matcher = m.Integer(value="5")
    examples = ()

    def mutate(self, node, ctx):
        yield node.with_changes(value="0")
        yield ctx.expression("0")


def test_mutants_with_the_same_code_are_one_mutant() -> None:
    """Two proposals that compile to the same code are one mutant, and the other is counted."""
    from bugsmith.mutators.engine import mutants_of_source

    found = mutants_of_source("def f():\n    return 5\n", file="f.py", module="f", mutators=[TwoWaysToZero()])
    assert len(found.mutants) == 1 and found.dropped_duplicates == 1
