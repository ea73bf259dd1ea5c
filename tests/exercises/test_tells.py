"""A bug that leaves a name unread shows itself to a reader (harness.exercises.measure.tells)."""

from __future__ import annotations

import textwrap

from bugsmith.harness.exercises.measure.tells import (
    breaks_twin,
    guarded_raises,
    same_function,
    swaps_loop_names,
    unread_by,
)
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.registry import select

SOURCE = textwrap.dedent(
    """
    import numpy as np


    def average_precision(y, scores, weights=None):
        precision, recall, _ = curve(y, scores, weights)
        total = 0.0
        for p in precision:
            total += p
        return -float(np.sum(np.diff(recall) * precision[:-1])), total


    class Window:
        def push(self, x, *, limit):
            def inner():
                return x + limit
            return inner()
    """
)


def _bug(original: str, mutated: str):
    for mutant in mutants_of_source(SOURCE, file="m.py", module="m", mutators=select(())).mutants:
        if mutant.original == original and mutant.mutated == mutated:
            return mutant
    raise AssertionError(f"no mutant {original!r} -> {mutated!r}")


def test_the_read_a_bug_takes_away_leaves_the_name_unread():
    """Dropping the only read of `recall` leaves it unpacked and unread, as pyflakes would say."""
    dropped = _bug("np.diff(recall) * precision", "precision")
    assert unread_by(SOURCE, dropped) == ("recall",)
    # names read only by a nested function count as read: once that read goes, they are not
    assert unread_by(SOURCE, _bug("x + limit", "x")) == ("limit",)


def test_a_bug_that_keeps_every_read_shows_nothing():
    """Values swapped, an augmented update changed, a name read in a nested function: all still read."""
    assert unread_by(SOURCE, _bug("precision, recall", "recall, precision")) == ()
    assert unread_by(SOURCE, _bug("np.diff(recall)", "recall")) == ()
    assert unread_by(SOURCE, _bug("+=", "-=")) == ()
    # the update deleted, the loop variable is bound for nothing
    assert unread_by(SOURCE, _bug("total += p", "pass")) == ("p",)


def test_a_name_unread_before_the_bug_does_not_count():
    """`weights` is passed on and `_` never read in the original too: only names the bug freed count."""
    source = "def f(a, unused):\n    b = a + 1\n    return b\n"
    for mutant in mutants_of_source(source, file="m.py", module="m", mutators=select(())).mutants:
        assert "unused" not in unread_by(source, mutant)


TWINS = textwrap.dedent(
    """
    import numpy as np


    def counts(weights, positive, last):
        tps = np.cumsum(weights * positive)[last]
        fps = np.cumsum(weights * ~positive)[last]
        return tps, fps / tps[-1]
    """
)


def _twin_bug(original: str, mutated: str, line: int):
    for mutant in mutants_of_source(TWINS, file="m.py", module="m", mutators=select(())).mutants:
        if (mutant.original, mutant.mutated, mutant.span.line) == (original, mutated, line):
            return mutant
    raise AssertionError(f"no mutant {original!r} -> {mutated!r} on line {line}")


def test_an_edit_of_one_twin_shows_against_the_other():
    """`/` for `*` in either line leaves it unlike the other; so does an operand dropped from
    one, although the two still differ in one part only: a bigger part."""
    assert breaks_twin(TWINS, _twin_bug("*", "/", 6))
    assert breaks_twin(TWINS, _twin_bug("*", "/", 7))
    assert breaks_twin(TWINS, _twin_bug("weights * ~positive", "weights", 7))


def test_an_edit_outside_any_twin_or_of_the_part_they_differ_in_shows_nothing():
    """The return line has no twin; `~` dropped makes the pair more alike, not less."""
    assert not breaks_twin(TWINS, _twin_bug("fps / tps[-1]", "tps[-1] / fps", 8))
    assert not breaks_twin(TWINS, _twin_bug("~positive", "positive", 7))


GUARDS = textwrap.dedent(
    """
    def check(block, n, stats):
        if not 0 <= block < n:
            raise ValueError(f"block {block} is not in 0 .. {n}")
        for stat in stats:
            if stat not in ("mean", "max"):
                raise ValueError(f"unknown stat {stat!r}")
        total = block + n
        return total
    """
)


def _guard_bug(original: str, mutated: str):
    for mutant in mutants_of_source(GUARDS, file="m.py", module="m", mutators=select(())).mutants:
        if mutant.original.strip() == original and mutant.mutated.strip() == mutated:
            return mutant
    raise AssertionError(f"no mutant {original!r} -> {mutated!r}")


def test_a_guard_changed_or_removed_leads_to_the_raise_it_guards():
    """`<` -> `>` in a guard: its `raise` (line 4) is where a good input now fails; the guard of
    the loop dropped: the raise stands where the `if` stood (line 6) and fires on every stat."""
    assert guarded_raises(GUARDS, _guard_bug("<", ">")) == (4,)
    dropped = next(m for m in mutants_of_source(GUARDS, file="m.py", module="m", mutators=select(())).mutants
                   if m.operator == "beyond/drop-condition" and "unknown stat" in m.original)
    assert guarded_raises(GUARDS, dropped) == (6,)
    assert guarded_raises(GUARDS, _guard_bug("not in", "in")) == (7,)


def test_an_edit_away_from_any_guard_leads_to_no_raise():
    assert guarded_raises(GUARDS, _guard_bug("+", "-")) == ()
    assert guarded_raises(GUARDS, _guard_bug("total", "None")) == ()


def test_a_loops_collection_read_for_its_item_reads_wrong():
    """`stats` where the loop over them read `stat`: the line a reader stops at. The guard's
    comparison negated is no such slip."""
    assert swaps_loop_names(GUARDS, _guard_bug("stat", "stats"))
    assert not swaps_loop_names(GUARDS, _guard_bug("not in", "in"))
    assert not swaps_loop_names(GUARDS, _guard_bug("total", "None"))


def test_same_function_reads_the_innermost_function_of_the_line():
    source = "def f():\n    a = 1\n    return a\n\n\ndef g():\n    return 2\n"
    assert same_function(source, 2, [3])
    assert not same_function(source, 2, [7])
    assert not same_function("x = 1\n", 1, [1])



def test_a_guard_deleted_whole_leads_to_no_other_guards_raise():
    """`if a < 0: raise` deleted with its raise: the next guard moves up into the deleted span's
    lines, and its raise is no lead of this bug."""
    source = "def f(a, b):\n    if a < 0:\n        raise ValueError('a')\n    x = a\n    if b:\n        raise ValueError('b')\n    return x\n"
    removed = next(m for m in mutants_of_source(source, file="m.py", module="m", mutators=select(())).mutants
                   if m.operator == "beyond/remove-guard" and "'a'" in m.original)
    assert guarded_raises(source, removed) == ()
