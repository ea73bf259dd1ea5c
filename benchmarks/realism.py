"""How many real one-statement bugs bugsmith reproduces exactly, measured on BugsInPy.

    python benchmarks/realism.py                          # clones BugsInPy into the user cache once
    python benchmarks/realism.py --bugsinpy PATH          # a checkout, or a bare git directory
    python benchmarks/realism.py --family classic --show reproduced --json out.json

BugsInPy (soarsmu/BugsInPy) holds, for 501 real bugs of 17 Python projects, the fix as a diff
(`bug_patch.txt`). A bug counts here when its fix, outside tests, is one run of `-`/`+` lines
that changes one statement (or adds or deletes one whole statement). From the hunk alone (its
context lines, the `def` line git prints in the `@@` header, and the imports of `np`, `pd`, `os`,
`re`, `sys` and `math` when it uses them) we rebuild the fixed snippet
and the buggy one, run every selected mutator on the fixed snippet through the engine, exactly
as `bugsmith mutants` does, and count the bug reproduced when one mutant's code equals the
buggy snippet (compared as Python ASTs: layout, comments and quotes do not count). Each bug is
classified by the PySStuBs-style pattern of its fix, and the figure is printed per pattern,
with the mutants made on the changed statement ("per site"). Fixes that only reorder statements
are counted apart (reorders.py): which of them a mutant reproduces; so are fixes of one of two
twins, and fixes that make one edit in two twins (twin_fixes.py).

Only the hunk is seen, not the upstream file: names bound further up, other methods of the
class, imports are unknown. Mutators that need them (a sibling attribute, an imported
function) are measured at a disadvantage, so the share is a lower bound.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bugsmith.errors import SourceError
from bugsmith.mutators.base import AnyMutator
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.registry import select

REPOSITORY = "https://github.com/soarsmu/BugsInPy"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")
_DEF = re.compile(r"^\s*(async\s+)?def\s+\w+\s*\(.*\)\s*(->.*)?:\s*$")
_MAX_STATEMENT_LINES = 8
_WRAPPER = "def _bugsmith_site():\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class Bug:
    project: str
    number: int
    patch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Site:
    """A one-statement bug rebuilt from its hunk: both snippets wrapped in the same function."""

    bug: str
    file: str
    fixed: str
    buggy: str
    changed: tuple[int, int]  # lines of the fixed snippet the mutant must touch (1-based, inclusive)
    pattern: str


@dataclass(slots=True, kw_only=True)
class Result:
    bug: str
    pattern: str
    reproduced: bool
    operators: list[str] = field(default_factory=list)
    mutants: int = 0  # on the whole snippet
    at_site: int = 0  # on the changed statement


# --- reading BugsInPy ------------------------------------------------------------------------


def default_location() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "bugsmith" / "BugsInPy"


def load_bugs(location: Path) -> list[Bug]:
    """Every bug's patch, from a checkout or from a (bare) git directory."""
    if not location.exists():
        location.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--depth", "1", REPOSITORY, str(location)], check=True)
    if (location / "projects").is_dir():
        return [
            Bug(project=path.parts[-4], number=int(path.parts[-2]), patch=path.read_text(errors="replace"))
            for path in sorted(location.glob("projects/*/bugs/*/bug_patch.txt"))
        ]
    git = ["git", f"--git-dir={location}"]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", "projects"],
                           capture_output=True, text=True, check=True).stdout.split()
    patches = [name for name in names if name.endswith("/bug_patch.txt")]
    request = "".join(f"HEAD:{name}\n" for name in patches)
    raw = subprocess.run([*git, "cat-file", "--batch"], input=request.encode(),
                         capture_output=True, check=True).stdout
    bugs, position = [], 0
    for name in patches:
        header_end = raw.index(b"\n", position)
        size = int(raw[position:header_end].split()[2])
        body = raw[header_end + 1 : header_end + 1 + size].decode(errors="replace")
        position = header_end + 1 + size + 1
        parts = name.split("/")
        bugs.append(Bug(project=parts[1], number=int(parts[3]), patch=body))
    return sorted(bugs, key=lambda bug: (bug.project, bug.number))


# --- from a patch to a one-statement site -----------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hunk:
    file: str
    header: str  # what git printed after `@@ ... @@`: often the enclosing `def` line
    lines: tuple[str, ...]  # each with its ' ', '-' or '+' marker


def hunks(patch: str) -> Iterator[Hunk]:
    file, header = "", ""
    lines: list[str] = []
    for line in patch.splitlines():
        if line.startswith("diff --git"):
            if lines:
                yield Hunk(file=file, header=header, lines=tuple(lines))
            file, lines = "", []
        elif line.startswith("+++ "):
            file = line[4:].removeprefix("b/")
        elif line.startswith("--- "):
            continue
        elif match := _HUNK.match(line):
            if lines:
                yield Hunk(file=file, header=header, lines=tuple(lines))
            header, lines = match.group(1), []
        elif file and line[:1] in (" ", "-", "+", ""):
            lines.append(line if line else " ")
    if lines:
        yield Hunk(file=file, header=header, lines=tuple(lines))


def _is_source(file: str) -> bool:
    parts = file.lower().split("/")
    return file.endswith(".py") and not any(
        part in ("test", "tests", "testing", "docs", "doc", "examples") or part.startswith("test_")
        for part in parts
    )


def _blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    """Runs of changed lines: (start, end) indices into the hunk, end exclusive."""
    runs, start = [], None
    for index, line in enumerate(lines):
        changed = line[:1] in "-+" and line[:1] != ""
        if changed and start is None:
            start = index
        elif not changed and start is not None:
            runs.append((start, index))
            start = None
    if start is not None:
        runs.append((start, len(lines)))
    return runs


def _side(lines: Sequence[str], drop: str) -> list[str]:
    return [line[1:] for line in lines if line[:1] != drop]


def _wrapped(body: list[str], header: str, imports: Sequence[str], *, loop: bool = False) -> tuple[str, int] | None:
    """The lines as the body of a function (the hunk's own `def` when git printed it), and the
    number of lines above the first of them."""
    text = textwrap.dedent("\n".join(body)).rstrip() + "\n"
    lines = text.splitlines()
    if lines and lines[-1].rstrip().endswith(":"):  # a header whose body is outside the window
        indent = len(lines[-1]) - len(lines[-1].lstrip())
        text += " " * (indent + 4) + "pass\n"
    above = 1
    if loop:  # `break` or `continue` of a loop that starts above the window
        text = "for _bugsmith_item in _bugsmith_items:\n" + textwrap.indent(text, "    ")
        above += 1
    wrapper = header.strip() + "\n" if _DEF.match(header) else _WRAPPER
    source = wrapper + textwrap.indent(text, "    ")
    if re.match(r"\s*(async\s+)?def\s+\w+\s*\(\s*(self|cls)\b", wrapper):
        source = "class _BugsmithSite:\n" + textwrap.indent(source, "    ")
        above += 1
    source, above = "".join(imports) + source, above + len(imports)
    try:
        compile(source, "<site>", "exec", dont_inherit=True)
    except SyntaxError as error:
        if "outside loop" in str(error.msg) and not loop:
            return _wrapped(body, header, imports, loop=True)
        if "await" in source and not wrapper.startswith("async"):
            return _wrapped(body, "async " + wrapper.strip(), imports, loop=loop)
        return None
    except ValueError:
        return None
    return source, above


# Modules that upstream files import under these names; a hunk uses them without the import.
_MODULES = {"np": "numpy as np", "pd": "pandas as pd", "os": "os", "re": "re", "sys": "sys", "math": "math"}


def _imports(text: str) -> list[str]:
    """The imports of the usual module aliases the snippet uses and does not bind itself, so a
    mutator that asks whether `np.any` is a library function gets the file's answer."""
    return [
        f"import {module}\n"
        for alias, module in _MODULES.items()
        if re.search(rf"(?<![\w.]){alias}\.", text) and not re.search(rf"\b{alias}\s*=|import\b.*\b{alias}\b", text)
    ]


def one_statement_site(bug: Bug) -> Site | str:
    """The bug's site, or the reason it is not a one-statement bug."""
    changes = [(hunk, block) for hunk in hunks(bug.patch) if _is_source(hunk.file) for block in _blocks(hunk.lines)]
    if not changes:
        return "no source change"
    if len(changes) > 1:
        return "several changes"
    hunk, (start, end) = changes[0]
    before, after = start, len(hunk.lines) - end
    # The widest window of context lines around the change whose both sides parse.
    for shrink in range(before + after + 1):
        for cut_before in range(min(shrink, before) + 1):
            cut_after = shrink - cut_before
            if cut_after > after:
                continue
            window = hunk.lines[cut_before : len(hunk.lines) - cut_after]
            imports = _imports("\n".join(line[1:] for line in window))  # the same on both sides
            fixed = _wrapped(_side(window, "-"), hunk.header, imports)
            buggy = _wrapped(_side(window, "+"), hunk.header, imports)
            if fixed is None or buggy is None or fixed[1] != buggy[1]:
                continue
            return _site(bug, hunk, window, start - cut_before, end - cut_before, fixed[0], buggy[0], fixed[1])
    return "does not parse from the hunk"


def _site(
    bug: Bug, hunk: Hunk, window: Sequence[str], start: int, end: int, fixed: str, buggy: str, offset: int
) -> Site | str:
    fixed_tree, buggy_tree = ast.parse(fixed), ast.parse(buggy)
    if ast.dump(fixed_tree) == ast.dump(buggy_tree):
        return "layout or comments only"
    first_context = sum(1 for line in window[:start] if line[:1] != "-")
    added = _code_lines(window[start:end], "+", first_context + offset)
    buggy_first = sum(1 for line in window[:start] if line[:1] != "+")
    removed = _code_lines(window[start:end], "-", buggy_first + offset)
    fixed_statement = _statement(fixed_tree, added) if added else None
    buggy_statement = _statement(buggy_tree, removed) if removed else None
    if (added and fixed_statement is None) or (removed and buggy_statement is None):
        return "several statements"
    if not added:  # the fix deleted a statement: the bug is an extra one
        changed = (first_context + offset, first_context + offset + 1)
    else:
        changed = (getattr(fixed_statement, "lineno", 1), getattr(fixed_statement, "end_lineno", 1))
    return Site(
        bug=f"{bug.project}/{bug.number}",
        file=hunk.file,
        fixed=fixed,
        buggy=buggy,
        changed=changed,
        pattern=classify(fixed_statement, buggy_statement),
    )


def _code_lines(block: Sequence[str], marker: str, before: int) -> list[int]:
    """Snippet line numbers of the block's `marker` lines that hold code (not blank, not comments)."""
    lines = [line[1:] for line in block if line[:1] == marker]
    return [before + i + 1 for i, line in enumerate(lines) if line.strip() and not line.strip().startswith("#")]


def _statement(tree: ast.AST, lines: list[int]) -> ast.stmt | None:
    """The innermost statement whose own lines (its header, for a compound one) hold `lines`,
    when the changed lines are all of one statement; else None."""
    best: ast.stmt | None = None
    low, high = min(lines), max(lines)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        body = getattr(node, "body", None)
        end = node.end_lineno or node.lineno
        own_end = end if not body else body[0].lineno - 1
        compound = isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try))
        if compound and low == node.lineno and own_end < high <= end:
            whole = node  # a whole compound statement added or deleted
            if end - node.lineno < _MAX_STATEMENT_LINES:
                best = whole if best is None or best.lineno <= whole.lineno else best
            continue
        if node.lineno <= low and high <= own_end:
            if best is None or node.lineno >= best.lineno:
                best = node
    return best


# --- patterns (PySStuBs, and the Defects4J repair patterns for what they do not name) ----------

_OPERATORS = (ast.operator, ast.cmpop, ast.boolop, ast.unaryop)


def _difference(fixed: ast.AST, buggy: ast.AST) -> tuple[ast.AST, ast.AST]:
    """The smallest pair of subtrees where the two trees differ."""
    while True:
        if type(fixed) is not type(buggy) or isinstance(fixed, _OPERATORS):
            return fixed, buggy
        differing = []
        for name, value in ast.iter_fields(fixed):
            other = getattr(buggy, name, None)
            if isinstance(value, list):
                if not isinstance(other, list) or len(value) != len(other):
                    return fixed, buggy
                if value and isinstance(value[0], ast.AST):
                    differing += [(a, b) for a, b in zip(value, other) if ast.dump(a) != ast.dump(b)]
                elif value != other:
                    return fixed, buggy
            elif isinstance(value, ast.AST) and isinstance(other, ast.AST):
                if ast.dump(value) != ast.dump(other):
                    differing.append((value, other))
            elif value != other:
                return fixed, buggy
        if len(differing) != 1 or differing[0] == (fixed, buggy):
            return fixed, buggy
        fixed, buggy = differing[0]


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def classify(fixed: ast.stmt | None, buggy: ast.stmt | None) -> str:
    if buggy is None:
        kind = "guard" if isinstance(fixed, ast.If) else "call" if isinstance(fixed, ast.Expr) else "statement"
        return f"missing {kind}"
    if fixed is None:
        return "extra statement"
    if isinstance(fixed, (ast.If, ast.Try, ast.With)) and any(_same(inner, buggy) for inner in fixed.body):
        if isinstance(fixed, ast.If) and not fixed.orelse and len(fixed.body) == 1:
            return "condition around statement dropped"
        return f"{type(fixed).__name__.lower()} around statement dropped"
    if isinstance(buggy, ast.If) and len(buggy.body) == 1 and _same(buggy.body[0], fixed):
        return "extra condition around statement"
    a, b = _difference(fixed, buggy)
    if isinstance(a, _OPERATORS) or isinstance(b, _OPERATORS):
        kinds = {ast.operator: "binary", ast.cmpop: "comparison", ast.boolop: "boolean", ast.unaryop: "unary"}
        kind = next((word for base, word in kinds.items() if isinstance(a, base)), "other")
        return f"change {kind} operator"
    if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
        if isinstance(a.value, bool) or isinstance(b.value, bool):
            return "change boolean literal"
        if isinstance(a.value, (int, float)) and isinstance(b.value, (int, float)):
            return "change numeric literal"
        return "change string literal" if isinstance(a.value, str) else "change literal"
    leaves = (ast.Constant, ast.Name, ast.Attribute)
    if isinstance(a, leaves) and isinstance(b, leaves):
        if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute) and _same(a.value, b.value):
            return "change attribute"
        if isinstance(a, ast.Constant) or isinstance(b, ast.Constant):
            return "change literal"
        return "change identifier"
    if isinstance(a, ast.Call) and isinstance(b, ast.Call):
        return _call_pattern(a, b)
    if isinstance(a, ast.Call) and any(_same(arg, b) for arg in [*a.args, *(k.value for k in a.keywords)]):
        return "call unwrapped"
    if isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and _same(a.func.value, b):
        return "call unwrapped"
    if isinstance(b, ast.Call) and any(_same(arg, a) for arg in b.args):
        return "extra call wrapped"
    if isinstance(a, ast.BoolOp):
        values = b.values if isinstance(b, ast.BoolOp) and type(b.op) is type(a.op) else [b]
        if len(values) < len(a.values) and all(any(_same(v, w) for w in a.values) for v in values):
            return "condition clause dropped"
    if isinstance(b, ast.BoolOp) and any(_same(a, v) for v in b.values):
        return "condition clause added"
    if isinstance(a, ast.BinOp) and (_same(a.left, b) or _same(a.right, b)):
        return "operand dropped"
    if isinstance(b, ast.BinOp) and (_same(b.left, a) or _same(b.right, a)):
        return "operand added"
    if isinstance(a, ast.UnaryOp) and _same(a.operand, b):
        return "change unary operator"
    if isinstance(b, ast.UnaryOp) and _same(b.operand, a):
        return "change unary operator"
    if isinstance(a, ast.Subscript) and _same(a.value, b):
        return "subscript dropped"
    if isinstance(a, ast.stmt):
        return "statement changed"
    return "expression changed"


def _call_pattern(a: ast.Call, b: ast.Call) -> str:
    if not _same(a.func, b.func):
        if isinstance(a.func, ast.Attribute) and isinstance(b.func, ast.Attribute) and a.func.attr == b.func.attr:
            return "change caller"
        return "wrong function name"
    arguments_a = [ast.dump(x) for x in a.args]
    arguments_b = [ast.dump(x) for x in b.args]
    keywords_a = {k.arg: ast.dump(k.value) for k in a.keywords}
    keywords_b = {k.arg: ast.dump(k.value) for k in b.keywords}
    if keywords_a == keywords_b:
        if sorted(arguments_a) == sorted(arguments_b):
            return "arguments swapped"
        if len(arguments_a) > len(arguments_b):
            return "argument missing"
        if len(arguments_a) < len(arguments_b):
            return "extra argument"
    elif arguments_a == arguments_b:
        if set(keywords_a) > set(keywords_b):
            return "keyword argument missing"
        if set(keywords_a) < set(keywords_b):
            return "extra keyword argument"
        return "keyword argument changed"
    return "arguments changed"


# --- measuring ---------------------------------------------------------------------------------


def _normal(source: str) -> str | None:
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return None


def measure(site: Site, mutators: Sequence[AnyMutator]) -> Result:
    result = Result(bug=site.bug, pattern=site.pattern, reproduced=False)
    try:
        made = mutants_of_source(site.fixed, file="site.py", module="site", mutators=mutators)
    except SourceError:
        return result
    target = _normal(site.buggy)
    low, high = site.changed
    for mutant in made.mutants:
        result.mutants += 1
        if mutant.span.line <= high and mutant.span.end_line >= low:
            result.at_site += 1
        if _normal(mutant.apply(site.fixed)) == target:
            result.reproduced = True
            result.operators.append(mutant.operator)
    return result


def _share(results: Sequence[Result]) -> str:
    hits = sum(r.reproduced for r in results)
    return f"{hits:4d}/{len(results):<4d} {100 * hits / max(1, len(results)):5.1f} %"


def report(results: Sequence[Result], skipped: Counter[str], total: int) -> list[str]:
    lines = [f"BugsInPy: {total} bugs; {len(results)} one-statement bugs rebuilt from their hunks; "
             + "not measured: " + ", ".join(f"{reason} {count}" for reason, count in skipped.most_common())]
    lines.append(f"reproduced exactly: {_share(results)}")
    sites = [r.at_site for r in results]
    lines.append(
        f"mutants per site (on the changed statement): mean {statistics.mean(sites):.1f}, "
        f"median {statistics.median(sites):.0f}, max {max(sites)}; per snippet: mean "
        f"{statistics.mean(r.mutants for r in results):.1f}"
    )
    by_pattern: defaultdict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_pattern[result.pattern].append(result)
    lines.append(f"{'pattern':36s} {'reproduced':>17s}  per site  by")
    for pattern, group in sorted(by_pattern.items(), key=lambda item: (-len(item[1]), item[0])):
        operators = Counter(op for r in group for op in dict.fromkeys(r.operators))
        lines.append(
            f"{pattern:36s} {_share(group)}  {statistics.mean(r.at_site for r in group):8.1f}  "
            + ", ".join(f"{op} {n}" for op, n in operators.most_common(3))
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugsinpy", type=Path, default=None,
                        help=f"a BugsInPy checkout or git directory (default: clone into {default_location()})")
    parser.add_argument("--family", action="append", default=[], help="only these families (repeatable)")
    parser.add_argument("--show", choices=("reproduced", "missed"), help="print each such bug's fix")
    parser.add_argument("--pattern", help="with --show: only bugs of this pattern")
    parser.add_argument("--json", type=Path, help="also write every bug's result to this file")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", SyntaxWarning)  # `x is not 1` in the projects' own code
    bugs = load_bugs(args.bugsinpy or default_location())
    mutators = select(families=args.family)
    sites, skipped = [], Counter[str]()
    for bug in bugs:
        site = one_statement_site(bug)
        if isinstance(site, str):
            skipped[site] += 1
        else:
            sites.append(site)
    results = [measure(site, mutators) for site in sites]
    for site, result in zip(sites, results):
        if args.show and result.reproduced == (args.show == "reproduced") and (
            not args.pattern or args.pattern == site.pattern
        ):
            print(f"== {site.bug} {site.file} [{site.pattern}] {' '.join(result.operators)}")
            print("-- fixed\n" + site.fixed + "-- buggy\n" + site.buggy)
    print("\n".join(report(results, skipped, len(bugs))))
    import reorders  # imported here: it reads this module's helpers

    print("\n".join(reorders.report(reorders.order_fixes(bugs, mutators))))
    import twin_fixes  # likewise

    print("\n".join(twin_fixes.report(twin_fixes.twin_fixes(bugs, mutators, sites, results))))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) | {"file": s.file} for s, r in zip(sites, results)], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
