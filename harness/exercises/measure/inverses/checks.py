"""Undo edits of a check loosened or tightened by one case: a type widened back, a range given its
other end back, an accepted case or a set of labels written back.

These take back `beyond/type-check`, `beyond/drop-range-end`, `beyond/drop-alternative` and
`metric/label-count-check`. Each reads the buggy program alone: the wider type is one the module
imports, the missing end of a range a bound the program compares the same value with elsewhere,
a size in scope or the `0` that starts an index; a missing case one that another check of the
module still accepts; a label set the usual `0, 1` or one the module spells out elsewhere.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.harness.exercises.measure.inverses.base import PART, TOKEN, WRITTEN, Undo, parameters, unused_names
from bugsmith.mutators.analysis.arguments import callee, positional
from bugsmith.mutators.analysis.checks import in_condition
from bugsmith.mutators.analysis.receivers import ARRAY_MODULES, imported_names
from bugsmith.mutators.base import Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.validation import TYPE_STEPS
from bugsmith.mutators.family import Family

_TYPE_TESTS = ("isinstance", "issubclass")
# Where the abstract types of beyond/type-check live, for a module that imports the module and
# not the name (`import numbers` then `numbers.Integral`).
_HOMES: dict[str, tuple[str, ...]] = {
    "Integral": ("numbers",), "Real": ("numbers",),
    "Sequence": ("collections.abc", "typing"), "Mapping": ("collections.abc", "typing"),
}


def _wider(narrow: str) -> list[str]:
    """The types beyond/type-check narrows to `narrow`, less the one it widens `narrow` to itself
    (the engine's own edit then takes the bug back)."""
    forward = TYPE_STEPS.get(narrow, ("", ""))[0]
    return [wide for wide, (other, _) in TYPE_STEPS.items() if other == narrow and wide != forward]


def _module_paths(module: cst.Module) -> dict[str, str]:
    """Each imported module's dotted path and how this module spells it: `import numbers as nb`
    gives `numbers: nb`, `from collections import abc` gives `collections.abc: abc`."""
    spelled: dict[str, str] = {}
    for found in m.findall(module, m.Import() | m.ImportFrom()):
        if isinstance(found, cst.Import):
            for alias in found.names:
                spelled[alias.evaluated_name] = alias.evaluated_alias or alias.evaluated_name
        elif isinstance(found, cst.ImportFrom) and found.module is not None and not isinstance(
                found.names, cst.ImportStar):
            path = module.code_for_node(found.module)
            for alias in found.names:
                spelled[f"{path}.{alias.evaluated_name}"] = alias.evaluated_alias or alias.evaluated_name
    return spelled


def _spellings(wide: str, ctx: Context) -> list[str]:
    """How the module can name the type `wide`: by name when it imports it, else through the
    module it comes from, when that is imported."""
    if wide in imported_names(ctx.module):
        return [wide]
    paths = _module_paths(ctx.module)
    return [f"{paths[home]}.{wide}" for home in _HOMES.get(wide, ()) if home in paths]


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else None


class TypeBack(Undo[cst.Call]):
    """A check widened back to the type it accepted: `isinstance(n, int)` -> `isinstance(n,
    Integral)` where the module imports `Integral`, `is_datetime64_dtype(s)` ->
    `is_datetime64_any_dtype(s)`: beyond/type-check's pairs, read the other way."""

    name = "undo/type-back"
    family = Family.BEYOND
    tier = TOKEN
    matcher = m.Call(func=m.Name() | m.Attribute())

    def mutate(self, node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        if not self.here(node, ctx):
            return
        name = callee(node)
        if name in _TYPE_TESTS:
            yield from self._tested(node, ctx)
        elif name is not None and not hasattr(builtins, name):  # `float(x)` converts, it tests nothing
            yield from self._predicate(node, name, ctx)

    @staticmethod
    def _tested(node: cst.Call, ctx: Context) -> Iterator[Rewrite]:
        """`int` back to `Integral` in the types an isinstance() or issubclass() accepts."""
        arg = positional(node, 1)
        if arg is None:
            return
        named = [e.value for e in arg.value.elements] if isinstance(arg.value, cst.Tuple) else [arg.value]
        listed = {_last_name(each) for each in named}
        for each in named:
            if not isinstance(each, cst.Name):
                continue
            for wide in _wider(each.value):
                if wide in listed:
                    continue  # `(int, Integral)` accepts the wider type already
                for spelling in _spellings(wide, ctx):
                    yield Rewrite(target=each, replacement=ctx.expression(spelling).with_changes(
                        lpar=each.lpar, rpar=each.rpar))

    @staticmethod
    def _predicate(node: cst.Call, name: str, ctx: Context) -> Iterator[Rewrite]:
        """A pandas predicate back to its wider sibling (one imported by name, if called by name)."""
        func = node.func
        for wide in _wider(name):
            if isinstance(func, cst.Attribute):
                yield Rewrite(target=func.attr, replacement=func.attr.with_changes(value=wide))
            elif isinstance(func, cst.Name) and wide in imported_names(ctx.module):
                yield Rewrite(target=func, replacement=func.with_changes(value=wide))


_RISING = (cst.LessThan, cst.LessThanEqual)
_ORDERING = m.LessThan() | m.LessThanEqual() | m.GreaterThan() | m.GreaterThanEqual()
_NUMBER = m.Integer() | m.Float() | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())
# The last word of a name that holds a size: `n`, `n_features`, `self._num_blocks`, `max_len`.
_SIZE_WORDS = ("n", "size", "length", "len", "count", "capacity")


def _number(code: str) -> float | None:
    """The value of a numeric literal's code; None for anything else (`inf` is a name)."""
    if not code.lstrip("-")[:1].isdigit():
        return None
    try:
        return float(code)
    except ValueError:
        return None


def _is_size(name: str) -> bool:
    word = name.lstrip("_").lower()
    return word in _SIZE_WORDS or word.startswith(("n_", "num_")) or word.endswith(
        tuple(f"_{each}" for each in _SIZE_WORDS))


def _compared(middle: str, node: cst.Comparison, ctx: Context) -> list[str]:
    """What the module's other ordering comparisons compare `middle` with. Which end each is
    depends on whether its check refuses or accepts, so either end may take it."""
    found: dict[str, None] = {}
    for comparison in m.findall(ctx.module, m.Comparison()):
        if comparison is node:
            continue
        before = cst.ensure_type(comparison, cst.Comparison).left
        for target in cst.ensure_type(comparison, cst.Comparison).comparisons:
            if m.matches(target.operator, _ORDERING):
                pair = (ctx.code(before), ctx.code(target.comparator))
                if middle in pair:
                    found[pair[1] if pair[0] == middle else pair[0]] = None
            before = target.comparator
    return list(found)


def _sizes(node: cst.CSTNode, middle: str, ctx: Context) -> list[str]:
    """What may bound `middle` from above in its function: the length of what it indexes, a size
    in scope (parameters, locals, the class's attributes), a parameter or local never read."""
    function = ctx.function(node)
    if function is None:
        return []
    found: dict[str, None] = {}
    for sub in m.findall(function, m.Subscript(slice=[m.SubscriptElement(slice=m.Index())])):
        assert isinstance(sub, cst.Subscript)
        if ctx.code(cst.ensure_type(sub.slice[0].slice, cst.Index).value) == middle:
            found[f"len({ctx.code(sub.value)})"] = None
    assigned = [cst.ensure_type(cst.ensure_type(t, cst.AssignTarget).target, cst.Name).value
                for t in m.findall(function, m.AssignTarget(target=m.Name()))]
    found.update((name, None) for name in (*parameters(function), *assigned) if _is_size(name))
    owner = next((a for a in ctx.ancestors(node) if isinstance(a, cst.ClassDef)), None)
    if owner is not None:
        for target in m.findall(owner, m.AssignTarget(target=m.Attribute(value=m.Name("self")))):
            attribute = cst.ensure_type(cst.ensure_type(target, cst.AssignTarget).target, cst.Attribute)
            if _is_size(attribute.attr.value):
                found[f"self.{attribute.attr.value}"] = None
    found.update((name, None) for name in unused_names(function))
    return list(found)


def _ends(node: cst.Comparison, middle: str, other: str, *, lower: bool, ctx: Context) -> list[tuple[str, bool]]:
    """Each end that may bound `middle` from below (`lower`) or above, `other` bounding it on the
    other side, and whether the strict operator is worth a try beside the inclusive one."""
    compared = _compared(middle, node, ctx)
    if lower:
        ends = [(end, True) for end in dict.fromkeys(["0", *compared])] + [("1", False)]  # a count starts at 1
    else:
        ends = [(end, True) for end in dict.fromkeys([*compared, *_sizes(node, middle, ctx)])]
        if _number(other) == 0:
            ends.append(("1", True))  # `0 < frac` -> `0 < frac <= 1`
    low_high = (lambda end: (_number(end), _number(other))) if lower else (lambda end: (_number(other), _number(end)))
    return [(end, strict) for end, strict in ends if end not in (middle, other) and not _empty(*low_high(end))]


def _empty(low: float | None, high: float | None) -> bool:
    """Whether two numbers as the ends of a range leave no value between them (`1 <= x < 0`)."""
    return low is not None and high is not None and low >= high


class RangeEndBack(Undo[cst.Comparison]):
    """A range check given its other end back: `0 <= i` -> `0 <= i < n`, `i < n` -> `0 <= i < n`
    (beyond/drop-range-end). The lower end is the `0` of an index (or the `1` of a count) or a
    value the module compares the same value with elsewhere; the upper one such a value, a size in
    scope or, above a lower `0`, the `1` of a fraction."""

    name = "undo/range-end-back"
    family = Family.BEYOND
    tier = PART
    matcher = m.Comparison(comparisons=[m.ComparisonTarget(operator=_ORDERING)])

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[cst.Comparison]:
        if not self.here(node, ctx) or not in_condition(node, ctx):
            return
        kept = node.comparisons[0]
        rising = isinstance(kept.operator, _RISING)
        # the new end joins the chain the way the kept comparison runs
        inclusive, strict = (cst.LessThanEqual, cst.LessThan) if rising else (cst.GreaterThanEqual, cst.GreaterThan)
        left, right = ctx.code(node.left), ctx.code(kept.comparator)
        # an end written before the left value is its lower one in `lo <= x < hi`, its upper one in `hi > x >= lo`
        if not m.matches(node.left, _NUMBER):
            for end, strict_too in _ends(node, left, right, lower=rising, ctx=ctx):
                for operator in (inclusive, strict) if strict_too else (inclusive,):
                    target = cst.ComparisonTarget(operator=operator(), comparator=node.left)
                    yield node.with_changes(left=ctx.expression(end), comparisons=[target, kept])
        if not m.matches(kept.comparator, _NUMBER):
            for end, strict_too in _ends(node, right, left, lower=not rising, ctx=ctx):
                for operator in (inclusive, strict) if strict_too else (inclusive,):
                    target = cst.ComparisonTarget(operator=operator(), comparator=ctx.expression(end))
                    yield node.with_changes(comparisons=[kept, target])


_TESTING_CALL = m.Call(func=m.Name("isinstance") | m.Name("issubclass")
                       | m.Attribute(attr=m.Name("startswith") | m.Name("endswith")))
_MEMBERSHIP = m.ComparisonTarget(operator=m.In() | m.NotIn(), comparator=m.Tuple() | m.List() | m.Set())
_DISPLAYS = (cst.Tuple, cst.List, cst.Set)


def _kind(node: cst.CSTNode) -> str:
    """Which cases a test lists: types (isinstance and issubclass alike), prefixes, suffixes, values."""
    if isinstance(node, cst.Call):
        name = callee(node) or ""
        return "isinstance" if name in _TYPE_TESTS else name
    return "in"


def _cases(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The value that names the cases a test accepts: one type or affix or a tuple of them, or
    the display a value is looked up in."""
    if isinstance(node, cst.ComparisonTarget):
        return node.comparator
    if not isinstance(node, cst.Call):
        return None
    type_test = _kind(node) == "isinstance"
    arg = positional(node, 1 if type_test else 0)
    return arg.value if arg is not None and len(node.args) == (2 if type_test else 1) else None


def _named(value: cst.BaseExpression, ctx: Context) -> list[str] | None:
    """The code of each case `value` names; None when a starred element hides some."""
    if not isinstance(value, _DISPLAYS):
        return [ctx.code(value)]
    if any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    return [ctx.code(e.value) for e in value.elements]


class AlternativeBack(Undo[cst.Call | cst.ComparisonTarget]):
    """An accepted case put back that another test of the same kind in the module still names:
    `isinstance(items, int)` -> `isinstance(items, (int, str))` beside an `isinstance(w, str)`,
    `s in (DONE, FAILED)` -> `(DONE, FAILED, UNKNOWN)` beside a `(DONE, UNKNOWN)`
    (beyond/drop-alternative). A case named nowhere else was lost with the edit."""

    name = "undo/alternative-back"
    family = Family.BEYOND
    tier = PART
    matcher = _TESTING_CALL | _MEMBERSHIP

    def mutate(self, node: cst.Call | cst.ComparisonTarget, ctx: Context) -> Iterator[Rewrite]:
        value = _cases(node)
        held = None if value is None or not self.here(node, ctx) else _named(value, ctx)
        if value is None or held is None:
            return
        added: dict[str, None] = {}
        for other in m.findall(ctx.module, _TESTING_CALL | _MEMBERSHIP):
            found = _cases(other)
            named = None if other is node or _kind(other) != _kind(node) or found is None else _named(found, ctx)
            # values looked up in a display are one input's cases only where two displays share one
            if named is not None and (isinstance(node, cst.Call) or set(named) & set(held)):
                added.update((code, None) for code in named if code not in held)
        brackets = {cst.List: "[]", cst.Set: "{}"}.get(type(value), "()")
        for code in added:
            listed = ", ".join([*held, code])
            yield Rewrite(target=value, replacement=ctx.expression(f"{brackets[0]}{listed}{brackets[1]}"))


_NUMPY = m.Name(m.MatchIfTrue(ARRAY_MODULES.__contains__))
_UNIQUE = m.Call(func=m.Attribute(value=_NUMPY, attr=m.Name("unique")), args=[m.Arg(keyword=None)])
_SET_OF = m.Call(func=m.Name("set") | m.Name("frozenset"), args=[m.Arg(keyword=None)])
_CONSTANT = (m.Integer() | m.Float() | m.SimpleString() | m.Name("True") | m.Name("False")
             | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float()))


def _label_sets(count: int, ctx: Context) -> list[str]:
    """The labels a check of `count` of them may have named: `0, 1, ...`, and every tuple, list or
    set of `count` constants the module spells out."""
    found = {", ".join(str(i) for i in range(count)): None}
    for display in m.findall(ctx.module, m.Tuple() | m.List() | m.Set()):
        elements = getattr(display, "elements", ())
        if len(elements) == count and all(m.matches(e.value, _CONSTANT) for e in elements):
            found[", ".join(ctx.code(e.value) for e in elements)] = None
    return list(found)


class LabelSetBack(Undo[cst.Comparison]):
    """A label count back to a label set: `len(np.unique(y)) <= 2` -> `set(np.unique(y)) <= {0, 1}`
    or `np.isin(y, [0, 1]).all()`, `len(np.unique(y)) == 2` -> `np.array_equal(np.unique(y), [0, 1])`
    (metric/label-count-check)."""

    name = "undo/label-set-back"
    family = Family.METRIC
    tier = WRITTEN
    matcher = m.Comparison(left=m.Call(func=m.Name("len"), args=[m.Arg(keyword=None)]), comparisons=[
        m.ComparisonTarget(operator=m.LessThanEqual() | m.Equal(), comparator=m.Integer())])

    def mutate(self, node: cst.Comparison, ctx: Context) -> Iterator[cst.BaseExpression]:
        if not self.here(node, ctx):
            return
        count = int(cst.ensure_type(node.comparisons[0].comparator, cst.Integer).evaluated_value)
        counted = cst.ensure_type(node.left, cst.Call).args[0].value
        within = isinstance(node.comparisons[0].operator, cst.LessThanEqual)
        if count < 2 or not m.matches(counted, _UNIQUE | _SET_OF):
            return
        for labels in _label_sets(count, ctx):
            for form in _set_checks(counted, labels, within=within, ctx=ctx):
                yield ctx.expression(form).with_changes(lpar=node.lpar, rpar=node.rpar)


def _set_checks(counted: cst.BaseExpression, labels: str, *, within: bool, ctx: Context) -> list[str]:
    """The label checks that label-count-check turns into a count of `counted`: a subset of (or,
    not `within`, equal to) the labels."""
    distinct = ctx.code(counted)
    if m.matches(counted, _SET_OF):
        return [f"{distinct} <= {{{labels}}}", f"{distinct}.issubset({{{labels}}})"] if within else [
            f"{distinct} == {{{labels}}}"]
    unique = cst.ensure_type(counted, cst.Call)
    numpy, values = ctx.code(cst.ensure_type(unique.func, cst.Attribute).value), ctx.code(unique.args[0].value)
    if not within:
        return [f"set({distinct}) == {{{labels}}}", f"{numpy}.array_equal({distinct}, [{labels}])",
                f"{numpy}.array_equal({distinct}, ({labels}))"]
    return [f"set({distinct}) <= {{{labels}}}", f"set({distinct}).issubset({{{labels}}})",
            *(f"{numpy}.isin({values}, {d}).all()" for d in (f"[{labels}]", f"({labels})")),
            *(f"{numpy}.all({numpy}.isin({values}, {d}))" for d in (f"[{labels}]", f"({labels})"))]
