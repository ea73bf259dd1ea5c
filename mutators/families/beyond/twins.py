"""Beyond-classic bugs of an edit made in one place of two: one twin changed and not the other.

Code that treats two sides alike is written twice, usually by copying the first and editing
the copy: `left_sum += x` then `right_sum -= x`, `lo = mid + 1` in one branch and `hi = mid` in
the other, `(n_left >= k) & (n_right >= k)`. The bugs are the edits that reach one of the two:
the copy that kept a part of its original (`right_sum += x`), and the later change made to both
lines that reached only one (`depth + 1` for one child and `depth` for the other). Twins are
found from the syntax alone (`analysis.twins`: same shape once their differing names are renamed
consistently), never from names we expect; both operators make only edits that the twin or a
single off-by-one change explains, the realistic side of the line `analysis.slips` draws.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from bugsmith.mutators.analysis.arguments import without_arg
from bugsmith.mutators.analysis.explanations import spelled_out
from bugsmith.mutators.analysis.expressions import BOUNDARY_FLIP, in_place_of, respaced
from bugsmith.mutators.analysis.twins import (
    OPERATOR_CLASSES,
    OPERATORS,
    Twins,
    all_twins,
    renamed,
    same_code,
    significant,
)
from bugsmith.mutators.base import Example, Mutator, Rewrite
from bugsmith.mutators.context import Context
from bugsmith.mutators.family import Family

# Keywords that only configure or word the call, or whose default numpy infers from the data
# (`dtype`): as `beyond/drop-keyword` leaves them. The keywords other operators drop alone
# (`axis`, `keepdims`) stay here: left out of one twin only, the bug is this one.
_SETTINGS = frozenset({
    "verbose", "verbosity", "n_jobs", "stacklevel", "flush", "file", "end", "sep", "msg", "message",
    "err_msg", "match", "desc", "help", "doc", "debug", "quiet", "copy", "dtype",
})
# The nodes with no code below them: names, literals, operators, empty displays (`[]`), `[:]`.
_TOKENS = (
    cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.FormattedStringText,
    cst.Ellipsis, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.Slice, *OPERATOR_CLASSES,
)


def _last_token(node: cst.CSTNode) -> cst.CSTNode:
    """The last node of `node` with no code below it, which the engine visits after every other
    node of it: a rewrite proposed there comes after any other operator's rewrite of the same
    code, so that one, proposed first, keeps its id and wording."""
    children = significant(node)
    return _last_token(children[-1]) if children else node


class _TwinEdit(Mutator[cst.CSTNode]):
    """Edits of twins, planned once per module and proposed at each edit's last token."""

    matcher = m.OneOf(*(getattr(m, kind.__name__)() for kind in _TOKENS))

    def __init__(self) -> None:
        self._module: cst.Module | None = None
        self._planned: dict[int, list[Rewrite]] = {}

    def edits(self, twins: Twins, ctx: Context) -> Iterator[Rewrite]:
        raise NotImplementedError

    @spelled_out
    def mutate(self, node: cst.CSTNode, ctx: Context) -> Iterator[Rewrite]:
        if self._module is not ctx.module:
            self._module, self._planned = ctx.module, self._plan(ctx)
        yield from self._planned.get(id(node), ())

    def _plan(self, ctx: Context) -> dict[int, list[Rewrite]]:
        planned: dict[int, list[Rewrite]] = {}
        made: set[tuple[int, str]] = set()  # one edit may come from both of a line's twins
        for twins in all_twins(ctx.module):
            if ctx.function(twins.first) is None:
                continue  # module and class bodies: tables and settings, not logic
            for rewrite in self.edits(twins, ctx):
                target, replacement = rewrite.target, rewrite.replacement
                if target is None or not isinstance(replacement, cst.CSTNode):
                    continue
                key = (id(target), ctx.code(replacement))
                if key not in made:
                    made.add(key)
                    planned.setdefault(id(_last_token(target)), []).append(rewrite)
        return planned


def _one_line(ctx: Context, node: cst.CSTNode) -> str:
    """The twin's code on one line, shortened, its braces kept from the engine's format."""
    text = " ".join(ctx.code(node).split())
    text = text if len(text) <= 60 else text[:57] + "..."
    return text.replace("{", "{{").replace("}", "}}")


def _stores(node: cst.CSTNode) -> set[int]:
    """The ids of the names `node` binds (an assignment's targets, loop and lambda variables):
    a copy-paste slip there rebinds a name and leaves its twin unset, a loud bug of another kind."""
    found: set[int] = set()

    class Stores(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            found.update(id(n) for n in _bound_names(target.target))

        def visit_AnnAssign(self, assign: cst.AnnAssign) -> None:
            found.update(id(n) for n in _bound_names(assign.target))

        def visit_NamedExpr(self, named: cst.NamedExpr) -> None:
            found.update(id(n) for n in _bound_names(named.target))

        def visit_CompFor(self, loop: cst.CompFor) -> None:
            found.update(id(n) for n in _bound_names(loop.target))

        def visit_Param(self, param: cst.Param) -> None:
            found.add(id(param.name))

    node.visit(Stores())
    return found


def _bound_names(target: cst.CSTNode) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, cst.Attribute):
        return [target.attr]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


class TwinCopied(_TwinEdit):
    """The second of two twins keeps one part of the first: `right_sum -= x` -> `right_sum += x`
    beside `left_sum += x`, `tpr = tps / tps[-1]` -> `tpr = fps / tps[-1]` below `fpr = fps /
    fps[-1]`, `hi = mid` -> `hi = mid + 1` in the branch after `lo = mid + 1`.

    Realistic: the copy-paste slip. The second line of a pair is written by copying the first
    and editing the copy; one edit forgotten leaves a name, an operator or a constant of the
    first, and the code runs on. A part is copied only from the first twin into the second (the
    copy is the later line), one at a time, never a name the line binds, and never the last
    difference, which would make the two lines one (`(n_left >= k) & (n_left >= k)`).
    """

    name = "beyond/twin-copied"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}` as in its twin: a line copied from its twin kept part of it"
    examples = (
        Example(
            before="def f(x):\n    left_sum += x\n    right_sum -= x\n",
            after=(
                "def f(x):\n    left_sum += x\n    left_sum -= x\n",
                "def f(x):\n    left_sum += x\n    right_sum += x\n",
            ),
        ),
        Example(
            before=(
                "def find(a, x, lo, hi):\n    mid = (lo + hi) // 2\n    if a[mid] < x:\n"
                "        lo = mid + 1\n    else:\n        hi = mid\n    return lo, hi\n"
            ),
            after=(
                "def find(a, x, lo, hi):\n    mid = (lo + hi) // 2\n    if a[mid] < x:\n"
                "        lo = mid + 1\n    else:\n        hi = mid + 1\n    return lo, hi\n",
            ),
        ),
        Example(
            before="def f(a, b, i):\n    return np.where(i, a.lo[i] - 1, a.hi[i] + 1)\n",
            after=(
                "def f(a, b, i):\n    return np.where(i, a.lo[i] - 1, a.lo[i] + 1)\n",
                "def f(a, b, i):\n    return np.where(i, a.lo[i] - 1, a.hi[i] - 1)\n",
            ),
        ),
        # twins that differ in one name only (copying it makes one line twice), names a line
        # binds, lines that share too little to be twins, and code outside a function
        Example(
            before=(
                "def f(n_left, n_right, k, a, b):\n    valid = (n_left >= k) & (n_right >= k)\n"
                "    left = a[0]\n    right = a[0]\n    a.append(b)\n    k.append(n_left)\n    return valid\n\n"
                "lo = mid + 1\nhi = mid - 1\n"
            ),
            after=(),
        ),
    )

    def edits(self, twins: Twins, ctx: Context) -> Iterator[Rewrite]:
        """The first twin's parts copied into the second, one at a time."""
        if len(twins.renamed) + (twins.different is not None) < 2:
            return  # the copy of the one difference would make the twins the same code
        why = (f"`{{original}}` became `{{mutated}}` as in its twin `{_one_line(ctx, twins.first)}`: "
               "the line was copied from its twin and this part was not changed")
        bound = _stores(twins.second)
        for first, second in twins.renamed:
            if id(second) not in bound:
                yield Rewrite(target=second, replacement=second.with_changes(value=first.value), explanation=why)
        if twins.different is None:
            return
        theirs, mine = twins.different
        if isinstance(mine, OPERATORS):
            yield Rewrite(target=mine, replacement=respaced(mine, type(theirs)), explanation=why)
        elif isinstance(mine, cst.BaseExpression) and isinstance(theirs, cst.BaseExpression):
            copied = renamed(theirs, twins.names())
            if isinstance(copied, cst.BaseExpression):
                bare = copied.with_changes(lpar=[], rpar=[])
                yield Rewrite(target=mine, replacement=in_place_of(mine, bare, ctx), explanation=why)


class TwinNotUpdated(_TwinEdit):
    """A part both twins share is left out of one: `queue.append((rows[~left], depth + 1))` ->
    `depth` beside its twin's `depth + 1`, a keyword both calls pass dropped from one, `>=`
    made `>` in one of two parallel checks.

    Realistic: a change meant for both lines of a pair (an off-by-one fix, a keyword added to
    both calls, a bound made inclusive) that reached only one of them, so one side of a
    symmetric computation is one off or falls back to a default. The shared part is a keyword
    argument with the same value in both, a `+ term` or `- term` whose term is the same small
    expression in both (`+ 1`, `- self.min_delta`), or the same comparison operator; each twin
    may be the one left behind. `None` values and keywords that only configure a call are left.
    """

    name = "beyond/twin-not-updated"
    family = Family.BEYOND
    explanation = "`{original}` became `{mutated}` while its twin kept it: an edit made to both lines reached one"
    examples = (
        Example(
            before=(
                "def grow(queue, rows, left, depth):\n    queue.append((rows[left], depth + 1))\n"
                "    queue.append((rows[~left], depth + 1))\n"
            ),
            after=(
                "def grow(queue, rows, left, depth):\n    queue.append((rows[left], depth))\n"
                "    queue.append((rows[~left], depth + 1))\n",
                "def grow(queue, rows, left, depth):\n    queue.append((rows[left], depth + 1))\n"
                "    queue.append((rows[~left], depth))\n",
            ),
        ),
        Example(
            before=(
                "def lengths(labels, inputs):\n    label_length = squeeze(labels, axis=-1)\n"
                "    input_length = squeeze(inputs, axis=-1)\n    return label_length, input_length\n"
            ),
            after=(
                "def lengths(labels, inputs):\n    label_length = squeeze(labels)\n"
                "    input_length = squeeze(inputs, axis=-1)\n    return label_length, input_length\n",
                "def lengths(labels, inputs):\n    label_length = squeeze(labels, axis=-1)\n"
                "    input_length = squeeze(inputs)\n    return label_length, input_length\n",
            ),
        ),
        Example(
            before="def f(n_left, n_right, k):\n    return (n_left >= k) & (n_right >= k)\n",
            after=(
                "def f(n_left, n_right, k):\n    return (n_left > k) & (n_right >= k)\n",
                "def f(n_left, n_right, k):\n    return (n_left >= k) & (n_right > k)\n",
            ),
        ),
        # a term, keyword or operator the twins do not share, a `None` keyword, a setting
        Example(
            before=(
                "def f(a, b, lo, hi, x):\n    left = g(a + 1, out=None, verbose=True)\n"
                "    right = g(b + 2, out=None, verbose=True)\n    return (x < lo) | (x > hi)\n"
            ),
            after=(),
        ),
    )

    def edits(self, twins: Twins, ctx: Context) -> Iterator[Rewrite]:
        """Each part the twins share, left out of the first, then of the second."""
        for edited, twin in ((0, twins.second), (1, twins.first)):
            why = (f"`{{original}}` became `{{mutated}}` while its twin `{_one_line(ctx, twin)}` kept it: "
                   "an edit made to both lines reached only one")
            for place in twins.places:
                for target, new in _shared_part_dropped(place[edited], place[1 - edited]):
                    yield Rewrite(target=target, replacement=new, explanation=why)


def _shared_part_dropped(mine: cst.CSTNode, theirs: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """(target, replacement) for each part `mine` shares with `theirs` (the node at its place in
    the twin), left out of `mine`."""
    if isinstance(mine, cst.Call) and isinstance(theirs, cst.Call):
        for arg, other in zip(mine.args, theirs.args):
            keyword = arg.keyword
            if keyword is not None and keyword.value not in _SETTINGS and not m.matches(arg.value, m.Name("None")) \
                    and same_code(arg.value, other.value):
                yield mine, without_arg(mine, arg)
    elif isinstance(mine, cst.BinaryOperation) and isinstance(theirs, cst.BinaryOperation):
        terms = (cst.Add, cst.Subtract)
        if isinstance(mine.operator, terms) and isinstance(theirs.operator, terms) \
                and _small(mine.right) and same_code(mine.right, theirs.right):
            left = mine.left
            yield mine, left.with_changes(lpar=mine.lpar, rpar=mine.rpar) if mine.lpar and not left.lpar else left
    elif isinstance(mine, cst.ComparisonTarget) and isinstance(theirs, cst.ComparisonTarget):
        flip = BOUNDARY_FLIP.get(type(mine.operator))
        if flip is not None and type(mine.operator) is type(theirs.operator):
            yield mine.operator, respaced(mine.operator, flip)


def _small(term: cst.BaseExpression) -> bool:
    """A term a fix adds to both sides: a literal, a name, an attribute or an argument-free call."""
    if isinstance(term, cst.Call):
        return not term.args and _small(term.func)
    if isinstance(term, cst.Attribute):
        return _small(term.value)
    return isinstance(term, (cst.Name, cst.Integer, cst.Float))
