"""What a zygote may leave to the preloader (harness.shared.preload): the modules a preloader
may import for the next run's zygote, and what the suite's start-up changed.

A module is preloaded when the zygote had imported it from outside the project and its copy,
and it is not part of pytest, bugsmith or a pytest plugin (pytest marks a plugin's modules for
assertion rewriting as it loads them, and warns about one imported before).
"""

from __future__ import annotations

import os
import sys
import types

import pytest

from bugsmith.harness.shared.protocol import WorkerSetup

# Imported by every worker before it reads its setup, or bugsmith's own: nothing to gain.
NEVER = frozenset({"__main__", "bugsmith", "pytest", "_pytest", "pluggy", "coverage", "py"})
PYTEST_SETS = frozenset({"PYTEST_VERSION", "PYTEST_CURRENT_TEST"})  # while pytest.main runs


def preloadable(setup: WorkerSetup, config: pytest.Config) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The modules this process (a zygote that has collected) imported that a preloader may
    import for the next run's zygote, in the order they were imported; and the top-level names
    of the pytest plugins, which it must not import, even through another module."""
    inside = Project(setup.root, setup.project)
    plugins = {name.partition(".")[0] for name in getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", ())}
    plugins.update(plugin.__name__.partition(".")[0] for plugin in config.pluginmanager.get_plugins()
                   if isinstance(plugin, types.ModuleType))
    plugins -= NEVER
    names = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        top = name.partition(".")[0]
        if (top in plugins or top in NEVER or not isinstance(file, str) or not os.path.isabs(file)
                or inside.holds(file) or getattr(module, "__name__", None) != name):
            continue
        names.append(name)
    return tuple(names), tuple(sorted(plugins))


class Project:
    """Where a project's own modules are: its folder and its copy, but a virtual environment
    kept in it (uv's and Poetry's `.venv`) holds installed packages."""

    def __init__(self, *folders: str) -> None:
        self.folders = tuple({os.path.join(path, "") for folder in folders if folder
                              for path in (folder, os.path.realpath(folder))})
        self.environment = tuple({os.path.join(path, "") for prefix in (sys.prefix, sys.exec_prefix)
                                  for path in (prefix, os.path.realpath(prefix))})

    def holds(self, file: str) -> bool:
        return file.startswith(self.folders) and not file.startswith(self.environment)


def outgrown(modules: tuple[str, ...], preloaded: frozenset[str] | None) -> bool:
    """Whether a zygote a preloader forked with the modules `preloaded` (None: a zygote started
    afresh) imported `modules` the preloader could have: the next preloader should hold them too."""
    return preloaded is not None and any(name not in preloaded for name in modules)


def startup_changes(launched: dict[str, str]) -> dict[str, str | None]:
    """The variables the suite's start-up set or removed (None) since the zygote started, but
    those pytest itself sets while it runs."""
    names = (set(launched) | set(os.environ)) - PYTEST_SETS
    return {name: os.environ.get(name) for name in sorted(names) if os.environ.get(name) != launched.get(name)}
