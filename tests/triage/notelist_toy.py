"""A list subclass with a frozen mode, like python-box's BoxList, and a suite that leaves three of
its guards' removals alive: two equivalent, one a real gap."""

from __future__ import annotations

import textwrap
from pathlib import Path

NOTELIST = '''\
class Frozen(Exception):
    """Raised by every change to a frozen NoteList."""


def _refuse(*args, **kwargs):
    raise Frozen("the list is frozen")


class NoteList(list):
    """A list that keeps a note per position and can be frozen."""

    def __init__(self, items=(), frozen=False):
        super().__init__(items)
        self.frozen = frozen
        if frozen:
            for name in ("extend", "sort"):
                setattr(self, name, _refuse)

    def __iadd__(self, items):
        if self.frozen:
            raise Frozen("the list is frozen")
        self.extend(items)
        return self

    def sort(self, *, reverse=False):
        if not self.__dict__.get("notes"):
            return super().sort(reverse=reverse)
        moved = sorted(range(len(self)), key=lambda i: list.__getitem__(self, i), reverse=reverse)
        super().sort(reverse=reverse)
        notes = self.__dict__.get("notes") or {}
        if notes:
            self.__dict__["notes"] = {moved.index(i): note for i, note in notes.items()}

    def note(self, index, text):
        if self.frozen:
            raise Frozen("the list is frozen")
        self.__dict__.setdefault("notes", {})[index] = text

    def nth(self, index, default=None):
        if index >= len(self):
            return default
        return list.__getitem__(self, index)
'''

TESTS = '''\
import pytest

from notes.notelist import Frozen, NoteList


def test_iadd_appends():
    items = NoteList([1])
    items += [2]
    assert items == [1, 2]


def test_a_frozen_list_refuses_iadd():
    frozen = NoteList([1], frozen=True)
    with pytest.raises(Frozen):
        frozen += [2]


def test_sort_keeps_notes_with_their_items():
    items = NoteList([3, 1, 2])
    items.note(0, "three")
    items.sort()
    assert items == [1, 2, 3] and items.notes == {2: "three"}


def test_sort_without_notes():
    items = NoteList([3, 1, 2])
    items.sort()
    assert items == [1, 2, 3]


def test_a_frozen_list_refuses_notes():
    with pytest.raises(Frozen):
        NoteList([1], frozen=True).note(0, "x")


def test_nth():
    assert NoteList([1, 2]).nth(0) == 1
'''

# The line of each surviving guard removal, by what it is.
IADD_GUARD = 20  # a frozen list's extend raises the same Frozen: equivalent
SORT_GUARD = 26  # with no notes the long way sorts alike: equivalent
NTH_GUARD = 40  # nth(2) of a two-item list raises IndexError instead of returning the default


def write_module(folder: Path) -> Path:
    """`notes/notelist.py` under `folder` (a package), for importing it in this process."""
    (folder / "notes").mkdir(parents=True, exist_ok=True)
    (folder / "notes" / "__init__.py").write_text("")
    (folder / "notes" / "notelist.py").write_text(NOTELIST)
    return folder


def make_project(tmp_path: Path) -> Path:
    """The package, its suite and `[tool.bugsmith]` under tmp_path; return the root."""
    root = write_module(tmp_path / "proj")
    (root / "tests").mkdir()
    (root / "tests" / "test_notelist.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.bugsmith]
        paths = ["notes"]
        tests = ["tests"]
        jobs = 1
        '''))
    return root
