"""Whether the code next to a bug says what the code should do, in words the bug contradicts.

A comment such as "Zero-weight samples must not even create a curve point" above
`keep = weights >= 0`, or the docstring "Grow `n_estimators` trees" above
`range(self.n_estimators + 1)`, gives a bug away: the reader compares the sentence with the
line and sees the mismatch. The heuristic compares *concepts*: the words of the changed
tokens (identifiers split at `_` and case changes, literals spelled out, operators in words)
against the words of the comments and docstrings within a few lines. A compound identifier
named whole (`n_estimators`, or any name in backticks) counts two, any other shared word one;
two make a statement of intent. One shared plain word ("weights are normalised") does not.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from bugsmith.mutators.mutant import Mutant

COMMENT_LINES_ABOVE = 3  # comments this close above the bug (or on its lines) count
DOCSTRING_LINES_ABOVE = 8  # the enclosing function's docstring counts if it ends this close
STATED = 2  # points that make a statement of intent

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_WORD = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")
_BACKTICKED = re.compile(r"`([^`]+)`")
NUMBER_WORDS = {"0": "zero", "1": "one", "2": "two", "0.0": "zero", "1.0": "one", "0.5": "half"}
# What an operator is called in prose: a comment that says "positive" talks about `> 0`.
OPERATOR_WORDS = {
    ">=": ("least", "nonnegative"), "<=": ("most",), ">": ("positive", "greater", "above", "more", "exceeds"),
    "<": ("less", "below", "fewer", "negative"), "==": ("equal", "same"), "!=": ("differ", "different"),
    "not": ("not", "never", "no"), "and": ("both", "all"), "or": ("either", "any"),
    "+": ("plus", "more", "extra"), "-": ("minus", "fewer", "less"), "//": ("floor", "whole"),
    "/": ("divided", "ratio", "share", "normalised", "normalized", "mean", "average"),
    "*": ("times", "weighted"), "%": ("modulo", "remainder"), "[::-1]": ("reversed", "reverse"),
}
# Words too common in code to say anything about intent.
STOPWORDS = frozenset("""self cls np pd the and for not with from into len range int float str list dict set tuple
return none true false if else in is of to a an it its be by on at as this that all any are np numpy""".split())


@dataclass(frozen=True, slots=True, kw_only=True)
class Intent:
    """The comment or docstring nearest the bug that states what the bug contradicts, if any."""

    stated: bool
    text: str  # the comment line, or the docstring's sentence, that scored highest
    line: int  # where the comment or docstring starts; 0 when there is none
    points: int
    comment: bool = False  # a comment (else a docstring)


def words(text: str) -> set[str]:
    """Lower-case word stems of prose or code: `n_estimators` gives n, estimator; `Zero-weight` zero, weight."""
    found = set()
    for token in _WORD.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", text.replace("_", " "))):
        word = token.lower()
        found.add(NUMBER_WORDS.get(word, _stem(word)))
    return {w for w in found if w not in STOPWORDS and (len(w) > 2 or w in NUMBER_WORDS.values())}


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def changed_concepts(mutant: Mutant) -> tuple[set[str], set[str]]:
    """(compound identifiers, words) of the edited tokens, before and after the edit."""
    text = f"{mutant.original}\n{mutant.mutated}"
    identifiers = {i for i in _IDENTIFIER.findall(text) if i.lower() not in STOPWORDS}
    found = set().union(*(words(i) for i in identifiers)) if identifiers else set()
    for number in _NUMBER.findall(text):
        found.add(NUMBER_WORDS.get(number, number))
    for operator, spoken in OPERATOR_WORDS.items():
        pattern = rf"\b{operator}\b" if operator.isalpha() else re.escape(operator)
        if len(re.findall(pattern, mutant.original)) != len(re.findall(pattern, mutant.mutated)):
            found.update(spoken)
    compound = {i.lower().strip("_") for i in identifiers if "_" in i.strip("_")}
    return compound, found


def statement_concepts(source: str, mutant: Mutant) -> set[str]:
    """The edited tokens' words and those of the rest of their statement's lines: a comment just
    above, or a test's name, describes the whole statement, so an edited operator or literal is
    read together with the names beside it (`weights > 0` under "zero-weight samples")."""
    lines = " ".join(source.splitlines()[mutant.span.line - 1:mutant.span.end_line])
    names = " ".join(i for i in _IDENTIFIER.findall(lines) if i.lower() not in STOPWORDS)
    return changed_concepts(mutant)[1] | words(names) | {NUMBER_WORDS.get(n, n) for n in _NUMBER.findall(lines)}


def points(sentence: str, compound: set[str], concepts: set[str]) -> int:
    """How strongly `sentence` talks about the changed tokens."""
    quoted = {q.strip().lower().removeprefix("self.") for q in _BACKTICKED.findall(sentence)}
    named = {c for c in compound if c in sentence.lower()} | {q for q in quoted if words(q) & concepts}
    shared = words(sentence) & concepts
    named_words = set().union(*(words(n) for n in named)) if named else set()
    return 2 * len(named) + len(shared - named_words)


def nearby_text(source: str, line: int, end_line: int) -> list[tuple[int, str, bool]]:
    """The comments within COMMENT_LINES_ABOVE lines above `line` (or on the bug's lines), and the
    docstring of the function the bug is in if it ends within DOCSTRING_LINES_ABOVE lines:
    (line, text, whether it is a comment)."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and line - COMMENT_LINES_ABOVE <= token.start[0] <= end_line:
                found.append((token.start[0], token.string.lstrip("#").strip(), True))
        tree = ast.parse(source)
    except (SyntaxError, tokenize.TokenError):
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno <= line <= (node.end_lineno or 0):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                    and line - DOCSTRING_LINES_ABOVE <= (first.end_lineno or 0) < line):
                found.append((first.lineno, first.value.value.strip(), False))
    return sorted(found)


def stated_intent(source: str, mutant: Mutant) -> Intent:
    """Whether a comment or docstring near `mutant` (in the unmutated `source`) states the
    intent the edit contradicts."""
    compound, concepts = changed_concepts(mutant)
    statement = statement_concepts(source, mutant)
    best = Intent(stated=False, text="", line=0, points=0)
    for line, text, is_comment in nearby_text(source, mutant.span.line, mutant.span.end_line):
        for sentence in [" ".join(text.split())] if is_comment else _sentences(text):
            score = points(sentence, compound, statement if is_comment else concepts)
            if score > best.points:
                best = Intent(stated=score >= STATED, text=sentence, line=line, points=score, comment=is_comment)
    return best


def _sentences(text: str) -> Iterable[str]:
    """A docstring's sentences (its first one says what the function does); a comment is one."""
    for part in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
        if part.strip():
            yield " ".join(part.split())
