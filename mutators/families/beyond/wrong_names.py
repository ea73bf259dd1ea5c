"""Beyond-classic bugs of a wrong name: a variable or attribute read in place of its neighbour.

Half of the one-line bugs in ManySStuBs4J and BugsInPy are of this kind (`fps` for `tps`,
`self._waiting` for `self._running`), and mutmut and cosmic-ray make none of them. The risk is
absurd mutants, so candidates are few and chosen with care: locals of the same function bound
before the site (libcst scopes), never builtins, modules, functions or the statement's own
target; holding no other kind of value (`kinds`) and used the same way as the original
(the same attribute read on both, or both subscripted); at most two per site: names similar
to the original (`fps` for `tps`, `hi` for `lo`), failing those the nearest binding known to
hold the same kind of value.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m
from libcst.metadata.scope_provider import (
    Assignment,
    ComprehensionScope,
    FunctionScope,
    ImportAssignment,
    Scope,
)

from bugsmith.mutators.analysis.nodes import find_all
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.families.beyond.kinds import similarity
from bugsmith.mutators.families.beyond.usage import Usage, UsageCache
from bugsmith.mutators.family import Family

_MAX_CANDIDATES = 2
_MIN_SIMILARITY = 0.6
_NOT_DATA_BINDINGS = (cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom, cst.ImportAlias, cst.Lambda)


def _names_in(node: cst.CSTNode | None) -> set[str]:
    if node is None:
        return set()
    return {name.value for name in find_all(node, cst.Name, m.Name())}


def statement_targets(site: cst.CSTNode, ctx: Context) -> set[str]:
    """The names that the statement holding `site` (its header, for a compound one) assigns,
    and the targets of the walrus expressions around it."""
    names: set[str] = set()
    for ancestor in ctx.ancestors(site):
        if isinstance(ancestor, cst.NamedExpr):
            names |= _names_in(ancestor.target)
        elif isinstance(ancestor, cst.Assign):
            return names.union(*(_names_in(target.target) for target in ancestor.targets))
        elif isinstance(ancestor, (cst.AugAssign, cst.AnnAssign, cst.For)):
            return names | _names_in(ancestor.target)
        elif isinstance(ancestor, cst.With):
            return names.union(*(_names_in(item.asname) for item in ancestor.items))
        elif isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return names
    return names


def _same_use(site: cst.CSTNode, key: str, candidate: str, ctx: Context, facts: Usage) -> bool:
    """Could `candidate` stand for `key` at `site`: no other kind of value, used the same way
    (the same attribute read on it, or subscripted)?"""
    kinds = facts.kind(key), facts.kind(candidate)
    if None not in kinds and kinds[0] != kinds[1]:
        return False
    parent = ctx.parent(site)
    if isinstance(parent, cst.Attribute) and parent.value is site:
        return parent.attr.value in facts.attributes.get(candidate, ())
    if isinstance(parent, cst.Subscript) and parent.value is site:
        return candidate in facts.subscripted
    return True


def _sibling_operand(site: cst.CSTNode, ctx: Context) -> str | None:
    """The other operand's code when `site` is one side of `a - b` or `a < b`: `a - a` is absurd."""
    parent = ctx.parent(site)
    if isinstance(parent, cst.BinaryOperation):
        other = parent.right if parent.left is site else parent.left
        return ctx.code(other).strip()
    if isinstance(parent, cst.ComparisonTarget):
        comparison = ctx.parent(parent)
        return ctx.code(comparison.left).strip() if isinstance(comparison, cst.Comparison) else None
    if isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1:
        return ctx.code(parent.comparisons[0].comparator).strip()
    return None


def choose(site: str, distances: dict[str, int], same_kind: set[str]) -> list[str]:
    """The candidates to propose (from name -> distance before the site): up to two names
    similar to `site`; failing those, the nearest one known to hold the same kind of value."""
    similar = sorted(
        (name for name in distances if similarity(site, name) >= _MIN_SIMILARITY),
        key=lambda name: (-similarity(site, name), distances[name], name),
    )
    if similar:
        return similar[:_MAX_CANDIDATES]
    return sorted(same_kind & distances.keys(), key=lambda name: (distances[name], name))[:1]


def _local_chain(node: cst.Name, ctx: Context, function: cst.FunctionDef) -> list[Scope] | None:
    """The comprehension scopes around `node`, then its function's scope; None outside one."""
    chain: list[Scope] = []
    scope = ctx.scope(node)
    while isinstance(scope, ComprehensionScope):
        chain.append(scope)
        scope = scope.parent
    if not isinstance(scope, FunctionScope) or scope.node is not function:
        return None  # a lambda, or a class body: not the function's locals
    return [*chain, scope]


def _is_load(node: cst.Name, scope: Scope, ctx: Context) -> bool:
    """Is `node` read (libcst counts `del x` as an access too)?"""
    if not any(access.node is node for access in scope.accesses[node.value]):
        return False
    statements = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
    statement = next(a for a in ctx.ancestors(node) if isinstance(a, statements))
    return not isinstance(statement, cst.Del)


def _binds_value(node: cst.CSTNode, ctx: Context) -> bool:
    """Not `x: int` without a value, nor `except E as e`, whose name is unbound after the handler."""
    parent = ctx.parent(node)
    if isinstance(parent, cst.AnnAssign):
        return parent.value is not None
    return not (isinstance(parent, cst.AsName) and isinstance(ctx.parent(parent), cst.ExceptHandler))


class WrongVariable(Mutator[cst.Name]):
    """A local variable read in place of another local of the same function.

    Realistic: `tpr = tps / tps[-1]` written as `tpr = fps / tps[-1]`, `hi` for `lo`: the most
    common one-line bug in the published bug datasets, invisible to type checkers when both
    names hold the same kind of value.
    """

    name = "beyond/wrong-variable"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the code reads the wrong variable"
    matcher = m.Name()
    examples = (
        Example(
            before="def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / fps[-1]\n    return fpr, tpr\n",
            after=(
                "def rates(tps, fps):\n    tpr = fps / tps[-1]\n    fpr = fps / fps[-1]\n    return fpr, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / fps[-1]\n    fpr = fps / fps[-1]\n    return fpr, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = tps / fps[-1]\n    return fpr, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / tps[-1]\n    return fpr, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / fps[-1]\n    return tpr, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / fps[-1]\n    return fps, tpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / fps[-1]\n    return fpr, fpr\n",
                "def rates(tps, fps):\n    tpr = tps / tps[-1]\n    fpr = fps / fps[-1]\n    return fpr, tps\n",
            ),
        ),
        # not candidates: globals and builtins (`np`, `LIMIT`, `len`), the statement's own
        # target (`clipped`), a value of another kind (`values` is a list, `n` a number),
        # a dissimilar name of unknown kind
        Example(
            before=(
                "import numpy as np\n\nLIMIT = 3\n\n\ndef f(values: list[float], n: int):\n"
                "    clipped = np.clip(n, 0, LIMIT)\n    return len(values), later(clipped)\n"
            ),
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._usage = UsageCache()

    def mutate(self, node: cst.Name, ctx: Context) -> Iterator[Rewrite]:
        for candidate in self.candidates(node, ctx):
            yield Rewrite(
                replacement=node.with_changes(value=candidate),
                explanation=f"`{node.value}` became `{candidate}`: the code reads the wrong variable",
            )

    def candidates(self, node: cst.Name, ctx: Context) -> list[str]:
        found = self.locals_before(node, ctx)
        if found is None:
            return []
        distances, facts = found
        kind = facts.kind(node.value)
        same_kind = {name for name in distances if kind is not None and facts.kind(name) == kind}
        return choose(node.value, distances, same_kind)

    def locals_before(
        self, node: cst.Name, ctx: Context, *, same_kind: bool = True
    ) -> tuple[dict[str, int], Usage] | None:
        """The locals that could be read in place of `node` (name -> how far before it they are
        bound), of no other kind of value unless `same_kind` is false, and the function's usage
        facts; None where `node` is not a local that is read."""
        function = ctx.function(node)
        parent = ctx.parent(node)
        if function is None or (isinstance(parent, cst.Call) and parent.func is node):
            return None
        chain = _local_chain(node, ctx, function)
        if chain is None or not _is_load(node, chain[0], ctx):
            return None
        if not any(node.value in scope.assignments for scope in chain):
            return None  # a global, a builtin or a closure variable
        facts = self._usage.get(function)
        site = facts.order.get(node)
        if site is None:
            return None
        excluded = statement_targets(node, ctx) | {node.value, "self", "cls", "_"}
        sibling = _sibling_operand(node, ctx)
        distances: dict[str, int] = {}
        for scope in chain:
            for assignment in scope.assignments:
                name = assignment.name
                if name in excluded or name == sibling or name in facts.called or name.startswith("__"):
                    continue
                distance = self._distance(assignment, scope, site, facts, ctx)
                if distance is not None and (not same_kind or _same_use(node, node.value, name, ctx, facts)):
                    distances[name] = min(distance, distances.get(name, distance))
        return distances, facts

    @staticmethod
    def _distance(assignment: object, scope: Scope, site: int, facts: Usage, ctx: Context) -> int | None:
        """How far before `site` the assignment is; None if after it, or not a data binding."""
        if not isinstance(assignment, Assignment) or isinstance(assignment, ImportAssignment):
            return None
        if isinstance(assignment.node, _NOT_DATA_BINDINGS) or not _binds_value(assignment.node, ctx):
            return None
        walrus = isinstance(ctx.parent(assignment.node), cst.NamedExpr)
        if isinstance(scope, ComprehensionScope) and not walrus:
            return 0  # a `for` target: bound before anything inside the comprehension runs
        position = facts.order.get(assignment.node)
        return None if position is None or position >= site else site - position


def _class_attributes(cls: cst.ClassDef, facts: Usage) -> dict[str, int]:
    """Attributes the class sets (`self.x = ...` in a method, `x: int` fields): name -> order."""
    methods = {d.name.value for d in cls.body.body if isinstance(d, cst.FunctionDef)}
    return {name: order for name, order in facts.set_attributes.items() if name not in methods}


def _is_attribute_load(node: cst.Attribute, ctx: Context) -> bool:
    parent = ctx.parent(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return False  # a method call
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        return getattr(parent, "target", None) is not node
    if isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
        return not any(isinstance(a, cst.AssignTarget) for a in ctx.ancestors(node))
    return not isinstance(parent, cst.Del)


class WrongAttribute(Mutator[cst.Attribute]):
    """`self.a` read in place of another attribute `self.b` that the class sets.

    Realistic: `self._running` for `self._waiting`, `self.n_features` for `self.n_outputs`;
    both exist, so nothing crashes. A candidate must be used the way the site is (the same
    method called on it, or subscripted), which keeps a deque from standing in for a count.
    """

    name = "beyond/wrong-attribute"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the code reads the wrong attribute of the object"
    matcher = m.Attribute(value=m.Name("self"))
    examples = (
        Example(
            before=(
                "class Q:\n    def __init__(self):\n        self.waiting = []\n        self.running = []\n"
                "        self.limit = 4\n\n    def add(self, x):\n        self.running.append(x)\n"
                "        self.waiting.append(x)\n        return len(self.running) < self.limit\n"
            ),
            after=(
                "class Q:\n    def __init__(self):\n        self.waiting = []\n        self.running = []\n"
                "        self.limit = 4\n\n    def add(self, x):\n        self.waiting.append(x)\n"
                "        self.waiting.append(x)\n        return len(self.running) < self.limit\n",
                "class Q:\n    def __init__(self):\n        self.waiting = []\n        self.running = []\n"
                "        self.limit = 4\n\n    def add(self, x):\n        self.running.append(x)\n"
                "        self.running.append(x)\n        return len(self.running) < self.limit\n",
                "class Q:\n    def __init__(self):\n        self.waiting = []\n        self.running = []\n"
                "        self.limit = 4\n\n    def add(self, x):\n        self.running.append(x)\n"
                "        self.waiting.append(x)\n        return len(self.waiting) < self.limit\n",
            ),
        ),
        # methods, assignment targets and attributes the class never sets are not sites
        Example(
            before=(
                "class Q:\n    def __init__(self):\n        self.items = []\n\n"
                "    def add(self, x):\n        self.items = self.clean(x)\n        return self.size\n"
            ),
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._usage = UsageCache()

    def mutate(self, node: cst.Attribute, ctx: Context) -> Iterator[Rewrite]:
        cls = next((a for a in ctx.ancestors(node) if isinstance(a, cst.ClassDef)), None)
        if cls is None or ctx.function(node) is None or not _is_attribute_load(node, ctx):
            return
        facts = self._usage.get(cls)
        attributes = _class_attributes(cls, facts)
        current = node.attr.value
        if current not in attributes:
            return  # a method, a property or an inherited attribute: no peers known
        sibling = _sibling_operand(node, ctx)
        distances = {
            name: abs(order - attributes[current])
            for name, order in attributes.items()
            if name != current
            and "self." + name != sibling
            and _same_use(node, "self." + current, "self." + name, ctx, facts)
        }
        kind = facts.kind("self." + current)
        same_kind = {name for name in distances if kind is not None and facts.kind("self." + name) == kind}
        for candidate in choose(current, distances, same_kind):
            yield Rewrite(
                replacement=node.with_changes(attr=node.attr.with_changes(value=candidate)),
                explanation=f"`self.{current}` became `self.{candidate}`: the code reads the wrong attribute",
            )


_MIN_SIBLING_SIMILARITY = 0.5


def _attributes_read(module: cst.Module) -> dict[str, set[str]]:
    """For each plain name, the attributes read from it anywhere in the module (not methods
    called on it): `{"edge": {"incoming", "outgoing"}}`."""
    called = {id(call.func) for call in find_all(module, cst.Call, m.Call(func=m.Attribute()))}
    stored = {id(target.target) for target in find_all(module, cst.AssignTarget, m.AssignTarget())}
    called |= stored  # written, not read
    read: dict[str, set[str]] = {}
    for attribute in find_all(module, cst.Attribute, m.Attribute(value=m.Name())):
        if id(attribute) not in called:
            read.setdefault(cst.ensure_type(attribute.value, cst.Name).value, set()).add(attribute.attr.value)
    return read


class SiblingAttribute(Mutator[cst.Attribute]):
    """`edge.incoming` read in place of `edge.outgoing`: another attribute of the same object.

    Realistic: the twin fields of one record (`incoming`/`outgoing`, `left`/`right`,
    `start`/`stop`), which hold the same kind of value, so nothing crashes. A sibling must be
    read from an object of the same name elsewhere in the module, and be the most similar name
    (or the opposite word); attributes of `self` are `beyond/wrong-attribute`'s, and imported
    modules (`np.inf`) have no siblings.
    """

    name = "beyond/sibling-attribute"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}`: the code reads the sibling attribute of the object"
    matcher = m.Attribute(value=m.Name())
    examples = (
        Example(
            before=(
                "def sources(edge):\n    return edge.incoming\n\n\n"
                "def targets(edge):\n    return edge.outgoing, edge.weight\n"
            ),
            after=(
                "def sources(edge):\n    return edge.outgoing\n\n\n"
                "def targets(edge):\n    return edge.outgoing, edge.weight\n",
                "def sources(edge):\n    return edge.incoming\n\n\n"
                "def targets(edge):\n    return edge.incoming, edge.weight\n",
            ),
        ),
        # no sibling read anywhere, a method, an import, self, an assignment target
        Example(
            before=(
                "import numpy as np\n\n\ndef f(edge, self):\n    edge.total = edge.size\n"
                "    return edge.sum(), np.inf, np.pi, self.a, self.b\n"
            ),
            after=(),
        ),
    )

    def __init__(self) -> None:
        self._module: cst.Module | None = None
        self._read: dict[str, set[str]] = {}

    def mutate(self, node: cst.Attribute, ctx: Context) -> Iterator[Rewrite]:
        owner = cst.ensure_type(node.value, cst.Name)  # as matched
        if owner.value in ("self", "cls") or ctx.function(node) is None or not _is_attribute_load(node, ctx):
            return
        scope = ctx.scope(owner)
        if scope is not None and any(isinstance(a, ImportAssignment) for a in scope[owner.value]):
            return
        if self._module is not ctx.module:
            self._module, self._read = ctx.module, _attributes_read(ctx.module)
        current = node.attr.value
        siblings = sorted(self._read.get(owner.value, set()) - {current})
        scored = [(similarity(current, name), name) for name in siblings]
        best = max(scored, default=(0.0, ""))
        if best[0] >= _MIN_SIBLING_SIMILARITY:
            yield Rewrite(
                replacement=node.with_changes(attr=node.attr.with_changes(value=best[1])),
                explanation=f"`{owner.value}.{current}` became `{owner.value}.{best[1]}`: "
                            "the code reads the sibling attribute of the object",
            )
