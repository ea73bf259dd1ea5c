"""Canaries: tests that must fail on every implementation, hidden among the held-back tests.

Each grading plants a few, freshly chosen: a canary is a copy of a real held-back test,
with a name made of the words of the real tests' names, inserted next to the test it
copies in the same file, and run in among the real ones in a random order. Its body is the
real test's body, and then a check that cannot hold, so it fails whatever the code does.
If the sandboxed pytest reports a canary as passed (or never reports it), its reporting
was tampered with and no result from it can be believed.

What canaries cannot do: a submission written against bugsmith's own published tests and
this module can tell the copies from the originals. The differential check (outputs
compared in the grader's process) is what holds against that one.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass
from pathlib import Path

COUNT = 4
_SKIPPING = re.compile(r"\b(skip|skipif|xfail|importorskip)\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class Canary:
    file: str  # relative to the work folder
    id: str  # the node id to ask pytest for (it may expand to `id[param]`)
    copies: str  # the id of the real test it copies


def plant(work: Path, files: list[str], rng: random.Random, count: int = COUNT,
          only: set[str] | None = None) -> tuple[Canary, ...]:
    """Insert `count` canaries into the test files `files` (relative to `work`), in place.

    `only` (test ids without parameters) limits the copies to tests known to run and pass on
    the reference: a copy of a test that skips here would look like a forged pass.
    """
    sources = {f: (work / f).read_text(encoding="utf-8") for f in files if (work / f).is_file()}
    choices = [(f, node) for f, text in sources.items() for node in _candidates(text)
               if only is None or f"{f}::{node.name}" in only]
    if not choices:
        return ()
    picked = rng.sample(choices, min(count, len(choices)))
    planted: list[Canary] = []
    for file in sorted({f for f, _ in picked}):
        text = sources[file]
        taken = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        words = sorted({w for name in taken if name.startswith("test_") for w in name.split("_")[1:] if w})
        lines = text.splitlines(keepends=True)
        # Bottom-up, so that the line numbers of the tests above stay right.
        for node in sorted((n for f, n in picked if f == file), key=lambda n: n.end_lineno or 0, reverse=True):
            name = _name(words, taken, rng)
            taken.add(name)
            copy = _copy(lines, node, name, rng)
            at = node.end_lineno or len(lines)
            lines[at:at] = ["\n", "\n", *copy]
            planted.append(Canary(file=file, id=f"{file}::{name}", copies=f"{file}::{node.name}"))
        new_text = "".join(lines)
        ast.parse(new_text)  # a canary that breaks its file would fail every real test with it
        (work / file).write_text(new_text, encoding="utf-8")
    return tuple(planted)


def _candidates(text: str) -> list[ast.FunctionDef]:
    """Module-level test functions a copy of which runs like the original: no skips, no generators."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    found = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
            continue
        body = _body(node)
        if not body or body[0].lineno <= node.lineno or node.end_lineno is None:
            continue  # a one-line def has no body lines to wrap
        source = "\n".join(lines[(node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1:
                                 node.end_lineno])
        if _SKIPPING.search(source) or any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(node)):
            continue
        found.append(node)
    return found


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    """The statements after the docstring."""
    body = list(node.body)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    return body


def _name(words: list[str], taken: set[str], rng: random.Random) -> str:
    pool = words or ["result", "values", "check"]
    while True:
        name = "test_" + "_".join(rng.sample(pool, min(len(pool), rng.randint(3, 5))))
        if name not in taken and name.isidentifier():
            return name
        pool = [*pool, str(rng.randint(2, 9))]


def _copy(lines: list[str], node: ast.FunctionDef, name: str, rng: random.Random) -> list[str]:
    """The test's lines, renamed, its body run in a `try` whose `finally` fails."""
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    body = _body(node)
    start = body[0].lineno - 1 - _decorated_offset(body[0])
    head = lines[first - 1:start]
    indent = _indent(lines[start])
    head = [re.sub(rf"\bdef {re.escape(node.name)}\b", f"def {name}", line, count=1) for line in head]
    inner = [f"    {line}" if line.strip() else line for line in lines[start:node.end_lineno]]
    if inner and not inner[-1].endswith("\n"):
        inner[-1] += "\n"
    a, b = rng.sample(range(10**5, 10**6), 2)
    return [*head, f"{indent}try:\n", *inner, f"{indent}finally:\n", f"{indent}    assert {a} == {b}\n"]


def _decorated_offset(statement: ast.stmt) -> int:
    """A decorated statement starts at its first decorator, not at its `def` or `class`."""
    decorators = getattr(statement, "decorator_list", None)
    return statement.lineno - decorators[0].lineno if decorators else 0


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]
