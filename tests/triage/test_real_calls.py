"""Methods are called on instances of their own class (issue 44, item 3): the search never puts a
plain list in place of `self`, an error the interpreter raises on a wrong type is no refusal, and
a drafted test builds its instance with the class's constructor."""

from __future__ import annotations

import importlib
import sys

import pytest
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample
from notelist_toy import IADD_GUARD, NTH_GUARD, SORT_GUARD, make_project, write_module

from bugsmith import harness
from bugsmith.harness.child.triage.calls import call, difference
from bugsmith.harness.child.triage.construction import construction
from bugsmith.harness.child.triage.search import like
from bugsmith.harness.child.triage.suggest import suggested_test
from bugsmith.harness.child.triage.values import NotLiteral, literal
from bugsmith.harness.config import resolve
from bugsmith.harness.triage import Classification, TriageOptions, triage
from bugsmith.mutators.families.beyond.deletions import RemoveGuard

FEW = settings(max_examples=200, database=None, deadline=None)


@pytest.fixture
def notelist(tmp_path, monkeypatch):
    """The toy module, imported from a folder of its own."""
    monkeypatch.syspath_prepend(str(write_module(tmp_path)))
    for name in ("notes", "notes.notelist"):
        sys.modules.pop(name, None)
    yield importlib.import_module("notes.notelist")
    for name in ("notes", "notes.notelist"):
        sys.modules.pop(name, None)


def test_the_search_never_draws_another_type_for_a_subclass_instance(notelist):
    """Around a NoteList the suite built, every draw is that NoteList: never a plain list."""
    built = notelist.NoteList([1, 2], frozen=True)
    with pytest.raises(NoSuchExample):
        find(like(built), lambda drawn: type(drawn) is not notelist.NoteList, settings=FEW)
    with pytest.raises(NoSuchExample):
        find(like((built, 3)), lambda drawn: type(drawn[0]) is not notelist.NoteList, settings=FEW)


def test_built_in_values_are_still_varied():
    """A plain list and int of the suite's call are perturbed as before."""
    assert len(find(like([1, 2]), lambda drawn: len(drawn) != 2, settings=FEW)) in (0, 1, 3, 4)
    assert find(like(5), lambda drawn: drawn != 5, settings=FEW) != 5


def test_an_error_the_interpreter_raises_is_not_a_refusal(notelist):
    """`NoteList.sort` on a plain list fails with an AttributeError inside the code: no `raise`
    of its own, so the input is not a valid one (it was "undertested" with a type confusion)."""
    files = frozenset({notelist.__file__})
    confused = call(notelist.NoteList.sort, ([3, 1],), {}, files=files)
    assert confused.exception == "AttributeError" and not confused.valid
    refused = call(notelist.NoteList.note, (notelist.NoteList([1], frozen=True), 0, "x"), {}, files=files)
    assert refused.exception == "Frozen" and refused.deliberate and refused.raised_from == "notes.notelist"


def test_a_subclass_instance_has_no_plain_literal(notelist):
    """Written as `[1, 2]`, a NoteList would be a list in the test: no source instead."""
    with pytest.raises(NotLiteral):
        literal(notelist.NoteList([1, 2]))


def test_an_instance_is_built_by_its_constructor(notelist):
    """The constructor call passes the items and the parameters the object keeps; it is checked."""
    assert construction(notelist.NoteList([3, 1], frozen=True), "NoteList") == "NoteList([3, 1], frozen=True)"
    assert construction(notelist.NoteList([3, 1]), "NoteList") == "NoteList([3, 1])"
    noted = notelist.NoteList([3, 1])
    noted.note(0, "x")  # a note no constructor argument sets: no call rebuilds it
    with pytest.raises(NotLiteral):
        construction(noted, "NoteList")


def run_drafted(source: str, name: str) -> None:
    namespace: dict = {}
    exec(compile(source, "<drafted>", "exec"), namespace)
    namespace[name]()


def test_a_drafted_method_test_calls_the_method_on_a_built_instance(notelist):
    """The drafted test builds `obj = NoteList(...)` and calls `obj.nth(...)`; it passes on the
    original and fails when the guard is gone."""
    source = suggested_test(module="notes.notelist", callee="NoteList.nth", args=(notelist.NoteList([1, 2]), 2),
                            kwargs={}, expected=None, mutant_id="abc", operator="toy")
    assert "    obj = NoteList([1, 2])\n    result = obj.nth(2)\n" in source
    run_drafted(source, "test_notelist_nth_catches_abc")
    notelist.NoteList.nth = lambda self, index, default=None: list.__getitem__(self, index)
    with pytest.raises(IndexError):
        run_drafted(source, "test_notelist_nth_catches_abc")


def test_an_in_place_difference_is_asserted_on_the_argument(notelist):
    """When both return None, the test asserts the instance's state where the mutant leaves it
    different, not the two equal results."""
    before, after = notelist.NoteList([3, 1, 2]), notelist.NoteList([1, 2, 3])
    source = suggested_test(module="notes.notelist", callee="NoteList.sort", args=(before,), kwargs={},
                            expected=None, mutant_id="abc", operator="toy", changed="[0][0][0]",
                            after=((after,), {}))
    assert "    obj.sort()\n    expected = 1\n    assert obj[0] == expected\n" in source
    run_drafted(source, "test_notelist_sort_catches_abc")
    notelist.NoteList.sort = lambda self, reverse=False: list.sort(self, reverse=True)
    with pytest.raises(AssertionError):
        run_drafted(source, "test_notelist_sort_catches_abc")


def test_a_refusal_by_a_project_exception_imports_it(notelist):
    """`pytest.raises(Frozen)` with `from notes.notelist import Frozen`, not a refusal to draft."""
    source = suggested_test(module="notes.notelist", callee="NoteList.note",
                            args=(notelist.NoteList([1], frozen=True), 0, "x"), kwargs={}, expected=None,
                            mutant_id="abc", operator="toy", raises=("Frozen", "the list is frozen"),
                            raised_from="notes.notelist")
    assert "from notes.notelist import Frozen" in source and "pytest.raises(Frozen" in source
    run_drafted(source, "test_notelist_note_catches_abc")


def test_a_type_confused_difference_is_no_difference(notelist):
    """The issue's BoxList.sort case: on a plain list the original and the guardless mutant fail
    differently, which used to make an "undertested" finding; neither failure is a refusal."""
    files = frozenset({notelist.__file__})

    def guardless(self, *, reverse=False):
        moved = sorted(range(len(self)), key=lambda i: list.__getitem__(self, i), reverse=reverse)
        super(notelist.NoteList, self).sort(reverse=reverse)
        return moved

    first = call(notelist.NoteList.sort, ([3, 1],), {}, files=files)
    assert difference(first, call(guardless, ([3, 1],), {}, files=files)) is None


@pytest.mark.slow
def test_guards_of_a_frozen_list_subclass_are_triaged_on_real_instances(tmp_path):
    """Two equivalent guard removals stay possibly equivalent; the real gap gets a verified test
    that builds a NoteList and calls the method on it."""
    root = make_project(tmp_path)
    result = harness.run(resolve(root), mutators=(RemoveGuard(),))
    survivors = {m.span.line: m.id for m in result.mutants
                 if any(o.mutant_id == m.id and o.status.value == "survived" for o in result.outcomes)}
    assert set(survivors) == {IADD_GUARD, SORT_GUARD, NTH_GUARD}
    found = {f.mutant_id: f for f in triage(resolve(root), settings=TriageOptions(search_seconds=120.0,
                                                                                  max_examples=100)).findings}
    for line in (IADD_GUARD, SORT_GUARD):
        assert found[survivors[line]].classification is Classification.POSSIBLY_EQUIVALENT, found[survivors[line]]
    gap = found[survivors[NTH_GUARD]]
    assert gap.classification is Classification.UNDERTESTED and gap.verified, gap
    assert "obj = NoteList([1, 2])" in gap.suggested_test and "obj.nth(" in gap.suggested_test
    assert "Error" not in gap.suggested_test
