"""Find the refusals a problem.md states, and the table rows and tests that answer for them.

The pattern, over the statement's blocks (`contract_tables.headed_blocks`: paragraphs and list
items; code blocks and tables are signatures and examples, never a refusal):

- An errors section is a heading whose title starts with "Errors" or "Validation", up to the
  next heading. Its heading's words after the title ("`ValueError` with a clear message when",
  "(a call that raises changes nothing)") are one statement, and each of its blocks is one.
- Outside them, each sentence that names an exception (`...Error`) or says raise, refuse or
  reject is one statement ("It raises `RuntimeError` only if ...", "0 is refused").

A statement *refuses* when it is a list item of an errors section or holds one of those words;
the other blocks of an errors section (an acceptance such as "An empty frame is valid") are
statements to cover but need no raising test.

A statement is covered when every word of it lies inside the quote of some contract point of
the problem's table, so a case of a bullet no row quotes shows up as its uncovered words. A row
quotes one refusal: its quote never runs on across a `;` or a `, or` that starts another clause
(`token_budget < 1`, or `max_running < 1` when given: two rows). Refusals that share their words
(`y_score` or `sample_weight` has a different length) are rows quoting the same clause, and a
clause listing values of one check (NaN, `inf` or a missing value) is one row whose tests try
each value.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from contract_tables import REPO, Point, flat, headed_blocks

ERRORS_HEADING = re.compile(r"#+\s+(?:Errors|Validation)\b[:\s]*")
REFUSAL_WORD = re.compile(r"\b(?:[Rr]aise[sd]?|[Rr]efuse[sd]?|[Rr]eject(?:s|ed)?|[A-Z]\w*Error)\b")
# A full stop after one of these ends no sentence ("e.g. `2`, `-1`").
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.")
PUNCTUATION = set(" .,;:()[]-–—…!?")
# Where one clause of a refusal ends and the next begins, outside parentheses.
CLAUSE_BREAK = re.compile(r";\s|,\s+or\s")


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    text: str  # whitespace made one space, as the tables quote
    refuses: bool


def sentences(text: str) -> list[str]:
    pieces = re.split(r"(?<=[.!?])\s+(?=[A-Z`*(\[])", text)
    merged: list[str] = []
    for piece in pieces:
        if merged and merged[-1].endswith(ABBREVIATIONS):
            merged[-1] += " " + piece
        else:
            merged.append(piece)
    return merged


def _is_prose(lines: list[str]) -> bool:
    return not (lines[0].startswith("```") or lines[0].startswith("|"))


def refusal_statements(markdown: str) -> list[Statement]:
    """Every statement of a refusal in `markdown`, in document order, by the pattern above."""
    found: list[Statement] = []
    headings_seen: set[str] = set()
    for heading, lines in headed_blocks(markdown):
        errors = ERRORS_HEADING.match(heading)
        if errors and heading not in headings_seen:
            headings_seen.add(heading)
            tail = flat(heading[errors.end():])
            if tail:
                found.append(Statement(text=tail, refuses=bool(REFUSAL_WORD.search(tail))))
        if not _is_prose(lines):
            continue
        text = flat("\n".join(lines))
        if errors:
            item = bool(re.match(r"\s*(-|\d+\.)\s", lines[0]))
            found.append(Statement(text=text, refuses=item or bool(REFUSAL_WORD.search(text))))
        else:
            found += [Statement(text=sentence, refuses=True) for sentence in sentences(text)
                      if REFUSAL_WORD.search(sentence)]
    return found


def _spans(text: str, fragment: str) -> list[tuple[int, int]]:
    return [(match.start(), match.start() + len(fragment))
            for match in re.finditer(re.escape(fragment), text)] if fragment else []


def coverage(markdown: str, statements: list[Statement],
             points: tuple[Point, ...]) -> list[tuple[Statement, list[Point], list[str]]]:
    """For each statement: the points whose quote overlaps it, and its words no quote covers."""
    document = flat(markdown)
    quoted = [(point, _spans(document, flat(point.fragment))) for point in points]
    result = []
    cursor = 0
    for statement in statements:
        start = document.index(statement.text, cursor)
        end = start + len(statement.text)
        cursor = start
        covered = [False] * len(statement.text)
        rows = []
        for point, spans in quoted:
            overlapping = [(a, b) for a, b in spans if a < end and b > start]
            if overlapping:
                rows.append(point)
            for a, b in overlapping:
                for i in range(max(a, start), min(b, end)):
                    covered[i - start] = True
        loose = "".join(" " if covered[i] or char in PUNCTUATION else char
                        for i, char in enumerate(statement.text))
        result.append((statement, rows, loose.split()))
    return result


def joins_clauses(fragment: str) -> bool:
    """Whether a quote runs on from one clause into the next (a break before its last words)."""
    text = flat(fragment).rstrip(" .,;:")
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\([^()]*\)", "", text)
    return bool(CLAUSE_BREAK.search(text))


def _is_raises(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "raises" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest")


def raising_tests(path: Path) -> set[str]:
    """The test functions of `path` that expect an exception: `pytest.raises` in their body or
    in a function or class of the same module that they use (a model, a checker)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {node.name: node for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    found = set()
    for name, node in defined.items():
        if not name.startswith("test_"):
            continue
        seen, queue = {name}, deque([node])
        while queue:
            current = queue.popleft()
            if any(_is_raises(inner) for inner in ast.walk(current)):
                found.add(name)
                break
            for inner in ast.walk(current):
                if isinstance(inner, ast.Name) and inner.id in defined and inner.id not in seen:
                    seen.add(inner.id)
                    queue.append(defined[inner.id])
    return found


def suite_raising_tests(problem: str, root: Path = REPO) -> set[str]:
    return set().union(*(raising_tests(path) for path in
                         sorted((root / "reference" / problem / "tests").glob("test_*.py"))))
