"""Read a problem's contract table and the problem statement it quotes.

A table (`tables/<problem>.md`) has two sections of markdown rows. `## Contract points`:
`| point | "fragment quoted from problem.md" | `test_a`, `test_b` |`; `## Not contract points`:
`| "fragment" | why it is not checked |`. A fragment is matched against problem.md with runs of
whitespace made one space, so a quote may wrap where the statement does not.

The tables live here, not beside problem.md, because the pack builder hands every `.md` file of
a problem folder to candidates, and a table names the held-back tests.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.exercises.sources.catalogue import reference_names

REPO = Path(__file__).resolve().parents[2]
TABLES = Path(__file__).resolve().parent / "tables"


def problems(root: Path = REPO) -> list[str]:
    """The problems every contract test runs over: each `reference/<name>/problem.md` under
    `root`, found as the harness finds them, never typed here."""
    return reference_names(root)


def table_gaps(root: Path = REPO) -> tuple[list[str], list[str]]:
    """(the problems of `root` with no `tables/<problem>.md`, the tables of no problem): a new
    problem is reported without its table rather than left unchecked."""
    names = set(problems(root))
    tables = {path.stem for path in TABLES.glob("*.md")}
    return sorted(names - tables), sorted(tables - names)


@dataclass(frozen=True, slots=True, kw_only=True)
class Point:
    name: str
    fragment: str
    tests: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Exempt:
    fragment: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    points: tuple[Point, ...]
    exempt: tuple[Exempt, ...]


def flat(text: str) -> str:
    return " ".join(text.split())


def _quoted(cell: str, where: str) -> str:
    if len(cell) < 2 or not (cell.startswith('"') and cell.endswith('"')):
        raise ValueError(f"{where}: {cell!r} is not a quoted fragment")
    return cell[1:-1]


def _rows(lines: list[str]) -> list[list[str]]:
    rows = []
    for line in lines:
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        rows.append([cell.strip() for cell in line.strip()[1:-1].split(" | ")])
    return rows[1:]  # the header


def read_table(problem: str) -> Table:
    sections: dict[str, list[str]] = {}
    current = None
    for line in (TABLES / f"{problem}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    points = []
    for row in _rows(sections.get("Contract points", [])):
        if len(row) != 3:
            raise ValueError(f"{problem}: a point row needs 3 cells, got {row}")
        tests = tuple(re.findall(r"`(test_\w+)`", row[2]))
        points.append(Point(name=row[0], fragment=_quoted(row[1], f"{problem} {row[0]}"), tests=tests))
    exempt = []
    for row in _rows(sections.get("Not contract points", [])):
        if len(row) != 2:
            raise ValueError(f"{problem}: an exempt row needs 2 cells, got {row}")
        exempt.append(Exempt(fragment=_quoted(row[0], problem), reason=row[1]))
    return Table(points=tuple(points), exempt=tuple(exempt))


def statement(problem: str) -> str:
    return (REPO / "reference" / problem / "problem.md").read_text(encoding="utf-8")


def blocks(markdown: str) -> list[str]:
    """The statement's units a table must account for: each paragraph, each list item, each
    table and each code block (headings are titles, not statements)."""
    return [flat("\n".join(lines)) for _, lines in headed_blocks(markdown)]


def headed_blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """Each block of `blocks` as its lines, with the heading line it stands under ("" before
    the first heading)."""
    found: list[tuple[str, list[str]]] = []
    current: list[str] = []
    heading = ""
    fenced = False

    def flush() -> None:
        if current:
            found.append((heading, current.copy()))
            current.clear()

    for line in markdown.splitlines():
        if line.startswith("```"):
            if fenced:
                current.append(line)
                flush()
            else:
                flush()
                current.append(line)
            fenced = not fenced
        elif fenced:
            current.append(line)
        elif not line.strip() or line.startswith("#"):
            flush()
            if line.startswith("#"):
                heading = line
        elif re.match(r"\s*(-|\d+\.)\s", line) or (line.startswith("|") and current
                                                   and not current[-1].startswith("|")):
            flush()
            current.append(line)
        else:
            current.append(line)
    flush()
    return found


def suite_functions(problem: str) -> set[str]:
    """The test functions of the problem's visible and hidden files."""
    names = set()
    for path in sorted((REPO / "reference" / problem / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {node.name for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    return names
