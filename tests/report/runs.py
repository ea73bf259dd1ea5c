"""Runs to report on: real Mutants from the engine, with outcomes chosen by the test.

The built-in mutator families are written elsewhere, so three small mutators here make real
Mutant records (ids, spans, diffs) from real code through `mutants_of_source`.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Callable, Iterable, Mapping

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.outcome import Failure, Outcome, RunResult, Status, TestInfo
from bugsmith.mutators.base import Mutator
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Family, Mutant

_FLIP = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
}


class FlipBoundary(Mutator):
    """`a < b` becomes `a <= b` (and back): the boundary case goes the other way."""

    name = "window/flip-boundary"
    family = Family.WINDOW
    explanation = "`{original}` became `{mutated}`: the element at the boundary is now on the wrong side."
    matcher = m.Comparison()

    def mutate(self, node, ctx):
        target = node.comparisons[0]
        flipped = _FLIP.get(type(target.operator))
        if flipped is not None:
            operator = flipped(
                whitespace_before=target.operator.whitespace_before,
                whitespace_after=target.operator.whitespace_after,
            )
            yield node.with_changes(comparisons=[target.with_changes(operator=operator), *node.comparisons[1:]])


class OffByOne(Mutator):
    """An integer constant `n` becomes `n + 1`: a window or index one too long."""

    name = "window/off-by-one"
    family = Family.WINDOW
    explanation = "`{original}` became `{mutated}`: a count or index is one too large."
    matcher = m.Integer()

    def mutate(self, node, ctx):
        yield cst.Integer(str(int(node.value, 0) + 1))


class SwapPlusMinus(Mutator):
    """`a + b` becomes `a - b`."""

    name = "classic/plus-to-minus"
    family = Family.CLASSIC
    explanation = "`{original}` became `{mutated}`: an addition now subtracts."
    matcher = m.BinaryOperation(operator=m.Add())

    def mutate(self, node, ctx):
        yield node.with_changes(operator=cst.Subtract(
            whitespace_before=node.operator.whitespace_before,
            whitespace_after=node.operator.whitespace_after,
        ))


MUTATORS = (FlipBoundary(), OffByOne(), SwapPlusMinus())

SNIPPET = textwrap.dedent(
    '''\
    """A tiny module with a few sites of each kind."""

    BANNER = "</script><script>alert(1)</script>"


    def window(values, size):
        out = []
        for end in range(size, len(values) + 1):
            out.append(sum(values[end - size : end]) / size)
        return out


    def clip(x, low, high):
        if x < low:
            return low
        if x > high:
            return high
        return x + 0
    '''
)


def mutants_of(sources: Mapping[str, str]) -> list[Mutant]:
    found: list[Mutant] = []
    for path, source in sources.items():
        module = path.removesuffix(".py").replace("/", ".")
        found.extend(mutants_of_source(source, file=path, module=module, mutators=MUTATORS).mutants)
    return found


def outcome_for(mutant: Mutant, status: Status, tests: tuple[str, ...]) -> Outcome:
    """A plausible outcome with `status` for `mutant`, covered by `tests`."""
    killed = status is Status.KILLED
    return Outcome(
        mutant_id=mutant.id,
        status=status,
        killed_by=tests[:1] if killed else (),
        covered_by=() if status is Status.NO_COVERAGE else tests,
        tests_run=1 if killed else len(tests),
        failure=Failure.SILENT if killed else None,
        exception="AssertionError" if killed else None,
        message="assert [1.0, 2.0] == [1.5, 2.5]" if killed else "",
        duration=0.125,
        detail={Status.TIMEOUT: "no verdict after 2.0 s", Status.EQUIVALENT: "same bytecode"}.get(status, ""),
    )


def make_run(
    sources: Mapping[str, str],
    statuses: Iterable[Status] | Callable[[Mutant], Status | None] = (Status.KILLED, Status.SURVIVED),
    *,
    tests: tuple[str, ...] = ("tests/test_snippet.py::test_window", "tests/test_snippet.py::test_clip"),
    options: Mapping | None = None,
) -> RunResult:
    """A run over `sources`; statuses cycle over the mutants, or come from a function (None: pending)."""
    mutants = mutants_of(sources)
    if callable(statuses):
        chosen = [statuses(mutant) for mutant in mutants]
    else:
        chosen = list(itertools.islice(itertools.cycle(statuses), len(mutants)))
    outcomes = tuple(
        outcome_for(mutant, status, tests) for mutant, status in zip(mutants, chosen) if status is not None
    )
    return RunResult(
        root="/tmp/project",
        started="2025-01-02T03:04:05Z",
        duration=3.5,
        options=dict(options or {"families": ["window", "classic"], "workers": 2}),
        mutants=tuple(mutants),
        outcomes=outcomes,
        tests=tuple(TestInfo(id=test, file=test.split("::")[0], duration=0.05) for test in tests),
        sources=dict(sources),
        dropped_equivalent=1,
        dropped_duplicates=2,
    )
