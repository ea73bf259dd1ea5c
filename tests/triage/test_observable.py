"""Results compare as a test could observe them (issue 44, item 5): no processes.

Each case below was, or would have been, a false "unasserted" or "undertested" finding: two
results that no test can tell apart, reported as a difference.
"""

from __future__ import annotations

import copy
import datetime
import itertools
import pathlib

from bugsmith.harness.child.triage.calls import Result, call, difference
from bugsmith.harness.child.triage.observable import differing_paths, first_difference, same, without_addresses


class Token:
    """An object that hashes by identity and prints its address, as most objects do."""

    def __init__(self, name):
        self.name = name


class Ledger(list):
    """A list subclass with a frozen mode and its own `__deepcopy__`, like python-box's BoxList."""

    def __init__(self, items=(), frozen=False):
        super().__init__(items)
        self.frozen = frozen

    def __deepcopy__(self, memo):
        out = Ledger(frozen=self.frozen)
        memo[id(self)] = out
        for item in self:
            out.append(copy.deepcopy(item, memo))
        return out


def test_a_memo_compares_by_its_values_not_its_address_keys():
    """Two deep copies fill their memos under ids (of the memo itself, among others): the keys
    are addresses no test can predict, so the memos agree when what they hold agrees."""
    original = Ledger([{"a": 1}, [2]])
    first, second = {}, {}
    copy.deepcopy(original, first)
    copy.deepcopy(original, second)
    assert first.keys() != second.keys()  # the ids really do differ
    assert same(first, second)


def test_the_memo_a_deepcopy_fills_is_not_its_behaviour():
    """`memo = memo or {}` leaves an empty memo of the caller's empty; without it the caller's is
    filled: the copy is the same, and the copy protocol's bookkeeping is no behaviour to test."""

    def fills(self, memo):
        memo[id(self)] = out = Ledger(list(self), frozen=self.frozen)
        return out

    def keeps(self, memo):
        return fills(self, memo or {})

    fills.__name__ = keeps.__name__ = "__deepcopy__"
    original = Ledger([1, 2])
    assert difference(call(keeps, (original, {}), {}), call(fills, (original, {}), {})) is None
    assert difference(call(keeps, (original, {}), {}), call(lambda self, memo: Ledger([1]), (original, {}), {}))


def test_an_id_keyed_dict_still_differs_by_its_values():
    """Keys that are addresses are passed over, the values they map to are not."""
    one, two = Token("x"), Token("x")
    memo_a = {id(one): "kept", id(two): "kept"}
    memo_b = {id(one): "kept", id(two): "lost"}
    found = first_difference((memo_a, [one, two]), (memo_b, [one, two]))
    assert found == "at [0].values()[1]: 'kept' != 'lost'"


def test_int_keys_that_are_not_addresses_are_compared():
    """A dict of plain numbers is not identity-keyed: other keys are another dict."""
    assert first_difference({1: "a"}, {2: "a"}) == "{1: 'a'} != {2: 'a'} (keys ['1', '2'] in one only)"


def test_addresses_inside_texts_are_not_a_difference():
    """`repr` of an object holds its address, which deep copies change; the rest of the text counts."""
    one, two = Token("x"), Token("x")
    assert repr(one) != repr(two)
    assert same(repr(one), repr(two)) and same([f"saw {one!r}"], [f"saw {two!r}"])
    assert not same(f"saw {one!r}", f"got {two!r}")
    assert without_addresses("<Token object at 0x7f3a2b1c9d00>") == "<Token object at 0x...>"


def test_sets_are_unordered_and_their_identity_hashed_elements_match_by_structure():
    """A set's order is no behaviour, and a deep copy's objects are other objects with the same
    contents: the sets agree; a set with another element does not."""
    names = ["delta", "alpha", "charlie", "bravo"]
    orders = [set(order) for order in itertools.permutations(names)]
    assert all(same(orders[0], other) for other in orders)
    tokens = {Token("a"), Token("b")}
    assert same(tokens, copy.deepcopy(tokens)) and same(frozenset(tokens), frozenset(copy.deepcopy(tokens)))
    assert not same({Token("a"), Token("b")}, {Token("a"), Token("c")})
    assert same({Token("a"): 1}, {Token("a"): 1}) and not same({Token("a"): 1}, {Token("a"): 2})


def test_a_list_drawn_from_a_set_in_another_order_is_noise_when_the_original_does_that_too():
    """`list(a_set)` of identity-hashed objects comes out in address order: the original's own
    runs disagree there, so the mutant's disagreeing there too is no evidence."""

    alive = []  # each run's objects stay alive, so the next run's get other addresses

    def listed(names):
        tokens = {Token(name) for name in names}
        alive.append(tokens)
        return [token.name for token in tokens]

    runs = [call(listed, (list("abcdefgh"),), {}) for _ in range(20)]
    first, again = runs[0], next((r for r in runs[1:] if r.value != runs[0].value), None)
    assert again is not None, "twenty sets of eight fresh objects all iterated alike"
    assert difference(first, again) is not None  # compared alone, the order looks like a change
    assert difference(first, again, again) is None


def test_timestamps_that_change_between_runs_of_the_original_are_noise():
    """A value stamped with now() differs between any two runs: only the rest of it is evidence."""

    def stamped(x):
        return {"at": datetime.datetime.now(), "value": 2 * x}

    def wrong(x):
        return {"at": datetime.datetime.now(), "value": 3 * x}

    first, mutant, again = call(stamped, (2,), {}), call(wrong, (2,), {}), call(stamped, (2,), {})
    assert first.value["at"] != again.value["at"]
    assert differing_paths(first.value, again.value) == frozenset({"['at']"})
    assert difference(first, call(stamped, (2,), {}), again) is None
    assert difference(first, mutant, again) == "returns a different value: at ['value']: 4 != 6"


def test_an_original_that_does_not_behave_alike_twice_gives_no_evidence():
    """An input on which the original returns once and raises the next time is not a fair one."""
    ok = Result(ok=True, value=1)
    refused = Result(ok=False, exception="ValueError", message="no", deliberate=True)
    assert difference(ok, Result(ok=True, value=2)) is not None
    assert difference(ok, Result(ok=True, value=2), refused) is None


def test_a_message_that_changes_by_itself_is_not_compared():
    """Only the type of a refusal counts when the original's own message changes between runs."""
    first = Result(ok=False, exception="ValueError", message="at 10:00:01", deliberate=True)
    again = Result(ok=False, exception="ValueError", message="at 10:00:02", deliberate=True)
    other = Result(ok=False, exception="ValueError", message="at 10:00:03", deliberate=True)
    assert difference(first, other) == "refuses the input with another error"
    assert difference(first, other, again) is None
    assert difference(first, Result(ok=False, exception="KeyError", message="x", deliberate=True), again) == (
        "refuses the input with another error")


class CommentedMap(dict):
    """A dict subclass that prints like a dict (ruamel.yaml's)."""


def test_a_type_difference_is_said_as_such():
    """A dict and a CommentedMap holding the same items print alike: the finding says which type
    each is, never "{'a': 1} != {'a': 1}"."""
    assert first_difference({"a": 1}, CommentedMap(a=1)) == "a CommentedMap instead of a dict"
    assert first_difference([{"a": 1}], [CommentedMap(a=1)]) == "at [0]: a CommentedMap instead of a dict"
    assert difference(call(lambda: {"a": 1}, (), {}), call(lambda: CommentedMap(a=1), (), {})) == (
        "returns a CommentedMap instead of a dict")


def test_a_container_subclass_compares_by_its_items_and_its_attributes():
    """A frozen and a thawed Ledger with the same items behave differently: the attribute counts."""
    assert same(Ledger([1, 2], frozen=True), Ledger([1, 2], frozen=True))
    assert first_difference(Ledger([1, 2], frozen=True), Ledger([1, 2])) == "at .frozen: True != False"
    assert first_difference(Ledger([1, 2]), Ledger([1, 3])) == "at [1]: 2 != 3"


class Cached:
    """Equal by its name; computes its label once and keeps it in a private attribute."""

    def __init__(self, name, note=""):
        self.name, self.note = name, note

    def __eq__(self, other):
        return isinstance(other, Cached) and self.name == other.name

    __hash__ = None

    def label(self):
        self._label = getattr(self, "_label", None) or self.name.upper()
        return self._label


def test_an_object_with_its_own_equality_is_compared_by_it_and_its_public_attributes():
    """A private cache filled in one run and not the other is no behaviour (a path's cached text);
    a public attribute that differs still is, and so is an `==` that says no."""
    used = Cached("a")
    used.label()
    assert same(used, Cached("a"))
    assert first_difference(Cached("a", note="x"), Cached("a", note="y")) == "at .note: 'x' != 'y'"
    assert not same(Cached("a"), Cached("b"))
    shown = pathlib.PurePosixPath("/data/a.yaml")
    str(shown)  # fills the path's cached text
    assert same(shown, pathlib.PurePosixPath("/data/a.yaml"))
