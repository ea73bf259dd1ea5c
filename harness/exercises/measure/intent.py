"""Whether the code next to a bug says what the code should do, in words the bug contradicts.

A comment such as "Zero-weight samples must not even create a curve point" above
`keep = weights >= 0`, or the docstring "Grow `n_estimators` trees" above
`range(self.n_estimators + 1)`, gives a bug away: the reader compares the sentence with the
line and sees the mismatch. The heuristic compares *concepts*: the words of the changed
tokens (identifiers split at `_` and case changes, literals spelled out, operators in words)
against the words of the comments and docstrings a reader sees with the bug: those a few lines
above, on and below its lines, every comment and the docstring of the function it is in, and a
docstring that starts or ends a few lines away. A comment near the bug is read against the whole
statement (it describes the statement: `if not self._fits(r): break  # a head that does not fit
blocks everyone`); a docstring, or a comment further off in the function, against the changed
tokens alone. Consecutive whole-line comments are one passage. A compound identifier named whole
(`n_estimators`, or any name in backticks) counts two, any other shared word one; two make a
statement of intent. One shared plain word ("weights are normalised") does not.

A name can state intent as plainly as a comment: `entity = None if by is None else
ordered[time].to_numpy()` (`time` read where `by` stood) builds a value named `entity` from the
time column, and the reader sees the mismatch without running anything (`named_against`). Such
a bug is a slip people really make (the name beside it is right, the variable read is wrong),
so it is not refused as a machine's trace, which would lose it: it is counted as a stated
intent, which caps its difficulty and keeps it for easy exercises. Unlike a sentence, it cannot
be dropped from a handout (`Intent.in_code`): the name is the code.
"""

from __future__ import annotations

import ast
import bisect
import io
import keyword
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bugsmith.mutators.mutant import Mutant, line_starts

NEAR_LINES = 3  # a comment or docstring this close above or below the bug's lines is near it
STATED = 2  # points that make a statement of intent

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
# What carries a value up to the name it is given: `ordered[by].to_numpy()`, `a + b`, `(x, y)`.
_CARRIERS = (ast.Subscript, ast.Attribute, ast.Starred, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.IfExp,
             ast.Tuple, ast.List, ast.Slice, ast.Call)
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
_SPOKEN = frozenset(word for spoken in OPERATOR_WORDS.values() for word in spoken)
# Words too common in code to say anything about intent.
STOPWORDS = frozenset("""self cls np pd the and for not with from into len range int float str list dict set tuple
return none true false if else in is of to a an it its be by on at as this that all any are np numpy""".split())


@dataclass(frozen=True, slots=True, kw_only=True)
class Intent:
    """A comment or docstring sentence near the bug and how strongly it states what the bug contradicts."""

    stated: bool
    text: str  # the sentence of the comment or docstring that scored, or what the name says
    line: int  # where the comment (or block of comments) or docstring starts; 0 when there is none
    points: int
    comment: bool = False  # a comment (else a docstring)
    end_line: int = 0  # where the comment block or docstring ends
    in_code: bool = False  # the code says it (a name the bug contradicts): no handout can drop it


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A comment, a block of consecutive whole-line comments, or a docstring, and where it stands."""

    line: int
    end_line: int
    text: str
    comment: bool
    near: bool  # within NEAR_LINES of the bug's lines: read against the whole statement


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


def statement_concepts(source: str, mutant: Mutant, *, line: int | None = None,
                       end_line: int | None = None) -> set[str]:
    """The edited tokens' words and those of the rest of their statement's lines: a comment just
    above, or a test's name, describes the whole statement, so an edited operator or literal is
    read together with the names beside it (`weights > 0` under "zero-weight samples").
    `line` and `end_line` place the bug in `source` when it is not the file the mutant was made of."""
    first, last = line or mutant.span.line, end_line or mutant.span.end_line
    lines = " ".join(source.splitlines()[first - 1:last])
    names = " ".join(i for i in _IDENTIFIER.findall(lines) if i.lower() not in STOPWORDS)
    return changed_concepts(mutant)[1] | words(names) | {NUMBER_WORDS.get(n, n) for n in _NUMBER.findall(lines)}


def points(sentence: str, compound: set[str], concepts: set[str]) -> int:
    """How strongly `sentence` talks about the changed tokens."""
    quoted = {q.strip().lower().removeprefix("self.") for q in _BACKTICKED.findall(sentence)}
    named = {c for c in compound if c in sentence.lower()} | {q for q in quoted if words(q) & concepts}
    # an operator's words ("not", "no") are stopwords in prose, but they name a dropped `not`
    spoken = {w for w in re.findall(r"[a-z]+", sentence.lower()) if w in _SPOKEN and w in concepts}
    shared = (words(sentence) | spoken) & concepts
    named_words = set().union(*(words(n) for n in named)) if named else set()
    return 2 * len(named) + len(shared - named_words)


def _comments(source: str) -> list[tuple[int, int, str]]:
    """Every comment as (first line, last line, text): consecutive whole-line comments at one
    indentation are one block, a comment after code is one on its own."""
    found: list[tuple[int, int, str, int]] = []  # (line, end line, text, column; -1 after code)
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        number, column = token.start
        whole = not lines[number - 1][:column].strip()
        text = token.string.lstrip("#").strip()
        last = found[-1] if found else None
        if whole and last and last[3] == column and last[1] == number - 1:
            found[-1] = (last[0], number, f"{last[2]} {text}".strip(), column)
        else:
            found.append((number, number, text, column if whole else -1))
    return [(line, end, text) for line, end, text, _ in found if text]


def _docstrings(tree: ast.Module) -> list[tuple[int, int, str, ast.AST]]:
    """Every docstring of the module, a class or a function: (first line, last line, text, owner)."""
    found: list[tuple[int, int, str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                found.append((first.lineno, first.end_lineno or first.lineno, first.value.value.strip(), node))
    return found


def enclosing_function(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose lines hold `line`."""
    inside = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
              and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return min(inside, key=lambda n: (n.end_lineno or n.lineno) - n.lineno, default=None)


def nearby_text(source: str, line: int, end_line: int) -> list[Passage]:
    """The comments and docstrings a reader sees with a bug on lines `line`-`end_line`: within
    NEAR_LINES above or below them, and anywhere in the function they are in (its docstring too)."""
    low, high = line - NEAR_LINES, end_line + NEAR_LINES
    try:
        comments = _comments(source)
        tree = ast.parse(source)
    except (SyntaxError, tokenize.TokenError):
        return []
    function = enclosing_function(tree, line)
    start, end = (function.lineno, function.end_lineno or function.lineno) if function else (line, end_line)
    found = []
    for first, last, text in comments:
        near = first <= high and last >= low
        if near or start <= first <= end:
            found.append(Passage(line=first, end_line=last, text=text, comment=True, near=near))
    for first, last, text, owner in _docstrings(tree):
        if owner is function or (first <= high and last >= low):
            found.append(Passage(line=first, end_line=last, text=text, comment=False, near=False))
    return sorted(found, key=lambda p: (p.line, p.comment))


def stated_intents(source: str, mutant: Mutant, *, line: int | None = None,
                   end_line: int | None = None) -> tuple[Intent, ...]:
    """Every sentence near `mutant` that states the intent the edit contradicts, by place, and
    the name that does (`named_against`). `source` is the unmutated file, or a handout: then
    `line` and `end_line` place the bug in it, and only its sentences are read (a name cannot
    have been dropped from it, so the reference's answer holds)."""
    compound, concepts = changed_concepts(mutant)
    statement = statement_concepts(source, mutant, line=line, end_line=end_line)
    found = []
    first, last = line or mutant.span.line, end_line or mutant.span.end_line
    for passage in nearby_text(source, first, last):
        for sentence in _sentences(passage.text):
            score = points(sentence, compound, statement if passage.near else concepts)
            if score >= STATED:
                found.append(Intent(stated=True, text=sentence, line=passage.line, points=score,
                                    comment=passage.comment, end_line=passage.end_line))
    named = named_against(source, mutant) if line is None else None
    return (*found, named) if named is not None else tuple(found)


def stated_intent(source: str, mutant: Mutant) -> Intent:
    """The sentence (or name) near `mutant` (in the unmutated `source`) that states most
    strongly the intent the edit contradicts, or a record that none does."""
    found = stated_intents(source, mutant)
    return max(found, key=lambda i: (i.points, -i.line), default=Intent(stated=False, text="", line=0, points=0))


def _sentences(text: str) -> Iterable[str]:
    """The sentences of a docstring or a block of comments (a docstring's first says what the function does)."""
    for part in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
        if part.strip():
            yield " ".join(part.split())


# A name the bug contradicts ----------------------------------------------------------------------

def named_against(source: str, mutant: Mutant) -> Intent | None:
    """The name beside the bug that says it is wrong. The edit puts name B where name A stood
    (names are all it changes), inside a value whose name T is on the same line: the target it
    is assigned to, or the keyword it is passed as. It reads wrong at a glance when
    - T ties to A: they share a word, or A has none of its own (`by`, `x`): T says what A is;
    - T and B share no word, and the value did not read B before (a swap inside one value
      keeps both names): T does not cover B;
    - B means something else: it has words of its own, or the function assigns it or passes
      it under a name that has (`time=b`), none of them T's.
    So `entity = ordered[time]` (from `ordered[by]`) is one, `left_count = len(left_rows)` (from
    `left_mask`) is not: both names are the left side's. A parameter's name is not on the line
    (the reader must open the function called), so a positional argument is named by what its
    call is assigned to. `source` is the unmutated file."""
    renamed = _renamed(mutant.original, mutant.mutated)
    if not renamed:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    start = mutant.span.offsets(source)[0]
    for offset, old, new in renamed:
        path = _path_to(tree, source, start + offset)
        named = _named_value(path) if _is_name(path[-1], old) else None  # not a word inside a string
        if named is not None and _contradicts(named[0], old, new, _roles(path, new)) \
                and not any(_is_name(node, new) for node in ast.walk(named[1])):
            return Intent(stated=True, text=f"`{named[0]}` is made of `{new}`, where `{old}` stood", points=STATED,
                          line=mutant.span.line, end_line=mutant.span.end_line, in_code=True)
    return None


def _contradicts(target: str, old: str, new: str, roles: Iterable[str]) -> bool:
    named, was, now = words(target), words(old), words(new)
    if not named or named & now or (was and not named & was):
        return False
    return any(words(role) and not words(role) & named for role in roles)


def _renamed(original: str, mutated: str) -> list[tuple[int, str, str]]:
    """(offset in `original`, old name, new name) of each name the edit replaced, when names
    are all it replaced."""
    before = list(_TOKEN.finditer(original))
    after = [t.group() for t in _TOKEN.finditer(mutated)]
    if len(before) != len(after):
        return []
    changed = [(t.start(), t.group(), new) for t, new in zip(before, after) if t.group() != new]
    names = all(_IDENTIFIER.fullmatch(a) and _IDENTIFIER.fullmatch(b) and not keyword.iskeyword(a)
                and not keyword.iskeyword(b) for _, a, b in changed)
    return changed if names else []


def _path_to(tree: ast.AST, source: str, offset: int) -> list[ast.AST]:
    """The nodes of `tree` that hold the character at `offset`, outermost first."""
    starts = line_starts(source)
    line = bisect.bisect_right(starts, offset)
    where = (line, len(source[starts[line - 1]:offset].encode()))  # ast counts columns in UTF-8 bytes
    path = [tree]
    while True:
        inner = next((c for c in _children(path[-1]) if _holds(c, where)), None)
        if inner is None:
            return path
        path.append(inner)


def _children(node: ast.AST) -> Iterable[ast.AST]:
    """The child nodes that have a place, looking through those that have none (`arguments`)."""
    for child in ast.iter_child_nodes(node):
        if hasattr(child, "lineno"):
            yield child
        else:
            yield from _children(child)


def _holds(node: ast.AST, where: tuple[int, int]) -> bool:
    first = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    last = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return first <= where < last


def _named_value(path: Sequence[ast.AST]) -> tuple[str, ast.AST] | None:
    """The name the value at the end of `path` is given, and the whole value so named: up
    through what carries it (a subscript, an attribute, an operation, a call's argument or
    receiver, a branch of `a if c else b`) to the target it is assigned to or the keyword it is
    passed as; None where it only decides something (a condition, a comparison) or is not named."""
    for child, parent in zip(reversed(path), reversed(path[:-1])):
        if isinstance(parent, ast.keyword):
            return (parent.arg, child) if parent.arg else None
        if isinstance(parent, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            name = _target_name(targets[0]) if len(targets) == 1 and child not in targets else None
            return (name, child) if name else None
        if isinstance(parent, ast.Call) and child is parent.func and not isinstance(child, ast.Attribute):
            return None  # the function called, not a value passed
        if isinstance(parent, ast.IfExp) and child is parent.test or not isinstance(parent, _CARRIERS):
            return None
    return None


def _target_name(target: ast.AST) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def _roles(path: Sequence[ast.AST], name: str) -> list[str]:
    """`name` and the names its function assigns it to or passes it as (`time=name`)."""
    function = next((n for n in reversed(path) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    roles = [name]
    for node in ast.walk(function) if function is not None else ():
        if isinstance(node, ast.keyword) and node.arg and _is_name(node.value, name):
            roles.append(node.arg)
        elif isinstance(node, ast.Assign) and _is_name(node.value, name):
            roles.extend(t for t in map(_target_name, node.targets) if t)
    return roles


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name
