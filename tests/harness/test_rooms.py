"""The harness's two sides stay apart: the child side (harness/child/, code that runs in the
interpreters the coordinator starts) and the coordinator share only harness/shared/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "harness"
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
SHARED = sorted((HARNESS / "shared").rglob("*.py"))
COORDINATOR = sorted(p for p in HARNESS.rglob("*.py") if p.relative_to(HARNESS).parts[0] not in ("child", "shared"))


@pytest.mark.parametrize("path", CHILD, ids=lambda p: str(p.relative_to(HARNESS)))
def test_the_child_side_imports_only_itself_and_the_shared_leaves(path: Path) -> None:
    """A child interpreter must not load the coordinator (the store, libcst's pipeline, reports)."""
    outside = {m for m in _harness_modules(_imports(path))
               if not m.startswith(("bugsmith.harness.child", "bugsmith.harness.shared"))}
    assert outside == set()


@pytest.mark.parametrize("path", COORDINATOR, ids=lambda p: str(p.relative_to(HARNESS)))
def test_the_coordinator_never_imports_the_child_side(path: Path) -> None:
    """The coordinator only names child modules in the commands it starts."""
    assert {m for m in _imports(path) if m.startswith("bugsmith.harness.child")} == set()


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(HARNESS)))
def test_the_shared_leaves_import_only_each_other(path: Path) -> None:
    """Both sides import harness/shared/, so it may import nothing else of the harness."""
    assert {m for m in _harness_modules(_imports(path)) if not m.startswith("bugsmith.harness.shared")} == set()


def test_the_worker_core_does_not_import_triage() -> None:
    """Triage's probe is plugged in by kind (harness.child.worker.HANDLERS), imported on demand."""
    core = _imports(HARNESS / "child" / "worker.py")
    assert not {m for m in core if ".triage" in m}


ARCHITECTURE = HARNESS.parent / "ARCHITECTURE.md"


def _room_table() -> dict[str, str]:
    """ARCHITECTURE.md's room table of the harness: `harness/...` path -> the row's text."""
    rows = {}
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text[text.index("\n## harness/\n"):]
    section = section[:section.index("\n## ", 1)]
    for line in section.splitlines():
        cells = line.split("|")
        if len(cells) >= 4 and cells[1].strip().startswith("`harness/"):
            rows[cells[1].strip().strip("`")] = "|".join(cells[2:])
    return rows


def _rooms() -> dict[str, list[str]]:
    """Every room of the harness: each module at its top, each package folder (with the names of
    its own modules), as ARCHITECTURE.md must name them."""
    rooms: dict[str, list[str]] = {f"harness/{p.name}": [] for p in HARNESS.glob("*.py") if p.name != "__init__.py"}
    for init in HARNESS.rglob("__init__.py"):
        folder = init.parent
        if folder != HARNESS:
            rooms[f"{folder.relative_to(HARNESS.parent).as_posix()}/"] = sorted(
                p.stem for p in folder.glob("*.py") if p.name != "__init__.py")
    return rooms


def test_the_architecture_names_every_room_and_no_other() -> None:
    """A room moved, added or removed without ARCHITECTURE.md's table following fails here."""
    assert sorted(_room_table()) == sorted(_rooms())


@pytest.mark.parametrize("room", sorted(r for r in _rooms() if r.endswith("/")))
def test_each_folder_rooms_row_names_each_of_its_modules(room: str) -> None:
    row = _room_table().get(room, "")
    assert [name for name in _rooms()[room] if f"`{name}`" not in row] == []
