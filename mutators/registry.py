"""Which mutators exist: the built-in families plus third-party ones from entry points.

The built-in ones are found through the `Family` table: each member names the subpackage that
exports its `MUTATORS`, so a new family needs no entry here.

A third-party package adds mutators by declaring, in its own pyproject.toml,

    [project.entry-points."bugsmith.mutators"]
    mine = "my_package.my_module:MyMutator"

where the object named is a `Mutator` subclass or an iterable of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from importlib.metadata import entry_points

from bugsmith.errors import ConfigError
from bugsmith.mutators.base import AnyMutator
from bugsmith.mutators.family import Family

ENTRY_POINT_GROUP = "bugsmith.mutators"


def _mutators_of(family: Family) -> list[type[AnyMutator]]:
    return list(importlib.import_module(family.package).MUTATORS)


def _plugins() -> list[type[AnyMutator]]:
    found: list[type[AnyMutator]] = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        loaded = entry.load()
        found.extend(loaded if isinstance(loaded, Iterable) else [loaded])
    return found


def all_mutators() -> list[type[AnyMutator]]:
    # In the table's order, domain families first: when two operators make the same code, the
    # first one's explanation is kept, and a domain explanation says more than a classic one.
    classes = [cls for family in Family for cls in _mutators_of(family)] + _plugins()
    names = [cls.name for cls in classes]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ConfigError(f"mutator names registered twice: {', '.join(duplicated)}")
    return classes


def select(
    families: Sequence[str] = (), operators: Sequence[str] = ()
) -> list[AnyMutator]:
    """Instances of the chosen mutators (all when nothing is chosen)."""
    known = {family.value for family in Family}
    unknown = [family for family in families if family not in known]
    if unknown:
        raise ConfigError(
            f"unknown family {unknown[0]!r}; choose from {', '.join(sorted(known))}"
        )
    classes = all_mutators()
    unknown_ops = sorted(set(operators) - {cls.name for cls in classes})
    if unknown_ops:
        raise ConfigError(f"unknown operator {unknown_ops[0]!r}; see `bugsmith operators`")
    return [
        cls()
        for cls in classes
        if (not families or cls.family.value in families)
        and (not operators or cls.name in operators)
    ]
