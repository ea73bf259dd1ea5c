"""Which tests a mutant needs, how long it may take, and what its cached verdict depends on."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.outcome import TestInfo
from bugsmith.mutators.mutant import Mutant

CACHE_VERSION = "2"  # 2: TestCase failures were missed before (recorder hook order)


def span_lines(mutant: Mutant) -> range:
    span = mutant.span
    last = span.end_line - (span.end_column == 0 and span.end_line > span.line)
    return range(span.line, last + 1)


def covering_tests(mutant: Mutant, baseline: Baseline, by_id: Mapping[str, TestInfo]) -> tuple[str, ...]:
    """The tests that execute the mutant's site, fastest first.

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
        ids = {test for line in span_lines(mutant) for test in lines.get(line, ())}
    return tuple(sorted((i for i in ids if i in by_id), key=lambda i: (by_id[i].duration, i)))


def time_limit(tests: tuple[str, ...], by_id: Mapping[str, TestInfo], factor: float, base: float) -> float:
    return factor * sum(by_id[test].duration for test in tests) + base


def per_test_limits(tests: tuple[str, ...], by_id: Mapping[str, TestInfo], factor: float,
                    base: float) -> tuple[float, ...]:
    """A limit per test, `factor x its baseline time + base`: the clock restarts at each test."""
    return tuple(factor * by_id[test].duration + base for test in tests)


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
# whole file on every call: 5 ms a function on a 1,500-line module).
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
    test_file_hashes: Mapping[str, str],
    options: dict,
) -> str:
    """Everything that can change this mutant's verdict, hashed."""
    files = sorted({test.split("::", 1)[0] for test in tests})
    payload = json.dumps(
        [CACHE_VERSION, mutant.id, mutant.original, mutant.mutated, scope_text, tests,
         [test_file_hashes.get(f, "") for f in files], options],
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""
