"""Which tests a mutant needs, how long it may take, and what its cached verdict depends on."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.protocol import Job
from bugsmith.harness.units import Ranges, mutated_unit
from bugsmith.mutators.mutant import Mutant, Span

# 4: keyed by the units the covering tests run; 3: a mutant that breaks the import is killed (an
# error before); 2: TestCase failures
CACHE_VERSION = "4"


def span_lines(mutant: Mutant) -> range:
    span = mutant.span
    last = span.end_line - (span.end_column == 0 and span.end_line > span.line)
    return range(span.line, last + 1)


class Statements:
    """The statements of one file, to find the lines that stand for a mutant's site.

    The interpreter reports a line only when an instruction starts on it, and the lines of one
    statement do not all get one: under Python 3.11 the `if not (` of a condition written over
    several lines has none (the `not` is folded into the jump), so the tests that run the
    condition are recorded on its other lines only. A site therefore stands for the lines of the
    innermost statement around it; of a compound statement (`if`, `while`, `for`, `with`, `def`,
    `except`), only its header, never its body, which other tests may run without it.
    """

    def __init__(self, source: str) -> None:
        try:
            self._tree: ast.Module | None = ast.parse(source)
        except (SyntaxError, ValueError):  # libcst read what this Python cannot: the span alone
            self._tree = None
        self._found: dict[tuple[int, int], range] = {}

    def lines(self, span: Span) -> range:
        """The lines of the innermost statement that holds `span` (its header if compound)."""
        key = (span.line, span.end_line)  # a line's mutants ask alike: each asked walked the tree
        if key not in self._found:
            self._found[key] = self._lines(span)
        return self._found[key]

    def _lines(self, span: Span) -> range:
        node = None if self._tree is None else _innermost(self._tree, span.line, span.end_line)
        if node is None:
            return range(span.line, span.end_line + 1)
        first = _first_line(node)
        body = getattr(node, "body", None)
        if isinstance(node, ast.Match):
            last = node.subject.end_lineno or first
        elif isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)  # the header: up to the body's first line
        else:
            last = _last_line(node)
        return range(first, last + 1)


def _innermost(node: ast.AST, first: int, last: int) -> ast.AST | None:
    for field in _BLOCKS:
        for child in getattr(node, field, ()):
            if _first_line(child) <= first and last <= _last_line(child):
                return _innermost(child, first, last) or child
    return None


def _first_line(node: ast.AST) -> int:
    """Where a statement starts: its first decorator, or its pattern for a `case`."""
    if isinstance(node, ast.match_case):
        return node.pattern.lineno
    assert isinstance(node, ast.stmt | ast.excepthandler), "_BLOCKS hold statements and cases"
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _last_line(node: ast.AST) -> int:
    if isinstance(node, ast.match_case):
        return _last_line(node.body[-1])
    assert isinstance(node, ast.stmt | ast.excepthandler), "_BLOCKS hold statements and cases"
    return node.end_lineno or node.lineno


_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # the fields that hold statements


def site_lines(mutant: Mutant, statements: Statements | None = None) -> set[int]:
    """The lines whose execution means the mutant's site ran: its own and its statement's."""
    lines = set(span_lines(mutant))
    if statements is not None:
        lines.update(statements.lines(mutant.span))
    return lines


def covering_tests(mutant: Mutant, baseline: Baseline, by_id: Mapping[str, TestInfo],
                   statements: Statements | None = None) -> tuple[str, ...]:
    """The tests that execute the mutant's site (any line of `site_lines`), fastest first.

    A site that runs at import time (module level, defaults) is executed by the import, not by
    a test. A test file with a test that runs any line of the module imports it, and its other
    tests may only read what the import built (a constant, a registry), so every test of those
    files is chosen; if no test runs a line of the module, every test is.
    """
    lines = baseline.lines.get(mutant.file, {})
    if mutant.function is None:
        files = {by_id[test].file for tests in lines.values() for test in tests if test in by_id}
        ids = {test for test, info in by_id.items() if info.file in files} or set(by_id)
    else:
        ids = {test for line in site_lines(mutant, statements) for test in lines.get(line, ())}
    return tuple(sorted((i for i in ids if i in by_id), key=lambda i: (by_id[i].duration, i)))


def time_limit(tests: tuple[str, ...], by_id: Mapping[str, TestInfo], factor: float, base: float) -> float:
    return factor * sum(by_id[test].duration for test in tests) + base


def per_test_limits(tests: tuple[str, ...], by_id: Mapping[str, TestInfo], factor: float,
                    base: float) -> tuple[float, ...]:
    """A limit per test, `factor x its baseline time + base`: the clock restarts at each test."""
    return tuple(factor * by_id[test].duration + base for test in tests)


# What a test's first run gets beyond `factor x` its baseline time, in place of the limit's base
# (a second or so): a probe that runs past it is not judged, only moved to the end and re-run
# (harness.executors.base.confirm_timeout), so a genuine hang costs this instead of a whole limit
# before the confirmations, while the verdict still needs a run past twice the limit.
PROBE_BASE = 0.25


def timed(job: Job, tests: tuple[str, ...], by_id: Mapping[str, TestInfo], options: RunOptions) -> Job:
    """`job` running `tests` in that order, with the whole-job limit, each test's own limit and
    the shorter limit each test's first run gets (`PROBE_BASE`)."""
    factor, base = options.timeout_factor, options.timeout_base
    return dataclasses.replace(
        job, tests=tests, timeout=time_limit(tests, by_id, factor, base),
        limits=per_test_limits(tests, by_id, factor, base),
        probes=per_test_limits(tests, by_id, factor, min(base, PROBE_BASE)))


# Seconds the forked child spends around one test beyond the test's own baseline time (pytest's
# runtest hooks, the result's note through the pipe): what running one more cheap test costs.
PER_TEST_OVERHEAD = 0.001
# How many observations the estimate one level up (the file's for a function, the run's for a
# file) weighs in a test's kill probability: the strength of its Beta prior.
PRIOR_STRENGTH = 1.0


@dataclass(slots=True)
class Tally:
    """What each test did so far in this run to the mutants of one scope (a function, a file):
    how many of them it ran against, and how many it killed."""

    kills: Counter[str] = dataclasses.field(default_factory=Counter)
    tries: Counter[str] = dataclasses.field(default_factory=Counter)

    def add(self, ran: Iterable[str], killer: str | None) -> None:
        """`ran`: the tests run against one mutant, in order; `killer`: the one that failed."""
        self.tries.update(ran)
        if killer is not None:
            self.kills[killer] += 1


def kill_probability(test: str, function: Tally, file: Tally, prior: float, line: Tally | None = None) -> float:
    """The chance that `test` kills the next mutant of the function: the function's record of
    it, shrunk towards its record in the file, shrunk towards `prior` (Beta priors: a test never
    run in the function gets the file's estimate, one never run in the file gets `prior`). With
    `line`, the record on the mutant's own line, shrunk towards the function's: mutants of one
    line change one expression, and the test that killed one of them is the likeliest to kill
    the next (a test that kills rarely in the function may kill every mutant of one line)."""
    in_file = (file.kills[test] + PRIOR_STRENGTH * prior) / (file.tries[test] + PRIOR_STRENGTH)
    in_function = (function.kills[test] + PRIOR_STRENGTH * in_file) / (function.tries[test] + PRIOR_STRENGTH)
    if line is None:
        return in_function
    return (line.kills[test] + PRIOR_STRENGTH * in_function) / (line.tries[test] + PRIOR_STRENGTH)


def cheapest_kill_order(tests: Iterable[str], durations: Mapping[str, float], function: Tally, file: Tally,
                        prior: float, overhead: float = PER_TEST_OVERHEAD,
                        line: Tally | None = None) -> tuple[str, ...]:
    """`tests` in the order that minimises the expected seconds to the first failure.

    A run stops at the first failing test, so with independent chances p_i and costs c_i the
    best order sorts by c_i / p_i, ascending: a slow test that usually kills goes after a fast
    one that sometimes does, before a fast one that never did. With no history every p is
    `prior` and this is fastest first. A survivor runs every test whatever the order.
    """
    def cost(test: str) -> tuple[float, float, str]:
        duration = durations[test]
        return (duration + overhead) / kill_probability(test, function, file, prior, line), duration, test

    return tuple(sorted(tests, key=cost))


def mutant_job(mutant: Mutant, options: RunOptions, source: str, tests: tuple[str, ...],
               by_id: Mapping[str, TestInfo], ranges: Ranges) -> Job:
    """The job that runs `tests` (fastest first) against `mutant`, activated from memory."""
    mutated = mutant.apply(source)
    job = Job(
        mutant_id=mutant.id,
        module=mutant.module,
        path=str((options.root / mutant.file).resolve()),
        function=mutant.function,
        source=mutated,
        unit=mutated_unit(mutant, source, mutated, ranges) if mutant.function else "",
        tests=tests,
        timeout=0.0,
    )
    return timed(job, tests, by_id, options)


def function_texts(source: str) -> dict[str, str]:
    """Source text of every function and method, by qualified name (as in co_qualname)."""
    texts: dict[str, str] = {}
    lines = _LINE.findall(source)

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                texts[prefix + child.name] = _segment(lines, child)
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(ast.parse(source), "")
    return texts


# Lines as the tokenizer ends them (as ast.get_source_segment splits, which re-splits the
# whole file on every call: a cost per function that grows with the module).
_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+\Z", re.S)


def _segment(lines: list[str], node: ast.stmt) -> str:
    """`ast.get_source_segment` from lines split once; AST columns count UTF-8 bytes."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start, end = node.col_offset, node.end_col_offset
    if first == last:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()[start:].decode()
    tail = lines[last].encode()[:end].decode()
    return "".join([head, *lines[first + 1:last], tail])


def cache_key(
    mutant: Mutant,
    scope_text: str,
    tests: tuple[str, ...],
    test_digests: Mapping[str, str],
    everything: str,
    options: dict,
) -> str:
    """Everything that can change this mutant's verdict, hashed: the mutant and the code of its
    function; each covering test with the digest of its file and of every unit it executed
    (harness.incremental.test_digests), so an edit elsewhere that none of them runs keeps the
    verdict; `everything`, what no test's record can place (module-level code, conftests,
    configuration, installed packages: harness.incremental.global_digest); the verdict options.
    Tests are listed by id, not in their duration order, which moves from run to run."""
    payload = json.dumps(
        [CACHE_VERSION, mutant.id, mutant.original, mutant.mutated, scope_text,
         [(test, test_digests.get(test, "")) for test in sorted(tests)], everything, options],
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def site_key(mutant: Mutant, scope_text: str, everything: str, options: dict) -> str:
    """The mutant and its function's code without its tests: under this key the store keeps the
    test that killed it, which kills it again as long as that test's own digest is unchanged
    (a kill by one test does not depend on the others, which an edit may have changed)."""
    payload = json.dumps([CACHE_VERSION, mutant.id, mutant.original, mutant.mutated, scope_text, everything,
                          options], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""
