"""Behaviour-preserving rewrites of one source file, each a small libcst transformer.

A handout is a seeded *variant* of the problem's code (harness.exercises.assemble.variants), so that a
diff against the public reference, or against another candidate's handout, shows many
changes and not the bug line alone. Every rewrite here is one that keeps the behaviour for
all inputs and types, and each proposes nothing where it cannot tell:

- `RenameLocals`: a function's local variables (never a parameter, a module or class name, an
  attribute, or a name a nested `global`/`nonlocal`, `locals()`, `eval` could see) get
  another plausible name, consistently, through libcst's scope analysis.
- `ReorderFunctions`: runs of adjacent undecorated `def`s (module level or in a class body)
  are shuffled; a `def` only binds its name, so the order is invisible unless a default or
  an annotation reads another function of the run (then the run is left alone).
- `FlipIfElse`: `if not c: A else: B` becomes `if c: B else: A`, and back when `c` is a plain
  read or call (never a comparison: `not a < b` reads as generated, and `a >= b` is not its equal
  for NaN).
- `FlipComparison`: `a < b` becomes `b > a` when both sides are plain reads (no call, so the
  order of evaluation cannot matter).
- `SwapAssignments`: two adjacent `name = expr` statements swap when neither reads or writes
  what the other writes and neither calls anything.

Decisions are drawn per site from a hash of the seed and a key made of the enclosing
function's qualified name and a site ordinal, never from a running random stream, so that the
same seed rewrites a file and the file with one bug in it the same way everywhere else.
"""

from __future__ import annotations

import hashlib
import keyword
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import Access, Assignment, FunctionScope, MetadataWrapper, ScopeProvider

# Names that would make a handout read as generated, or trip the pack's leak check.
_AVOID = frozenset({"mutant", "mutation", "operator", "hint", "hidden", "solution", "family", "bug"})
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "i": ("idx", "k", "pos"), "j": ("jdx", "other"), "k": ("idx", "key"), "n": ("count", "size", "num"),
    "x": ("value", "val"), "y": ("target", "out"), "result": ("out", "res", "answer"),
    "values": ("vals", "items"), "value": ("val", "item"), "array": ("arr", "data"),
    "weights": ("w", "wts", "weight_arr"), "scores": ("s", "score_arr", "ranked"),
    "labels": ("y", "classes", "label_arr"), "order": ("perm", "idx", "ranking"),
    "keep": ("mask", "kept", "selected"), "positive": ("is_pos", "pos", "pos_mask"),
    "last": ("ends", "run_ends", "final"), "total": ("acc", "running", "sum_"),
    "count": ("cnt", "num", "tally"), "start": ("begin", "lo", "first"), "end": ("stop", "hi", "until"),
    "left": ("lhs", "lo_part"), "right": ("rhs", "hi_part"), "request": ("req", "item"),
    "requests": ("reqs", "items"), "window": ("win", "span"), "frame": ("df", "table"),
    "series": ("col", "column"), "rows": ("records", "entries"), "row": ("record", "entry"),
    "mask": ("selected", "flags"), "index": ("idx", "where"), "key": ("k", "name_key"),
    "step": ("tick", "stride"), "score": ("s", "val"), "tree": ("estimator", "model"),
    "node": ("cur", "vertex"), "feature": ("col", "feat"), "threshold": ("cut", "split_at"),
    "tokens": ("toks", "tok_count"), "budget": ("room", "allowance"), "queue": ("pending", "waiting"),
}
_SUFFIXES = ("_", "_val", "_arr")
_PREFIXES = ("the_", "cur_", "my_")


@dataclass(frozen=True, slots=True)
class Seeded:
    """Decisions from a seed and a site key: the same key always gets the same answer."""

    seed: str

    def _rng(self, key: str) -> random.Random:
        return random.Random(hashlib.sha256(f"{self.seed}\0{key}".encode()).hexdigest())

    def chance(self, key: str, probability: float = 0.5) -> bool:
        return self._rng(key).random() < probability

    def choice(self, key: str, options: Sequence[str]) -> str:
        return self._rng(key).choice(list(options))

    def permutation(self, key: str, size: int) -> list[int]:
        order = list(range(size))
        self._rng(key).shuffle(order)
        return order


def _qualnames(module: cst.Module) -> dict[cst.CSTNode, str]:
    """The qualified name of every function and class definition (as in `co_qualname`)."""
    names: dict[cst.CSTNode, str] = {}

    class Walk(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[str] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.stack.append(node.name.value)
            names[node] = ".".join(self.stack)
            self.stack.append("<locals>")

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            del self.stack[-2:]

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.stack.append(node.name.value)
            names[node] = ".".join(self.stack)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.stack.pop()

    module.visit(Walk())
    return names


def _all_names(module: cst.Module) -> set[str]:
    """Every identifier the module spells, so that a new name never meets an old one."""
    found: set[str] = set()

    class Walk(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    module.visit(Walk())
    return found


_DYNAMIC = frozenset({"locals", "vars", "eval", "exec", "globals"})


class RenameLocals(cst.CSTTransformer):
    """Local variables of each function renamed consistently (libcst scope analysis)."""

    def __init__(self, seeded: Seeded, wrapper: MetadataWrapper, probability: float = 0.8,
                 keep: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.keep = keep
        module = wrapper.module
        self.renames: dict[cst.Name, str] = {}
        self.words: dict[cst.FunctionDef, dict[str, str]] = {}
        taken = _all_names(module)
        source = module.code
        if taken & _DYNAMIC or re.search(r"\b(global|nonlocal)\b", source) or re.search(r"\{[^{}]*=\}", source):
            return  # a name could be read by its spelling
        qualnames = _qualnames(module)
        scopes = {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}
        accesses: list[Access] = [a for s in scopes for name in s.accesses._accesses for a in s.accesses[name]]
        for scope in sorted((s for s in scopes if isinstance(s, FunctionScope)
                             and isinstance(s.node, cst.FunctionDef)), key=lambda s: qualnames[s.node]):
            self._rename_scope(scope, qualnames[scope.node], accesses, taken, seeded, probability)

    def _rename_scope(self, scope: FunctionScope, qualname: str, accesses: list[Access], taken: set[str],
                      seeded: Seeded, probability: float) -> None:
        node = scope.node
        assert isinstance(node, cst.FunctionDef)
        params = {p.name.value for p in (*node.params.params, *node.params.posonly_params,
                                         *node.params.kwonly_params)}
        params |= {p.name.value for p in (node.params.star_arg, node.params.star_kwarg) if isinstance(p, cst.Param)}
        by_name: dict[str, list[Assignment]] = {}
        for assignment in scope.assignments:
            if isinstance(assignment, Assignment) and assignment.scope is scope:
                by_name.setdefault(assignment.name, []).append(assignment)
        words: dict[str, str] = {}
        for name in sorted(by_name):
            owned = by_name[name]
            if name in params or name in self.keep or name.startswith("_") \
                    or not all(isinstance(a.node, cst.Name) for a in owned):
                continue  # parameters can be passed by keyword; defs, imports, classes keep their names
            if not seeded.chance(f"rename:{qualname}:{name}", probability):
                continue
            uses = [a for a in accesses if any(r in owned for r in a.referents)]
            if any(not isinstance(a.node, cst.Name) or any(r not in owned for r in a.referents) for a in uses):
                continue  # read through a string annotation, or also bound elsewhere
            new = self._new_name(seeded, qualname, name, taken)
            if new is None:
                continue
            taken.add(new)
            words[name] = new
            for assignment in owned:
                assert isinstance(assignment.node, cst.Name)
                self.renames[assignment.node] = new
            for access in uses:
                assert isinstance(access.node, cst.Name)
                self.renames[access.node] = new
        if words:
            self.words[node] = words

    @staticmethod
    def _new_name(seeded: Seeded, qualname: str, name: str, taken: set[str]) -> str | None:
        options = list(_SYNONYMS.get(name, ()))
        options += [name + s for s in _SUFFIXES if not name.endswith("_")] + [p + name.lstrip("_") for p in _PREFIXES]
        free = [o for o in options if o not in taken and not keyword.iskeyword(o) and o.isidentifier()
                and not any(word in o for word in _AVOID)]
        return seeded.choice(f"name:{qualname}:{name}", free) if free else None

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.renames.get(original_node)
        return updated_node.with_changes(value=new) if new else updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        """Comments and the docstring that quote a renamed local (`name`) follow it."""
        words = self.words.get(original_node)
        if not words or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        pattern = re.compile(r"`(" + "|".join(map(re.escape, sorted(words))) + r")`")

        def quoted(text: str) -> str:
            return pattern.sub(lambda hit: f"`{words[hit.group(1)]}`", text)

        class Quotes(cst.CSTTransformer):
            def leave_Comment(self, original_node: cst.Comment, updated_node: cst.Comment) -> cst.Comment:
                return updated_node.with_changes(value=quoted(updated_node.value))

        body = updated_node.body.visit(Quotes())
        assert isinstance(body, cst.IndentedBlock)
        statements = list(body.body)
        # The docstring too (other strings are behaviour, never touched).
        if statements and m.matches(statements[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
            first = statements[0]
            assert isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Expr)
            doc = first.body[0].value
            assert isinstance(doc, cst.SimpleString)
            statements[0] = first.with_changes(body=[first.body[0].with_changes(
                value=doc.with_changes(value=quoted(doc.value)))])
        return updated_node.with_changes(body=body.with_changes(body=statements))


class _Sited(cst.CSTTransformer):
    """A transformer that keys its decisions by the enclosing qualified name and an ordinal."""

    def __init__(self, seeded: Seeded) -> None:
        super().__init__()
        self.seeded = seeded
        self.stack: list[str] = []
        self.ordinal: dict[str, int] = {}

    @property
    def where(self) -> str:
        return ".".join(self.stack)

    def next_site(self) -> str:
        where = self.where
        self.ordinal[where] = self.ordinal.get(where, 0) + 1
        return f"{where}:{self.ordinal[where]}"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack += [node.name.value, "<locals>"]

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        del self.stack[-2:]
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.stack.pop()
        return updated_node


def _reads(node: cst.CSTNode) -> set[str]:
    return {n.value for n in m.findall(node, m.Name()) if isinstance(n, cst.Name)}


def _calls_anything(node: cst.CSTNode) -> bool:
    return bool(m.findall(node, m.Call() | m.Await() | m.Yield() | m.NamedExpr() | m.Lambda()
                          | m.ListComp() | m.SetComp() | m.DictComp() | m.GeneratorExp()))


class ReorderFunctions(_Sited):
    """Runs of adjacent undecorated `def`s shuffled, at module level and in class bodies."""

    def _reordered(self, body: Sequence[cst.BaseStatement], where: str) -> list[cst.BaseStatement]:
        statements = list(body)
        runs: list[list[int]] = [[]]
        for i, statement in enumerate(statements):
            movable = isinstance(statement, cst.FunctionDef) and not statement.decorators
            if movable:
                runs[-1].append(i)
            elif runs[-1]:
                runs.append([])
        for number, run in enumerate(r for r in runs if len(r) > 1):
            defs = [d for d in (statements[i] for i in run) if isinstance(d, cst.FunctionDef)]
            names = [d.name.value for d in defs]
            header_reads = set().union(*(_reads(d.params) | _reads(d.returns or cst.Name("None")) for d in defs))
            if len(set(names)) < len(names) or header_reads & set(names):
                continue
            order = self.seeded.permutation(f"reorder:{where}:{number}:{','.join(names)}", len(run))
            for slot, place, pick in zip(run, defs, order):
                moved = defs[pick]
                # The blank lines before a def belong to its place, not to the def.
                statements[slot] = moved.with_changes(leading_lines=_blank_then_comments(place.leading_lines, moved))
        return statements

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._reordered(updated_node.body, ""))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        if not isinstance(updated_node.body, cst.IndentedBlock):
            self.stack.pop()
            return updated_node
        body = self._reordered(updated_node.body.body, self.where)
        self.stack.pop()
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))


def _blank_then_comments(place: Sequence[cst.EmptyLine], moved: cst.FunctionDef) -> list[cst.EmptyLine]:
    """The place's blank lines, then the comments that sat right above the moved def."""
    blanks = [line for line in place if line.comment is None]
    comments = [line for line in moved.leading_lines if line.comment is not None]
    return blanks + comments


class FlipIfElse(_Sited):
    """`if c: A else: B` ↔ `if not c: B else: A` (never an `elif` chain)."""


    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        site = self.next_site()
        orelse = updated_node.orelse
        if not isinstance(orelse, cst.Else) or not isinstance(updated_node.body, cst.IndentedBlock) \
                or not isinstance(orelse.body, cst.IndentedBlock):
            return updated_node
        if _has_comments(updated_node):  # a comment on the `else` line would land on the wrong branch
            return updated_node
        if not self.seeded.chance(f"if:{site}"):
            return updated_node
        test = updated_node.test
        # Only where a person would write either form: `not x` loses its `not`, a plain read
        # gains one. `not a >= b` reads as generated, and `a < b` is not its equal for NaN.
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
            flipped: cst.BaseExpression = test.expression
        elif isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            flipped = cst.UnaryOperation(operator=cst.Not(), expression=test)
        else:
            return updated_node
        return updated_node.with_changes(test=flipped, body=orelse.body.with_changes(header=updated_node.body.header),
                                         orelse=orelse.with_changes(body=updated_node.body.with_changes(
                                             header=orelse.body.header)))


def _has_comments(node: cst.If) -> bool:
    orelse = node.orelse
    assert isinstance(orelse, cst.Else) and isinstance(node.body, cst.IndentedBlock)
    assert isinstance(orelse.body, cst.IndentedBlock)
    return (orelse.leading_lines and any(line.comment for line in orelse.leading_lines)) \
        or node.body.header.comment is not None or orelse.body.header.comment is not None \
        or bool(orelse.whitespace_before_colon.value)


_MIRROR: dict[str, type[cst.LessThan | cst.GreaterThan | cst.LessThanEqual | cst.GreaterThanEqual]] = {
    ">": cst.LessThan, "<": cst.GreaterThan, ">=": cst.LessThanEqual, "<=": cst.GreaterThanEqual}


class FlipComparison(_Sited):
    """`a < b` ↔ `b > a` (and `<=`/`>=`) for one comparison of two plain reads."""


    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.BaseExpression:
        site = self.next_site()
        if len(updated_node.comparisons) != 1:
            return updated_node
        target = updated_node.comparisons[0]
        spelled = cst.Module([]).code_for_node(target.operator).strip()
        if spelled not in _MIRROR or _calls_anything(updated_node.left) or _calls_anything(target.comparator):
            return updated_node
        if not self.seeded.chance(f"cmp:{site}"):
            return updated_node
        old = target.operator
        assert isinstance(old, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual))
        operator = _MIRROR[spelled](whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after)
        return updated_node.with_changes(
            left=target.comparator,
            comparisons=[target.with_changes(operator=operator, comparator=updated_node.left)])


class SwapAssignments(_Sited):
    """Two adjacent `a = e1` / `b = e2` swap when they share nothing and call nothing."""


    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = list(updated_node.body)
        i = 0
        while i + 1 < len(body):
            site = self.next_site()
            first, second = _simple_assignment(body[i]), _simple_assignment(body[i + 1])
            a, b = body[i], body[i + 1]
            if first and second and _independent(first, second) and self.seeded.chance(f"swap:{site}") \
                    and isinstance(a, cst.SimpleStatementLine) and isinstance(b, cst.SimpleStatementLine) \
                    and not any(line.comment for line in (*a.leading_lines, *b.leading_lines)):
                body[i] = b.with_changes(leading_lines=a.leading_lines)
                body[i + 1] = a.with_changes(leading_lines=b.leading_lines)
                i += 2
            else:
                i += 1
        return updated_node.with_changes(body=body)


def _simple_assignment(statement: cst.BaseStatement) -> tuple[str, set[str]] | None:
    """(target, names read) of `name = expr` with no call in `expr`, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if statement.trailing_whitespace.comment is not None:
        return None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return None
    if _calls_anything(assign.value):
        return None
    return assign.targets[0].target.value, _reads(assign.value)


def _independent(first: tuple[str, set[str]], second: tuple[str, set[str]]) -> bool:
    (a, a_reads), (b, b_reads) = first, second
    return a != b and a not in b_reads and b not in a_reads


REWRITES = ("rename", "reorder", "if", "cmp", "swap")


def rewrite(source: str, seed: str, *, only: Sequence[str] = REWRITES,
            frozen: frozenset[str] = frozenset(), kept: frozenset[str] = frozenset()) -> str:
    """`source` rewritten by the rewrites named in `only`, decided by `seed`.

    `frozen` names functions (qualified names) whose statements keep their order and spelling
    (renaming still applies): a bug's function, where a site-level rewrite could shift the
    ordinals that decide the rest of that function. `kept` names locals never renamed: those a
    bug's operator reads (`tps` against `fps`), which must still find its site.
    """
    module = cst.parse_module(source)
    seeded = Seeded(seed)
    if "swap" in only:
        module = module.visit(_Frozen(SwapAssignments(seeded), frozen))
    if "if" in only:
        module = module.visit(_Frozen(FlipIfElse(seeded), frozen))
    if "cmp" in only:
        module = module.visit(_Frozen(FlipComparison(seeded), frozen))
    if "rename" in only:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        module = wrapper.module.visit(RenameLocals(seeded, wrapper, keep=kept))
    if "reorder" in only:
        module = module.visit(ReorderFunctions(seeded))
    return module.code


class _Frozen(cst.CSTTransformer):
    """Runs `inner` everywhere except inside the functions named in `frozen`."""

    def __init__(self, inner: cst.CSTTransformer, frozen: frozenset[str]) -> None:
        super().__init__()
        self.inner = inner
        self.frozen = frozen

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False  # the module is handed whole to `leave_Module`

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        assert isinstance(updated_node, cst.Module)
        if not self.frozen:
            return updated_node.visit(self.inner)
        qualnames = _qualnames(updated_node)
        kept = {node: node for node, name in qualnames.items() if name in self.frozen}
        placeholders = _Swap(kept)
        hollow = updated_node.visit(placeholders)
        rewritten = hollow.visit(self.inner)
        return rewritten.visit(_Restore(placeholders.saved))


class _Swap(cst.CSTTransformer):
    """Frozen functions' bodies replaced by a marker body, saved to be put back."""

    def __init__(self, frozen: dict[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.frozen = frozen
        self.saved: dict[str, cst.BaseSuite] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node not in self.frozen

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node not in self.frozen:
            return updated_node
        marker = f"_frozen_body_{len(self.saved)}"
        self.saved[marker] = updated_node.body
        return updated_node.with_changes(body=cst.IndentedBlock(body=[cst.SimpleStatementLine(
            body=[cst.Expr(cst.Name(marker))])]))


class _Restore(cst.CSTTransformer):
    def __init__(self, saved: dict[str, cst.BaseSuite]) -> None:
        super().__init__()
        self.saved = saved

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        body = updated_node.body
        if isinstance(body, cst.IndentedBlock) and len(body.body) == 1 \
                and m.matches(body.body[0], m.SimpleStatementLine(body=[m.Expr(m.Name())])):
            statement = body.body[0]
            assert isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Expr)
            name = statement.body[0].value
            assert isinstance(name, cst.Name)
            if name.value in self.saved:
                return updated_node.with_changes(body=self.saved[name.value])
        return updated_node
