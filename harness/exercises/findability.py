"""How hard a bug is to find, from evidence: what the visible tests point at, what a repair search
needs, what the code around it says, and how much code a candidate must read.

The evidence of one bug is a `Findability` record; `harness.exercises.measure.probes` computes it with the
builder's workers, and `harness.exercises.measure.difficulty` turns it into points.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bugsmith.harness.exercises.measure.intent import STATED, changed_concepts, points, statement_concepts
from bugsmith.harness.shared.tasks import LineMap
from bugsmith.mutators.mutant import Mutant


@dataclass(frozen=True, slots=True, kw_only=True)
class Findability:
    """The evidence of how hard one bug is to find (harness.exercises.measure.difficulty scores it)."""

    mutant: str  # the bug's mutant id
    fl_rank: int  # Ochiai rank of its line over the visible tests (1 = most suspicious)
    fl_lines: int  # lines a failing visible test ran, i.e. ranked
    repair_tries: int | None  # candidate edits tried before the visible tests passed; None: not within the cap
    intent: bool  # a comment or docstring nearby states what the bug contradicts
    named: bool  # a failing visible test's name or message names the buggy function or the edited code
    lines_to_read: int  # lines of the functions the failing visible tests run
    helper: bool  # the visible tests never name the buggy function: it is seen through the public API
    clue_dropped: bool = False  # the handout lost the comment that stated the intent (harness.exercises.measure.clues)
    repair_searched: bool = True  # False: a survey; the search was skipped, `repair_tries` means nothing yet
    intent_in_code: bool = False  # a name beside the bug contradicts it: no handout can drop that clue
    unread: bool = False  # the bug leaves a name its function binds unread: a linter points at it (measure.tells)
    twin_broken: bool = False  # the bug's line is one of two written as a pair, and no longer matches the other
    warns: bool = False  # a visible test's run warns at the bug's line: pytest's summary shows it
    raised: bool = False  # a failing visible test's traceback ends at the bug's line or the raise it guards
    loop_names: bool = False  # the bug reads a loop's collection for its item, or the item for the collection

    @property
    def shown(self) -> bool:
        """Whether something the candidate sees points at the bug: a sentence stating what it
        contradicts, a name it left unread, a twin it no longer matches, a warning at its line,
        a traceback that ends at it, a loop's item and collection read one for the other."""
        return self.intent or self.unread or self.twin_broken or self.warns or self.raised or self.loop_names

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Findability:
        return cls(**data)


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionSpan:
    file: str
    name: str  # qualified name
    start: int
    end: int


def function_spans(file: str, source: str) -> list[FunctionSpan]:
    """Every function and method of `source` with its qualified name and lines."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    spans: list[FunctionSpan] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                spans.append(FunctionSpan(file=file, name=name, start=child.lineno, end=end))
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return spans


def lines_to_read(lines: LineMap, failing: Iterable[str], sources: Mapping[str, str]) -> int:
    """The lines of every function (innermost) that a failing test ran: what a reader follows."""
    failed = frozenset(failing)
    read: set[FunctionSpan] = set()
    for file, by_line in lines.items():
        if file not in sources:
            continue
        spans = function_spans(file, sources[file])
        for number, tests in by_line.items():
            if failed.intersection(tests):
                inside = [s for s in spans if s.start <= number <= s.end]
                if inside:
                    read.add(min(inside, key=lambda s: s.end - s.start))
    return sum(s.end - s.start + 1 for s in read)


def _short_name(function: str | None) -> str:
    name = (function or "").rsplit(".", 1)[-1]
    return "" if name.startswith("__") else name.strip("_").lower()


def names_bug(mutant: Mutant, source: str, failing: Sequence[str], messages: Sequence[str]) -> bool:
    """Whether a failing test's name or message names the buggy function, or spells out the edited
    statement (`test_zero_weight_sample_creates_no_point` over `keep = weights > 0`); `source`
    is the unmutated file."""
    name = _short_name(mutant.function)
    compound = changed_concepts(mutant)[0]
    statement = statement_concepts(source, mutant)
    for text in (*(t.split("::")[-1].split("[")[0] for t in failing), *messages):
        spoken = re.sub(r"[\d.]+", " ", text.replace("_", " "))  # a message's numbers are data, not names
        if name and len(name) >= 4 and re.search(rf"(?<![a-z]){re.escape(name.replace('_', ' '))}(?![a-z])",
                                                 spoken.lower()):
            return True
        if points(spoken, compound, statement) >= STATED:
            return True
    return False


def is_helper(mutant: Mutant, test_sources: Iterable[str]) -> bool:
    """Whether no visible test names the buggy function: the candidate reaches it only through the API."""
    name = (mutant.function or "").rsplit(".", 1)[-1]
    if name == "__init__":
        name = (mutant.function or "").rsplit(".", 1)[0].rsplit(".", 1)[-1]  # the class is what tests call
    if not name:
        return False
    return not any(re.search(rf"\b{re.escape(name)}\b", text) for text in test_sources)
