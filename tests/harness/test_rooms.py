"""The harness's two rooms stay apart: the child side (harness/child/, code that runs in the
interpreters the coordinator starts) and the coordinator side share only the protocol leaves."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "harness"
# Imported by both sides; they import nothing else of the harness but each other.
SHARED = {"bugsmith.harness.protocol", "bugsmith.harness.tasks", "bugsmith.harness.interpreter",
          "bugsmith.harness.tool_state", "bugsmith.harness.sandbox",
          # the zygote's requests and answers, and the process marks a forked worker rewrites
          "bugsmith.harness.zygote", "bugsmith.harness.leftovers",
          # the preloader's requests, its socket's name, and how a pool reaches it
          "bugsmith.harness.preload"}


def _imports(path: Path) -> set[str]:
    """Every bugsmith module `path` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bugsmith"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("bugsmith"))
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(HARNESS).with_suffix("").parts
    return ".".join(("bugsmith", "harness", *(p for p in parts if p != "__init__")))


def _harness_modules(names: set[str]) -> set[str]:
    """Names that are modules or packages of the harness (not names imported from one)."""
    modules = {_module(path) for path in HARNESS.rglob("*.py")}
    return {name for name in names if name in modules and name != "bugsmith.harness"}


CHILD = sorted((HARNESS / "child").rglob("*.py"))
COORDINATOR = sorted(p for p in HARNESS.rglob("*.py") if "child" not in p.relative_to(HARNESS).parts)


@pytest.mark.parametrize("path", CHILD, ids=lambda p: str(p.relative_to(HARNESS)))
def test_the_child_side_imports_only_itself_and_the_shared_leaves(path: Path) -> None:
    """A child interpreter must not load the coordinator (the store, libcst's pipeline, reports)."""
    outside = {m for m in _harness_modules(_imports(path))
               if not m.startswith("bugsmith.harness.child") and m not in SHARED}
    assert outside == set()


@pytest.mark.parametrize("path", COORDINATOR, ids=lambda p: str(p.relative_to(HARNESS)))
def test_the_coordinator_never_imports_the_child_side(path: Path) -> None:
    """The coordinator only names child modules in the commands it starts."""
    assert {m for m in _imports(path) if m.startswith("bugsmith.harness.child")} == set()


@pytest.mark.parametrize("module", sorted(SHARED))
def test_the_shared_leaves_import_only_each_other(module: str) -> None:
    path = HARNESS / (module.removeprefix("bugsmith.harness.") + ".py")
    assert _harness_modules(_imports(path)) <= SHARED


def test_the_worker_core_does_not_import_triage() -> None:
    """Triage's probe is plugged in by kind (harness.child.worker.HANDLERS), imported on demand."""
    core = _imports(HARNESS / "child" / "worker.py")
    assert not {m for m in core if ".triage" in m}
