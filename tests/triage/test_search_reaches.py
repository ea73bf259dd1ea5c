"""The planned inputs of triage's search, in this process: boundaries of the mutated site's
constants first, a private helper reached through its public caller, a greedy shrink."""

from __future__ import annotations

import types

from reach_toy import LIMITS

from bugsmith.harness.child.triage.inputs_from_code import NEAR, boundary, candidates, fitting, simpler, site_of
from bugsmith.harness.child.triage.probe import Toggle
from bugsmith.harness.child.triage.search import Entry, entries, plan, search
from bugsmith.harness.child.triage.suggest import suggested_test


def loaded(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def mutated(line: int, original: str, replacement: str) -> str:
    lines = LIMITS.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].replace(original, replacement, 1)
    return "".join(lines)


def toggle_for(module: types.ModuleType, name: str, source: str) -> Toggle:
    """A Toggle (the probe's switch between original and mutant) over one function of `module`."""
    other = loaded(source, "mutated_limits")
    toggle = Toggle.__new__(Toggle)
    function = getattr(module, name)
    toggle.swaps = [(function, function.__code__, getattr(other, name).__code__)]
    toggle.files = frozenset({module.__file__})
    toggle.patches = ()
    return toggle


def compare(toggle: Toggle):
    return lambda entry, args, kwargs: toggle.compare(entry.function, args, kwargs)


def test_site_names_the_changed_constants_and_names():
    site = site_of(LIMITS, mutated(2, ">", ">="))
    assert site.constants == (100,) and "n" in site.names
    assert boundary(site.constants) == [100, 99, 101]


def test_a_boundary_only_c_tells_apart_is_found_first_and_random_search_misses_it():
    """tier(n): `n > 100` -> `n >= 100` differs only at n = 100; the suite called tier(5), tier(500)."""
    module = loaded(LIMITS, "limits_boundary")
    source = mutated(2, ">", ">=")
    toggle = toggle_for(module, "tier", source)
    own = Entry(callee="tier", module="limits", function=module.tier, strategy=None)
    recorded = [((5,), {}), ((500,), {})]
    stages = entries("limits", "tier", own, recorded)
    planned = plan(own, recorded, [], site_of(LIMITS, source))
    assert [p.candidate.args for p in planned[:3]] == [(100,), (99,), (101,)]  # 5 moved onto the boundary
    assert planned[0].candidate.source == NEAR

    found = search(stages, compare(toggle), seconds=60.0, max_examples=200, planned=planned)
    assert found.witness is not None and found.witness[1] == (100,)
    assert found.by_source == {NEAR: 1}
    # The suite's arguments perturbed at random (the search before this change) never stand on 100.
    blind = search(stages, compare(toggle), seconds=60.0, max_examples=200)
    assert blind.witness is None and blind.drawn > 0


def test_a_private_helper_is_shown_through_its_public_caller_and_shrunk():
    """_weight(size) is private and only shipping() calls it: the witness is a shipping call,
    with one item of the suite's list moved onto the boundary, then shrunk to that item alone."""
    module = loaded(LIMITS, "limits_private")
    source = mutated(8, ">", ">=")
    toggle = toggle_for(module, "_weight", source)
    own = Entry(callee="_weight", module="limits", function=module._weight, strategy=None)
    caller = Entry(callee="shipping", module="limits", function=module.shipping, strategy=None)
    callers = [(caller, [(([5, 500],), {})])]
    planned = plan(own, [((5,), {}), ((500,), {})], callers, site_of(LIMITS, source))
    assert planned[0].entry is caller

    found = search([], compare(toggle), seconds=60.0, max_examples=200, planned=planned)
    assert found.witness is not None
    entry, args, _, first, second, _ = found.witness
    assert (entry.callee, args, first.value, second.value) == ("shipping", ([100],), 1, 2)
    assert found.shrunk > 0


def test_public_only_keeps_the_private_helper_out_of_the_planned_calls():
    module = loaded(LIMITS, "limits_public")
    own = Entry(callee="_weight", module="limits", function=module._weight, strategy=None)
    caller = Entry(callee="shipping", module="limits", function=module.shipping, strategy=None)
    planned = plan(own, [((5,), {})], [(caller, [(([5],), {})])], site_of(LIMITS, mutated(8, ">", ">=")),
                   public_only=True)
    assert planned and all(p.entry is caller for p in planned)


def test_a_method_receiver_is_never_replaced():
    """`self` stays the object the suite built; only plain values move to the boundary."""

    class Shelf(list):
        def fits(self, n):
            return n > 3

    site = site_of("def fits(self, n):\n    return n > 3\n", "def fits(self, n):\n    return n >= 3\n")
    shelf = Shelf([1])
    made = list(candidates(Shelf.fits, [((shelf, 1), {})], site, as_recorded=False))
    assert made and all(c.args[0] is shelf for c in made)
    assert (shelf, 3) in [c.args for c in made]


def test_fitting_values_keep_the_arguments_type():
    assert fitting(5, [100, 2.5, "x"]) == [100]
    assert fitting(5.0, [100]) == [100.0]
    # One item on the boundary, or (for a small count: a `len(xs) > 3`) that many items.
    assert fitting([5, 500], [3]) == [[3, 500], [5, 3], [5, 500, 5]]
    assert fitting([5, 500], [100]) == [[100, 500], [5, 100]]


def test_shrinking_leaves_file_names_whole():
    """A path the suite built, cut short, names another file: the witness keeps it."""
    assert simpler("/tmp/data/t.json") == []
    assert simpler("abc") == ["", "a"]
    assert simpler([3, 4]) == [[], [4], [3]]


def test_a_result_that_should_be_none_is_asserted_as_none():
    """`to_yaml(filename=...)` returns None and writes the file; a mutant returning the text instead
    is caught by `result is None` (NoneType is no name a test can import)."""
    source = suggested_test(module="limits", callee="dump", args=("u",), kwargs={}, expected=None,
                            mutant_id="m1", operator="toy", retyped="{type}")
    assert "    assert result is None\n" in source
