"""Golden, edge-case and behaviour tests for the order family: two neighbouring statements swapped."""

from __future__ import annotations

import textwrap
from collections import Counter

import numpy as np
import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import order, scheduling
from bugsmith.mutators.testing import check_example, mutated_sources

OPERATORS = {cls.name: cls for cls in order.MUTATORS}
CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in order.MUTATORS
    for index in range(len(cls.examples))
]

# A bounded buffer with a record of finished items, and a masked normalisation, written for
# these tests: one site of each of the family's bugs, and many neighbours that must not move.
PROGRAM = textwrap.dedent(
    """
    import numpy as np


    class Buffer:
        def __init__(self, capacity):
            self.capacity = capacity
            self.items = []
            self.done = []
            self.closed = False
            self.size = 0

        def put(self, item):
            if len(self.items) >= self.capacity:
                raise OverflowError(item)
            self.items.append(item)
            self.size = len(self.items)

        def take(self):
            item = self.items.pop(0)
            self.size = len(self.items)
            return item

        def finish(self, item):
            self._record(item)
            self.done.append(item)

        def _record(self, item):
            if item in self.done:
                raise ValueError(item)

        def close(self):
            flushed = self.flush()
            self.closed = True
            return flushed

        def flush(self):
            if self.closed:
                return []
            flushed, self.items = self.items, []
            return flushed


    def normalise(x, mask):
        x = np.where(mask, x, 0.0)
        total = x.sum()
        return x / total
    """
)


def _trace(source: str) -> list:
    """Run a fixed workload through `source`; an exception is part of the trace."""
    namespace: dict = {}
    exec(compile(source, "program.py", "exec"), namespace)
    trace: list = []
    try:
        buffer = namespace["Buffer"](capacity=2)
        for item in ("a", "b", "c"):
            try:
                buffer.put(item)
            except OverflowError:
                trace.append(("full", item, list(buffer.items)))
        trace.append((buffer.take(), buffer.size))
        buffer.finish("a")
        trace.append(list(buffer.done))
        trace.append((buffer.close(), list(buffer.items)))
        weights = namespace["normalise"](np.array([1.0, 2.0, 3.0]), np.array([True, False, True]))
        trace.append(weights.round(6).tolist())
    except Exception as error:  # a loud mutant still differs
        trace.append(type(error).__name__)
    return trace


def _mutants(source: str, families=(order,)):
    mutators = [cls() for family in families for cls in family.MUTATORS]
    return mutants_of_source(source, file="p.py", module="p", mutators=mutators).mutants


def _swaps(name: str, source: str) -> list[str]:
    return mutated_sources(OPERATORS[name](), textwrap.dedent(source))



@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator turns its example into exactly the listed mutants, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_operators_are_well_formed():
    """Names are unique and prefixed `order/`; each docstring says why the bug is realistic."""
    names = [cls.name for cls in order.MUTATORS]
    assert len(names) == len(set(names))
    for cls in order.MUTATORS:
        assert cls.name.startswith("order/") and cls.family.value == "order"
        assert cls.__doc__ and "Realistic" in cls.__doc__


def test_the_program_gets_one_bug_of_each_kind():
    """Each operator finds its one site in the program and nothing else moves."""
    counts = Counter(mutant.operator for mutant in _mutants(PROGRAM))
    assert counts == {
        "order/check-after-change": 1,  # the capacity check after `self.items.append`
        "order/filter-after-reduction": 1,  # the mask after `x.sum()`
        "order/removal-after-read": 1,  # `pop(0)` after the size is counted
        "order/transition-before-work": 2,  # `done.append` before `_record`, `closed` before `flush`
    }


def test_every_mutant_of_the_program_changes_its_behaviour():
    """No swap is equivalent: each changes what the workload sees, or makes it raise."""
    expected = _trace(PROGRAM)
    for mutant in _mutants(PROGRAM):
        assert _trace(mutant.apply(PROGRAM)) != expected, (mutant.operator, mutant.diff)


def test_a_guard_moves_past_an_append_on_the_list_it_guards():
    """The card's capacity check after insertion, inside a loop, with its `break`."""
    source = """\
        def fill(queue, batch, cap):
            while queue:
                if len(batch) >= cap:
                    break
                batch.append(queue.popleft())
        """
    assert _swaps("order/check-after-change", source) == [textwrap.dedent("""\
        def fill(queue, batch, cap):
            while queue:
                batch.append(queue.popleft())
                if len(batch) >= cap:
                    break
        """)]


def test_an_emptiness_check_moves_after_the_pop_it_guards():
    """`item = q.pop()` changes `q` although it binds a new name: the check that reads `q` may move."""
    source = "def take(q):\n    if not q:\n        return None\n    item = q.pop()\n    return item\n"
    assert _swaps("order/check-after-change", source) == [
        "def take(q):\n    item = q.pop()\n    if not q:\n        return None\n    return item\n"
    ]


@pytest.mark.parametrize("body", [
    "if len(ys) > cap:\n        raise ValueError\n    xs.append(1)",  # the check reads ys, xs grows
    "ys = ys[ys > 0]\n    total = np.sum(xs)",  # the filter and the sum touch different arrays
    "seen.pop()\n    n = len(ys)",
    "job.work()\n    other.count = 3",
])
def test_independent_statements_are_never_swapped(body):
    """Two statements that share no state commute: their swap would be an equivalent mutant."""
    source = f"import numpy as np\n\ndef f(xs, ys, cap, seen, job, other):\n    {body}\n"
    assert all(_swaps(name, source) == [] for name in OPERATORS)


def test_a_check_passes_lines_it_commutes_with_to_reach_the_change_it_guards():
    """Two lines that do not touch what the check reads stand between it and the append: the
    check moves past all three; a line that rebinds what it reads stops it."""
    source = """\
        def add(batch, item, cap, log):
            if len(batch) >= cap:
                return False
            item = item.strip()
            log.append(item)
            batch.append(item)
            return True
        """
    assert _swaps("order/check-after-change", source) == [textwrap.dedent("""\
        def add(batch, item, cap, log):
            item = item.strip()
            log.append(item)
            batch.append(item)
            if len(batch) >= cap:
                return False
            return True
        """)]
    assert _swaps("order/check-after-change", source.replace("item = item.strip()", "batch = list(batch)")) == []


def test_no_swap_reads_a_name_before_the_function_binds_it():
    """`item` is first bound by the pop: the call moved above it would raise UnboundLocalError;
    with `item` a parameter, the call reads its old value, a stale read and a plausible bug."""
    source = "def f(q):\n    item = q.pop()\n    handle(item, q)\n"
    assert _swaps("order/removal-after-read", source) == []
    stale = source.replace("def f(q):", "def f(q, item):")
    assert _swaps("order/removal-after-read", stale) == [
        "def f(q, item):\n    handle(item, q)\n    item = q.pop()\n"
    ]


def test_a_name_bound_in_an_earlier_iteration_only_is_not_bound_in_time():
    """In a loop, a name bound further down the body has no value on the first pass."""
    source = """\
        def f(rows, q):
            for row in rows:
                x = q.pop()
                use(x, q)
                x = row
        """
    assert _swaps("order/removal-after-read", source) == []


def test_no_swap_moves_code_across_a_return_or_a_raise():
    """A `return` or `raise` never moves, and nothing moves past one: the code would be dead."""
    source = """\
        def f(batch, item, cap, q):
            if len(batch) >= cap:
                raise ValueError
            return batch.append(item)

        def g(q):
            q.pop()
            return len(q)
        """
    assert all(_swaps(name, source) == [] for name in OPERATORS)


def test_a_deleted_name_is_not_read_after_the_swap():
    """A check moved past `del x` would read `x` after it is gone: a NameError, not a bug."""
    source = "def f(x, limit):\n    if x > limit:\n        return\n    del x\n"
    assert _swaps("order/check-after-change", source) == []


def test_a_helper_method_is_read_for_what_it_reads():
    """`self._count()` reads `self.queue`, so a pop before it is a site; `self._log()` does not."""
    source = """\
        class Q:
            def drain(self):
                self.queue.pop()
                self._count()
                self.queue.pop()
                self._log()

            def _count(self):
                self.n = len(self.queue)

            def _log(self):
                self.lines.append("drained")
        """
    (mutant,) = _swaps("order/removal-after-read", source)
    assert "self._count()\n        self.queue.pop()\n        self.queue.pop()\n        self._log()" in mutant


def test_an_unknown_method_reads_its_whole_receiver():
    """A method defined elsewhere may read anything of its object: the transition is a site."""
    source = """\
        def run(job):
            job.execute()
            job.done = True
        """
    assert len(_swaps("order/transition-before-work", source)) == 1


def test_logging_never_moves():
    """A print or logging call reads state, but moving it changes no result a test could see."""
    source = """\
        def close(self, key, log):
            del self.open[key]
            log.info(len(self.open))
            print(self.open)
        """
    assert _swaps("order/removal-after-read", source) == []


def test_comments_move_with_their_statements_and_blank_lines_stay():
    """Each statement keeps the comment above it and on its line; the blank line stays put."""
    source = """\
        def f(x, mask):
            # hide what the mask rejects
            x = x[mask > 0]  # a copy

            total = x.sum()  # over the kept values
            return x / total
        """
    assert _swaps("order/filter-after-reduction", source) == [textwrap.dedent("""\
        def f(x, mask):
            total = x.sum()  # over the kept values

            # hide what the mask rejects
            x = x[mask > 0]  # a copy
            return x / total
        """)]


def test_a_conditional_mask_moves_after_the_softmax():
    """The held-out set's "mask applied after the softmax": the whole `if mask:` block moves."""
    source = """\
        import numpy as np

        def attend(scores, mask=None):
            if mask is not None:
                keep = np.asarray(mask, dtype=bool)
                scores = np.where(keep, scores, -np.inf)
            weights = softmax(scores)
            return weights
        """
    (mutant,) = _swaps("order/filter-after-reduction", source)
    assert mutant.index("weights = softmax(scores)") < mutant.index("if mask is not None:")


def test_the_explanation_quotes_both_statements_even_with_braces():
    """The explanation names the moved statement and its neighbour; a dict literal does not break it."""
    source = "def f(d, k, cap):\n    if len(d) >= cap:\n        return\n    d[k] = {'n': 1}\n"
    (mutant,) = [m for m in _mutants(source) if m.operator == "order/check-after-change"]
    assert "`if len(d) >= cap: return`" in mutant.explanation
    assert "`d[k] = {'n': 1}`" in mutant.explanation


def test_a_scheduling_operator_keeps_the_swap_it_already_makes():
    """Where scheduling's check-after-insert makes the same code, its mutant (id, wording) stays."""
    source = "def admit(q, batch, cap):\n    while q:\n        if len(batch) >= cap:\n            break\n        batch.append(q.popleft())\n"
    swaps = [m for m in _mutants(source, families=(scheduling, order)) if "after-" in m.operator]
    assert [m.operator for m in swaps] == ["scheduling/check-after-insert"]
