"""Golden-test support: run one mutator over a snippet and compare every mutant it makes.

Like libcst's `CodemodTest.assertCodemod`, but a mutator makes a *set* of outputs, so the
comparison is on the complete set: an extra, unwanted mutant fails as surely as a missing one.
"""

from __future__ import annotations

import textwrap

from bugsmith.mutators.base import AnyMutator, Example
from bugsmith.mutators.engine import mutants_of_source


def mutated_sources(mutator: AnyMutator, before: str) -> list[str]:
    """Every mutated version of `before` that `mutator` alone produces, in source order."""
    before = textwrap.dedent(before)
    result = mutants_of_source(before, file="example.py", module="example", mutators=[mutator])
    return [mutant.apply(before) for mutant in result.mutants]


def check_example(mutator: AnyMutator, example: Example) -> None:
    """Assert that `mutator` turns `example.before` into exactly `example.after`."""
    got = sorted(mutated_sources(mutator, example.before))
    expected = sorted(textwrap.dedent(text) for text in example.after)
    assert got == expected, (
        f"{mutator.name}: mutants differ from the golden example\n"
        f"--- expected ---\n" + "\n=====\n".join(expected) + "\n--- got ---\n" + "\n=====\n".join(got)
    )
