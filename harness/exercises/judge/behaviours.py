"""Which behaviour of a problem a line of its code belongs to, read from the code itself.

`bugsmith score` groups the bugs a suite missed by the behaviour they reveal (harness.exercises.
lessons). The groups come from evidence in the source, never from a table per problem, so that
they work on a user's own project too:

- a public function's optional parameter (`sample_weight=None`): the code only reached when the
  caller passes it (the branch of `if sample_weight is None` that takes it, the helpers called
  only from there, the lines that read a value computed from it);
- an error path: an `if` whose body raises, with the exception and its message;
- a branch: the innermost `if` around the line;
- the function that holds the line, as the fallback.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

Lines = frozenset[int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """Lines of one file that one behaviour owns."""

    kind: str  # "parameter", "error", "branch", "function"
    key: str  # stable across runs: the parameter's name, or "file:line" of the statement
    lines: Lines
    subject: str  # the parameter, "ValueError: y_score must be finite", the condition, the function
    function: str  # the function that holds the region ("" for a parameter)
    # What runs only on this behaviour's input: a branch's or error path's body, the code only a
    # passed parameter reaches; no test runs it -> "never tested", not only "not checked".
    body: Lines = frozenset()
    doc: str = ""  # the holding function's docstring and the comments above the region


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeMap:
    """The behaviours of a problem's files: `regions[file]`, most specific kind first."""

    regions: Mapping[str, tuple[Region, ...]]
    public: frozenset[str]  # the problem's public names (`__all__`, else the non-underscore ones)
    calls: Mapping[str, frozenset[str]]  # function -> the module functions it calls

    def entry_points(self, function: str) -> list[str]:
        """The public functions whose calls reach `function`, sorted; all public ones if none."""
        found = sorted(p for p in self.public if function == p or function in self._reached(p))
        return found or sorted(self.public)

    def _reached(self, start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for callee in self.calls.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return seen

    def owner(self, file: str, line: int) -> Region | None:
        """The behaviour a line belongs to: a parameter, else an error path, else the innermost
        branch, else its function."""
        found = [r for r in self.regions.get(file, ()) if line in r.lines]
        for kind in ("parameter", "error", "branch", "function"):
            candidates = [r for r in found if r.kind == kind]
            if candidates:
                return min(candidates, key=lambda r: len(r.lines))
        return None


def code_map(sources: Mapping[str, str], packages: Mapping[str, str] = {}) -> CodeMap:
    """Regions of every parsable Python file in `sources` (relative path -> text); `packages`
    are the `__init__.py` texts that say which names are public."""
    public = public_names(packages, sources)
    trees = {}
    for file, text in sources.items():
        try:
            trees[file] = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
    regions: dict[str, list[Region]] = {file: [] for file in trees}
    calls: dict[str, frozenset[str]] = {}
    for file, tree in trees.items():
        functions = _functions(tree)
        for name, node in functions.items():
            calls[name] = frozenset(c.func.id for c in ast.walk(node) if isinstance(c, ast.Call)
                                    and isinstance(c.func, ast.Name) and c.func.id in functions)
        for name, node in functions.items():
            doc = ast.get_docstring(node) or ""
            regions[file].append(Region(kind="function", key=f"{file}:{name}", lines=_span(node),
                                        subject=name, function=name, doc=doc))
            regions[file] += _branches(file, name, node, doc, sources[file])
        for name, node in functions.items():
            if _is_public(name, public):
                regions[file] += _parameters(file, node, functions)
    return CodeMap(regions={f: tuple(r) for f, r in regions.items()}, public=frozenset(public), calls=calls)


def _is_public(name: str, public: set[str]) -> bool:
    """`roc_curve` in `__all__`, or a method of a public class (`Scheduler.step`, `__init__`)."""
    owner, _, method = name.rpartition(".")
    if method.startswith("_") and method != "__init__":
        return False
    return (owner or method) in public if public else not (owner or method).startswith("_")


def statement_lines(source: str) -> set[int]:
    """The first line of every statement inside a function (docstrings aside): what coverage
    counts as code a test may run or not."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    found: set[int] = set()
    for node in _functions(tree).values():
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        found |= {s.lineno for top in body for s in ast.walk(top) if isinstance(s, ast.stmt)}
    return found


def public_names(packages: Mapping[str, str], sources: Mapping[str, str]) -> set[str]:
    """`__all__` of the packages, else what they import, else the code's non-underscore functions."""
    names: set[str] = set()
    for text in packages.values():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                    for t in node.targets):
                names |= {e.value for e in getattr(node.value, "elts", ())
                          if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        if not names:
            names |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    return {n for n in names if not n.startswith("_")}


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module functions by name, methods as `Class.name`."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def _span(node: ast.AST) -> Lines:
    return frozenset(range(node.lineno, (node.end_lineno or node.lineno) + 1))  # type: ignore[attr-defined]


def _block(statements: list[ast.stmt]) -> Lines:
    return frozenset().union(*map(_span, statements)) if statements else frozenset()


def _branches(file: str, function: str, node: ast.AST, doc: str, source: str) -> list[Region]:
    """An error path for each `if` whose body raises, a branch for each other `if`."""
    lines = source.splitlines()
    found = []
    branches = [b for b in ast.walk(node) if isinstance(b, ast.If)]
    plain = [b for b in branches if not any(isinstance(s, ast.Raise) for s in b.body)]
    for branch in branches:
        test = _span(branch.test)
        body = _block(branch.body)
        # What names the behaviour: the comment above the `if`, else the function's docstring,
        # but only where the function has no other branch it could be speaking of.
        said = _comments_above(lines, branch.lineno) or (doc if len(plain) == 1 else "")
        raised = next((s for s in branch.body if isinstance(s, ast.Raise)), None)
        if raised is not None:
            found.append(Region(kind="error", key=f"{file}:{raised.lineno}", lines=test | body,
                                subject=_raised(raised), function=function, body=body, doc=said))
        else:
            found.append(Region(kind="branch", key=f"{file}:{branch.lineno}", lines=test | body,
                                subject=ast.unparse(branch.test), function=function, body=body, doc=said))
    return found


def _comments_above(lines: list[str], line: int) -> str:
    above: list[str] = []
    for text in reversed(lines[:line - 1]):
        if not text.strip().startswith("#"):
            break
        above.insert(0, text.strip().lstrip("#").strip())
    return " ".join(above)


def _raised(node: ast.Raise) -> str:
    """`ValueError: y_true must contain only 0 and 1 or booleans, got …`."""
    exc = node.exc
    if isinstance(exc, ast.Call):
        name = ast.unparse(exc.func)
        message = _text(exc.args[0]) if exc.args else ""
        return f"{name}: {message}" if message else name
    return ast.unparse(exc) if exc is not None else "re-raise"


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "…" for v in node.values)
    return ast.unparse(node)


def _parameters(file: str, node: ast.FunctionDef | ast.AsyncFunctionDef,
                functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> list[Region]:
    """One region per optional parameter: the lines only its callers' values reach."""
    optional = _optional(node)
    found = []
    for parameter in optional:
        lines: set[int] = set()
        only: set[int] = set()
        _follow(node, {parameter}, functions, lines, only, seen=set())
        if lines:
            found.append(Region(kind="parameter", key=parameter, lines=frozenset(lines), subject=parameter,
                                function="", body=frozenset(only)))
    return found


def _optional(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Parameters with a default of None: what a caller may leave out, so a suite may never pass."""
    arguments = node.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    return [a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None]


def _follow(node: ast.FunctionDef | ast.AsyncFunctionDef, aliases: set[str],
            functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef], lines: set[int],
            only: set[int], seen: set[str]) -> None:
    """Add to `lines` what in `node` only runs, or only differs, when a value is passed for the
    parameter that `aliases` name here, and to `only` what only runs then; follow the value
    into the module functions it is passed to."""
    if node.name in seen:
        return
    seen.add(node.name)
    guarded: set[int] = set().union(*_given_branches(node, aliases))
    only |= guarded - _tested(node, aliases)
    derived = _derived(node, aliases, guarded)
    for sub in ast.walk(node):
        line = getattr(sub, "lineno", None)
        if line is None:
            continue
        # The parameter itself is only handed on (followed below); what is computed from it differs.
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in derived - aliases:
            lines.add(line)
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in functions:
            callee = functions[sub.func.id]
            if line in guarded:  # called only when the value was passed: all of it is the parameter's
                lines |= _span(callee)
                only |= _span(callee)
                continue
            passed = _passed(sub, callee, aliases)
            if passed:
                _follow(callee, passed, functions, lines, only, seen)
    lines |= guarded


def _given_branches(node: ast.AST, aliases: set[str]) -> Iterator[Lines]:
    """The lines of each branch taken when an alias `is not None`, and of what follows an early
    exit `if alias is None: return ...`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.If | ast.IfExp) and (given := _is_none(sub.test, aliases)) is not None:
            branch = sub.orelse if given else sub.body
            yield _block(branch) if isinstance(branch, list) else _span(branch)
        for block in (getattr(sub, "body", None), getattr(sub, "orelse", None)):
            if not isinstance(block, list):
                continue
            for index, statement in enumerate(block):
                if (isinstance(statement, ast.If) and not statement.orelse and _is_none(statement.test, aliases)
                        and isinstance(statement.body[-1], ast.Return | ast.Raise)):
                    yield _block(block[index + 1:])


def _is_none(test: ast.expr, aliases: set[str]) -> bool | None:
    """True for `alias is None`, False for `alias is not None`, None for any other test."""
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id in aliases and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None and isinstance(test.ops[0], ast.Is | ast.IsNot)):
        return isinstance(test.ops[0], ast.Is)
    return None


def _tested(node: ast.AST, aliases: set[str]) -> set[int]:
    """The lines of the `is None` tests themselves, which run whether or not the value is passed."""
    return {line for sub in ast.walk(node) if isinstance(sub, ast.Compare) and isinstance(sub.left, ast.Name)
            and sub.left.id in aliases for line in _span(sub)}


def _derived(node: ast.AST, aliases: set[str], guarded: set[int]) -> set[str]:
    """Local names assigned from a value that differs when the parameter is passed (one step:
    `weights = ... if sample_weight is None else ...`), and the aliases themselves."""
    names = set(aliases)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign) and _span(sub.value) & guarded:
            names |= {t.id for t in sub.targets if isinstance(t, ast.Name)}
    return names


def _passed(call: ast.Call, callee: ast.FunctionDef | ast.AsyncFunctionDef, aliases: set[str]) -> set[str]:
    """The callee's parameters that receive one of `aliases` as is."""
    positional = [a.arg for a in callee.args.posonlyargs + callee.args.args]
    found = set()
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id in aliases and index < len(positional):
            found.add(positional[index])
    for keyword in call.keywords:
        if keyword.arg and isinstance(keyword.value, ast.Name) and keyword.value.id in aliases:
            found.add(keyword.arg)
    return found


def contract_sentence(statement: str, subject: str, hints: str = "") -> str:
    """The sentence of the problem statement that states a behaviour: the first that quotes the
    parameter (`sample_weight`), else one that quotes a code span of `hints` (the function's
    docstring: `(n, 1)`); "" when none does."""
    sentences = [s.strip(" -*\n") for s in re.split(r"(?<=[.:;])\s+|\n\s*[-*]\s+|\n\n", statement)]
    sentences = [" ".join(s.split()) for s in sentences if s and not s.startswith(("#", "```", ">>>"))]
    spans = [f"`{subject}`"] if subject else []
    spans += [f"`{span}`" for span in re.findall(r"`([^`]+)`", hints) if not span.isidentifier()]
    for span in spans:
        for sentence in sentences:
            if span in sentence and len(sentence) < 240:
                return sentence
    return ""


def clause(doc: str, span: str) -> str:
    """The clause of a docstring that quotes `span`: "a single column `(n, 1)` is flattened"."""
    spans = re.findall(r"`[^`]*`", doc)
    numbers = iter(range(len(spans)))
    hidden = re.sub(r"`[^`]*`", lambda _: f"\0{next(numbers)}\0", doc)
    for part in re.split(r"[;,.]\s+|\n", hidden):
        shown = re.sub("\0(\\d+)\0", lambda m: spans[int(m.group(1))], part)
        if span in shown:
            return shown.strip().rstrip(".")
    return ""
