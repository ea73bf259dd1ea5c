"""Imports of the project come from its private copy, however the environment finds them.

When tests run in the copy (harness.executors.project_copy), `sys.path` entries that name the project
are moved into the copy (`into_copy`), but an editable install may find a package through a
finder of its own (setuptools' `__editable___*_finder` maps `pkg` to `/project/src/pkg`).
Such a module would run from the user's tree: a mutant would not be activated in it (its
functions would not be those of the copy's files) and its `__file__` would point into the
user's tree. `CopyFinder`, first on `sys.meta_path`, asks the other finders and serves any
module they find in the project from the same path in the copy.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def into_copy(path: str, origin: str, copy: str) -> str:
    """`path` in the copy if it names something of the project (the copy lives inside it)."""
    if _inside(path, origin) and not _inside(path, copy):
        return copy + path[len(origin):]
    return path


def _in_copy_if_there(path: str, origin: str, copy: str) -> str:
    """`path` moved into the copy where the copy has it; else as it is: the copy leaves out
    what is not the project's code, e.g. a virtual environment inside the project
    (`python -m venv .venv`), whose site-packages must stay where they are."""
    moved = into_copy(path, origin, copy)
    return moved if moved == path or os.path.exists(moved) else path


class CopyFinder(importlib.abc.MetaPathFinder):
    """Finds what the next finders find, but a module of the project is loaded from the copy."""

    def __init__(self, origin: str, copy: str) -> None:
        self.origin = origin
        self.copy = copy

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - importlib's API
        if fullname.partition(".")[0] == "bugsmith":
            return None  # ours, even when the project is a checkout of bugsmith
        spec = self._next(fullname, path, target)
        if spec is None or not spec.has_location or not spec.origin:
            return spec
        moved = _in_copy_if_there(spec.origin, self.origin, self.copy)
        if moved == spec.origin:
            return spec
        locations = spec.submodule_search_locations
        return importlib.util.spec_from_file_location(
            fullname, moved,
            submodule_search_locations=None if locations is None
            else [into_copy(entry, self.origin, self.copy) for entry in locations],
        )

    def _next(self, fullname, path, target):  # noqa: ANN001, ANN202
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                return spec
        return None


def serve_from_copy(origin: str, copy: str) -> None:
    """Point this interpreter's imports of the project at the copy."""
    sys.path[:] = [_in_copy_if_there(entry, origin, copy) for entry in sys.path]
    sys.meta_path.insert(0, CopyFinder(origin, copy))
