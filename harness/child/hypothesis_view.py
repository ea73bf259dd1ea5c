"""Hypothesis behaves in bugsmith's processes as under plain pytest on the mutant.

Two things differ unless this plugin steps in:

- What a test draws. Hypothesis (6.131 and later) mixes constants from every "local" module in
  `sys.modules` (a file outside site-packages and the standard library) into the values it
  generates, so what a seeded (derandomized) test draws depends on which modules are loaded.
  Where bugsmith runs from a checkout or an editable install, its own modules are local, and
  plain pytest never loads them: in pyrsistent's stateful test the same seed drew other rules
  in a worker than under plain pytest, and a mutant that plain pytest lets survive was killed
  (benchmarks/README.md). Before each test this plugin marks bugsmith's modules as already
  scanned, so their constants never join the pool; the project's own modules (also when the
  project is bugsmith) still do.
- What a test replays. Hypothesis saves each failing example in its example database
  (harness.shared.tool_state points the default one under `.bugsmith/`) and replays it first the next
  time the test runs. A process that tests a mutant sees the database read-only, as the
  baseline (the unmutated suite) left it: it replays what is there, as plain pytest on a
  checkout replays the project's saved examples, but saves, moves and deletes nothing. Else the
  example a test failed on under mutant A was replayed against mutant B, which could be killed
  by it where plain pytest lets it survive, and a verdict depended on the order mutants ran in.
  `settings.database` itself hands out hypothesis' ReadOnlyDatabase over whatever the settings
  pick (the default directory, a profile's `database=`, a test's own `@settings(database=...)`;
  None stays None), so no test can get past it. The baseline keeps its writable database.
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import Any

import pytest

# Where hypothesis keeps the modules it has scanned for constants: a private name, so a version
# without it (older, or changed) is left alone.
_PROVIDERS = "hypothesis.internal.conjecture.providers"
# Hypothesis' settings class; loaded with hypothesis, and only then is there a database to guard.
_SETTINGS = "hypothesis._settings"
# Where a settings object keeps its read-only view: (the database it wraps, the view).
_VIEW = "_bugsmith_read_only_database"


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


class ReadOnlyExamples:
    """The getter of hypothesis' `settings.database` property, put in its place: the database
    hypothesis' own getter resolves, behind a ReadOnlyDatabase while `on`.

    Every use of the database in hypothesis goes through that property (the engine's replay,
    save, move and delete; `fuzz_one_input`), whichever settings object it is read from, so
    replacing it once covers them all. A settings object keeps its view, so that
    `s.database is s.database` holds as it does in hypothesis (except for the bare default
    settings, which resolve the default directory anew at each read, and get a new view)."""

    def __init__(self, resolve: property, read_only: type) -> None:
        self.resolve = resolve  # hypothesis' own property
        self.read_only = read_only  # hypothesis.database.ReadOnlyDatabase
        self.on = True

    def __call__(self, chosen: Any) -> Any:
        database = self.resolve.__get__(chosen, type(chosen))
        if database is None or not self.on or isinstance(database, self.read_only):
            return database
        held = vars(chosen).get(_VIEW)
        if held is not None and held[0] is database:
            return held[1]
        view = self.read_only(database)
        vars(chosen)[_VIEW] = (database, view)
        return view


def read_only_examples() -> ReadOnlyExamples | None:
    """Put ReadOnlyExamples in place of hypothesis' `settings.database` (once per process: it
    stays, and a later call returns it) and switch it on; None when hypothesis is not loaded
    or its settings have no such property (an unknown version, left alone)."""
    if _SETTINGS not in sys.modules:
        return None
    from hypothesis import settings
    from hypothesis.database import ReadOnlyDatabase

    current = inspect.getattr_static(settings, "database", None)
    if not isinstance(current, property) or current.fget is None:
        return None
    if isinstance(current.fget, ReadOnlyExamples):
        guard = current.fget
    else:
        guard = ReadOnlyExamples(current, ReadOnlyDatabase)
        # type's own setattr: hypothesis' metaclass refuses to set a setting on the class.
        type.__setattr__(settings, "database", property(guard, doc=current.__doc__))
    guard.on = True
    return guard


class HypothesisSeesTheProject:
    """A pytest plugin for every process that runs the user's tests.

    It marks bugsmith's modules before hypothesis' own plugin scans the loaded modules (at the
    end of collection), and again before each test when modules were imported since
    (hypothesis scans at each test input). With `read_only` (a process that tests mutants) it
    makes the example database read-only as soon as hypothesis is loaded; a fork server
    switches that off for the children that run the baseline (`before_fork`)."""

    def __init__(self, *projects: str | Path, read_only: bool) -> None:
        self.projects = projects
        self.modules = -1  # len(sys.modules) when last marked: hypothesis' own cheap check
        self.read_only = read_only
        self.examples: ReadOnlyExamples | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self) -> None:
        self._mark()
        self._guard()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self) -> None:
        self._mark()
        self._guard()  # hypothesis first imported by a test, after collection

    def before_fork(self, *, baseline: bool = False) -> None:
        """In a fork server, before each fork: mark what the server imported since, and let
        hypothesis scan the loaded modules here, once, where the children would each do it at
        their first input. Either walk touches every module object, and in a forked child every
        touched page is copied: done in each child, it doubled the faults of a job. The scan
        finds nothing plain pytest would not: the project's modules were loaded at collection,
        and what the server added since is bugsmith's (marked), the standard library's or
        site-packages'.

        The example database is made read-only here too, once, and the switch set for the
        child about to be forked: writable for a `baseline` chunk, read-only for anything else.
        The child only reads the switch."""
        self._mark()
        scan = getattr(sys.modules.get(_PROVIDERS), "_get_local_constants", None)
        if callable(scan):
            scan()  # returns at once when sys.modules kept its length since its last scan
        self.read_only = not baseline
        self._guard()
        if self.examples is not None and self.examples.on != self.read_only:
            self.examples.on = self.read_only

    def _mark(self) -> None:
        if len(sys.modules) != self.modules:
            hide_own_modules(*self.projects)
            self.modules = len(sys.modules)

    def _guard(self) -> None:
        if self.read_only and self.examples is None:
            self.examples = read_only_examples()
