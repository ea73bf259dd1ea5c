"""Hypothesis draws the same values in bugsmith's processes as under plain pytest.

Hypothesis (6.131 and later) mixes constants from every "local" module in `sys.modules` (a
file outside site-packages and the standard library) into the values it generates, so what a
seeded (derandomized) test draws depends on which modules are loaded. Where bugsmith runs from
a checkout or an editable install, its own modules are local, and plain pytest never loads
them: in pyrsistent's stateful test the same seed drew other rules in a worker than under plain
pytest, and a mutant that plain pytest lets survive was killed (benchmarks/README.md). Before
each test this plugin marks bugsmith's modules as already scanned, so their constants never
join the pool; the project's own modules (also when the project is bugsmith) still do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Where hypothesis keeps the modules it has scanned for constants: a private name, so a version
# without it (older, or changed) is left alone.
_PROVIDERS = "hypothesis.internal.conjecture.providers"


def hide_own_modules(*projects: str | Path) -> int:
    """Mark bugsmith's loaded modules, except those inside `projects` (the project and its
    private copy), as scanned by hypothesis; how many were marked (0 when hypothesis is not
    loaded or keeps no such record)."""
    seen = getattr(sys.modules.get(_PROVIDERS), "_seen_modules", None)
    if not isinstance(seen, set):
        return 0
    inside = tuple(str(Path(project).resolve()) + os.sep for project in projects)
    marked = 0
    for key, module in list(sys.modules.items()):
        # By its spec's name: the child's own `__main__` (`python -m bugsmith.harness.child...`)
        # is one of ours too, where plain pytest's is pytest's.
        name = getattr(getattr(module, "__spec__", None), "name", None) or key
        if name != "bugsmith" and not name.startswith("bugsmith."):
            continue
        if str(getattr(module, "__file__", None) or "").startswith(inside):
            continue
        seen.add(id(module))
        marked += 1
    return marked


class HypothesisSeesTheProject:
    """A pytest plugin for every process that runs the user's tests: marks bugsmith's modules
    before hypothesis' own plugin scans the loaded modules (at the end of collection), and again
    before each test when modules were imported since (hypothesis scans at each test input)."""

    def __init__(self, *projects: str | Path) -> None:
        self.projects = projects
        self.modules = -1  # len(sys.modules) when last marked: hypothesis' own cheap check

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self) -> None:
        self._mark()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self) -> None:
        self._mark()

    def before_fork(self) -> None:
        """In a fork server, before each fork: mark what the server imported since, and let
        hypothesis scan the loaded modules here, once, where the children would each do it at
        their first input. Either walk touches every module object, and in a forked child every
        touched page is copied: done in each child, it doubled the faults of a job. The scan
        finds nothing plain pytest would not: the project's modules were loaded at collection,
        and what the server added since is bugsmith's (marked), the standard library's or
        site-packages'."""
        self._mark()
        scan = getattr(sys.modules.get(_PROVIDERS), "_get_local_constants", None)
        if callable(scan):
            scan()  # returns at once when sys.modules kept its length since its last scan

    def _mark(self) -> None:
        if len(sys.modules) != self.modules:
            hide_own_modules(*self.projects)
            self.modules = len(sys.modules)
