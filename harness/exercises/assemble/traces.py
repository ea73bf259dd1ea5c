"""Edits a person would not write: mutants that leave a machine's trace in a handout.

A mutation-testing run wants every mutant; an exercise wants a bug that looks written. These
kinds of edit read as generated once the handout is open, and a candidate who spots the trace
has found the bug without debugging:

- a statement deleted where the block needed one, so a lone `pass` stands in its place
  (`if array.ndim == 2: pass`, or a loop whose guard was removed: `for c in cols: pass`);
- a returned value replaced by a bare `return None`, a computed check by a constant
  `return True` / `return False` (a predicate that ignores its inputs), or a guard's
  `return False` by `return True`: each turns a check into a no-op nobody types on purpose;
- a peek left dangling before a pop: `entry = queue[0]` followed at once by a bare
  `queue.popleft()` (someone writing that order types `entry = queue.popleft()`), which a
  check moved after the removal leaves behind;
- one of two twins given a form nothing near explains (`(n_left >= k) & (n_right >= k)`
  becoming `(n_left != k) & (n_right >= k)` in a function with no `!=`): a person editing one
  of two parallel lines leaves the twin in its old form and gives the edited one a form the
  code already has (its twin's name or operator, a constant of the other branch) or one
  off-by-one edit away (`>=` for `>`, a `+ 1` left out), and those slips are kept; an
  operator, name or literal that neither the twin nor the code around it uses is a
  generator's trace (`bugsmith.mutators.analysis.slips` draws the line);
- two operands made one: `self._waiting or self._waiting` (from `self._waiting or self._running`),
  `lo < lo`, `x - x`, `min(x, x)`, `a if c else a`, where the original had two different
  expressions: nobody writes an operation whose sides are the same code, and a reader spots
  it at once.

The rules read the original file and the mutant's span; they never run code.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator, Mapping

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from bugsmith.mutators.analysis.slips import unexplained
from bugsmith.mutators.analysis.twins import all_twins
from bugsmith.mutators.mutant import Mutant, line_starts

# How an operator is spelled in a reason. `x * x` and `a @ a` are not here: a square is written so.
_SYMBOLS: dict[type[ast.AST], str] = {
    ast.And: "and", ast.Or: "or", ast.Add: "+", ast.Sub: "-", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
    ast.BitAnd: "&", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_CONSTANT_CHECKS = ("return True", "return False")


def machine_trace(mutant: Mutant, source: str) -> str | None:
    """Why `mutant`'s edit reads as generated in `source` (its original file), or None."""
    before, after = _edited_lines(mutant, source)
    if (after == "pass" or mutant.mutated.strip() == "pass") and before != "pass":
        return "a statement deleted leaves a lone `pass`"
    if after == "return None" and before != "return None":
        return "a returned value replaced by a bare `return None`"
    if after in _CONSTANT_CHECKS and before.startswith("return ") and before not in _CONSTANT_CHECKS:
        return "a computed check replaced by a constant"
    if before == "return False" and after == "return True" and _in_a_guard(source, mutant.span.line - 1):
        return "a guard's `return False` turned into `return True`"
    brought = _brought_into_a_twin(mutant, source)
    if brought is not None:
        return f"one of two twins given `{brought}`, which nothing near it uses"
    twins = _twinned_operands(mutant, source)
    if twins is not None:
        return twins
    if ".pop" in _around_the_edit(mutant, source) \
            and _dangling_peeks(_mutated_source(mutant, source)) > _dangling_peeks(source):
        return "a peek left dangling before a pop"
    return None


def _mutated_source(mutant: Mutant, source: str) -> str:
    start, end = mutant.span.offsets(source)
    return source[:start] + mutant.mutated + source[end:]


def _around_the_edit(mutant: Mutant, source: str) -> str:
    """The edited lines, before and after the edit, with the nearest code line on either side:
    a peek and a pop the edit leaves side by side are among them (one was edited, or the edit
    stood between them), so where they hold no `.pop` the whole-file parse is skipped."""
    start, end = mutant.span.offsets(source)
    lines = source.splitlines()
    first, last = source.count("\n", 0, start), source.count("\n", 0, end)
    code = [i for i, line in enumerate(lines) if line.strip() and not line.strip().startswith("#")]
    before = max((i for i in code if i < first), default=first)
    after = min((i for i in code if i > last), default=last)
    return "\n".join([*lines[before:after + 1], mutant.mutated])


@functools.lru_cache(maxsize=16)
def _dangling_peeks(source: str) -> int:
    """How many statements `x = r[0]` (or `r[-1]`) are followed at once by a bare `r.popleft()`
    (or `r.pop()`, `r.pop(0)`) on the same `r`."""
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return 0
    code = module.code_for_node
    found = 0
    for body in _bodies(module):
        for first, second in zip(body, body[1:]):
            peeked, popped = _peeked(first), _popped(second)
            if peeked is not None and popped is not None and code(peeked) == code(popped):
                found += 1
    return found


def _bodies(module: cst.Module) -> list[list[cst.BaseStatement]]:
    """Every statement block of `module`, as lists of simple statement lines' first statements."""
    blocks: list[list[cst.BaseStatement]] = []

    class Blocks(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            blocks.append(list(node.body))

        def visit_Module(self, node: cst.Module) -> None:
            blocks.append(list(node.body))

    module.visit(Blocks())
    return blocks


def _only(statement: cst.BaseStatement) -> cst.BaseSmallStatement | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def _peeked(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """`r` of `x = r[0]` or `x = r[-1]`."""
    small = _only(statement)
    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Subscript) \
            and len(small.value.slice) == 1:
        index = small.value.slice[0].slice
        text = cst.Module([]).code_for_node(index).strip() if isinstance(index, cst.Index) else ""
        if text in ("0", "-1"):
            return small.value.value
    return None


def _popped(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """`r` of a bare `r.popleft()`, `r.pop()` or `r.pop(0)`."""
    small = _only(statement)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
            and isinstance(small.value.func, cst.Attribute) \
            and small.value.func.attr.value in ("pop", "popleft") and len(small.value.args) <= 1:
        return small.value.func.value
    return None


def _edited_lines(mutant: Mutant, source: str) -> tuple[str, str]:
    """The whole lines the edit touches, before and after it, stripped."""
    start, end = mutant.span.offsets(source)
    line_start = source.rfind("\n", 0, start) + 1
    tail = source.find("\n", end)
    tail = len(source) if tail == -1 else tail
    before = source[line_start:tail]
    after = source[line_start:start] + mutant.mutated + source[end:tail]
    return before.strip(), after.strip()


def _in_a_guard(source: str, index: int) -> bool:
    """The line at `index` is the first of an `if` block's body."""
    lines = source.splitlines()
    previous = next((line.strip() for line in reversed(lines[:index]) if line.strip()), "")
    return previous.startswith(("if ", "elif ")) and previous.endswith(":")


def _brought_into_a_twin(mutant: Mutant, source: str) -> str | None:
    """The token an edit inside one of two twins brings in from nowhere, or None (the edit is
    no twin's, or its twin or one off-by-one edit explains it). A domain family's edit is
    explained by the misconception it models (a rate divided by every sample, a queue fed at the
    wrong end), not by a slip of the pen, so only generic families' edits are read."""
    if mutant.family.info.domain:
        return None
    start, end = mutant.span.offsets(source)
    for (low, high), near in _twin_ranges(source):
        if low <= start and end <= high:
            before = source[low:high]
            after = source[low:start] + mutant.mutated + source[end:high]
            return unexplained(before, after, near)
    return None


@functools.lru_cache(maxsize=16)
def _twin_ranges(source: str) -> tuple[tuple[tuple[int, int], str], ...]:
    """The character range of each twin in `source` (innermost first), with the code around it:
    its class for a method, else its function, else the module."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except (cst.ParserSyntaxError, RecursionError):
        return ()
    positions = wrapper.resolve(PositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    starts = line_starts(source)
    lines = source.splitlines(keepends=True)

    def offsets(node: cst.CSTNode) -> tuple[int, int]:
        where = positions[node]
        return starts[where.start.line - 1] + where.start.column, starts[where.end.line - 1] + where.end.column

    def around(node: cst.CSTNode) -> str:
        scope = _scope(node, parents)
        if scope is None:
            return source
        where = positions[scope]
        return "".join(lines[where.start.line - 1 : where.end.line])

    ranges = [(offsets(member), around(member)) for pair in all_twins(wrapper.module)
              for member in (pair.first, pair.second)]
    return tuple(sorted(ranges, key=lambda item: item[0][1] - item[0][0]))


def _scope(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> cst.CSTNode | None:
    """The code a twin's edit may borrow from: the outermost class around `node` (a method may
    read what another method sets), else its innermost function; None at module level."""
    scope: cst.CSTNode | None = None
    current = parents.get(node)
    while current is not None:
        if isinstance(current, cst.ClassDef) or (isinstance(current, cst.FunctionDef) and scope is None):
            scope = current
        current = parents.get(current)
    return scope


# Two operands made one -----------------------------------------------------------------------

def _twinned_operands(mutant: Mutant, source: str) -> str | None:
    """Why the edit makes two operands of one operation the same code where they differed
    (both sides of an operator, two arguments of a call, the two branches of `a if c else b`),
    or None. The statement's expression is compared before and after the edit as Python's own
    syntax tree, so whitespace and parentheses do not count; twins it already had do not either,
    whatever its operator becomes (`x != x`, a NaN test, turned into `x == x`)."""
    start, end = mutant.span.offsets(source)
    root = next(((a, b) for a, b in _expression_roots(source) if a <= start and end <= b), None)
    if root is None:
        return None  # the edit is a whole statement (a deletion, a move): no operands to compare
    before = _twins(source[root[0]:root[1]])
    after = _twins(source[root[0]:start] + mutant.mutated + source[end:root[1]])
    new = Counter(key for key, _ in after) - Counter(key for key, _ in before)
    return next((reason for key, reason in after if key in new), None)


@functools.lru_cache(maxsize=16)
def _expression_roots(source: str) -> tuple[tuple[int, int], ...]:
    """The character range of every expression a statement holds directly (an assignment's
    value and targets, a condition, a call's whole expression...), whatever it nests."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    starts = line_starts(source)
    lines = source.splitlines()

    def offset(line: int, column: int) -> int:
        text = lines[line - 1]
        # ast counts columns in UTF-8 bytes, spans in characters
        return starts[line - 1] + (column if text.isascii() else len(text.encode()[:column].decode(errors="ignore")))

    return tuple((offset(e.lineno, e.col_offset), offset(e.end_lineno or e.lineno, e.end_col_offset or 0))
                 for statement in ast.walk(tree) if isinstance(statement, ast.stmt)
                 for e in _direct_expressions(statement))


def _direct_expressions(node: ast.AST) -> Iterator[ast.expr]:
    """The expressions of `node` that no other expression of it holds, its nested statements left out."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield child
        elif not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
            yield from _direct_expressions(child)  # `arguments`, `keyword`, `withitem`, `comprehension`


def _twins(code: str) -> list[tuple[tuple[str, str], str]]:
    """Every pair of identical operands in the expression `code`, as ((the kind of operation,
    the operand's tree), the reason it would give). Unparsable code has none."""
    try:
        tree = ast.parse(f"(\n{code}\n)", mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [((type(node).__name__, ast.dump(operand)), reason)
            for node in ast.walk(tree) for reason, operand in _identical_pairs(node)]


def _identical_pairs(node: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    """(reason, operand) for each pair of operands of `node` that are the same code."""
    pairs: list[tuple[ast.AST, ast.expr, ast.expr]]
    if isinstance(node, ast.BoolOp):
        pairs = [(node.op, a, b) for i, a in enumerate(node.values) for b in node.values[i + 1:]]
    elif isinstance(node, ast.BinOp) and type(node.op) in _SYMBOLS:
        pairs = [(node.op, node.left, node.right)]
    elif isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        pairs = [(op, a, b) for op, a, b in zip(node.ops, operands, operands[1:])]
    elif isinstance(node, ast.IfExp):
        if _same(node.body, node.orelse):
            yield "both branches of a conditional expression made the same", node.body
        return
    elif isinstance(node, ast.Call):
        values = _arguments(node)
        for i, left in enumerate(values):
            if any(_same(left, right) for right in values[i + 1:]):
                yield "two arguments of a call made the same expression", left
        return
    else:
        return
    for op, left, right in pairs:
        if _same(left, right):
            yield f"both sides of `{_SYMBOLS[type(op)]}` made the same expression", left


def _arguments(call: ast.Call) -> list[ast.expr]:
    """The arguments of `call` that read a value: `reshape(1, 1)` and `pad(x, 2, 2)` are written
    on purpose, and so is `np.divide(a, b, out=a)`, which works in place."""
    values = [*call.args, *(k.value for k in call.keywords if k.arg and k.arg != "out")]
    return [a for a in values if not isinstance(a, ast.Starred) and any(isinstance(n, ast.Name) for n in ast.walk(a))]


def _same(left: ast.expr, right: ast.expr) -> bool:
    return ast.dump(left) == ast.dump(right)
