"""A submission that rewrites a problem's whole package: the independent rewrite in tests/contract/rewrites.

The rewrites split the code into modules of their own names; a submission must keep the file
names of the code it was handed (the grader reads the file with the bug), so each rewrite
module takes the name of the reference module it replaces (the rewrite's `renamed.toml`
says which), and its imports follow.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from bugsmith.harness.exercises.sources.catalogue import reference_names

REPO = Path(__file__).resolve().parents[2]
REWRITES = REPO / "tests" / "contract" / "rewrites"
RENAMED_FILE = "renamed.toml"  # in each rewrite's folder: rewrite module = "the reference module it replaces"


def graded_problems(root: Path = REPO) -> list[str]:
    """The problems a rewrite is graded on: every problem of the corpus under `root` (each has
    its rewrite and its `renamed.toml`, which tests/contract/test_rewrites.py holds to)."""
    return reference_names(root)


def renamed(problem: str) -> dict[str, str]:
    """Each module of `problem`'s rewrite -> the reference module whose file name it takes."""
    return tomllib.loads((REWRITES / problem / RENAMED_FILE).read_text(encoding="utf-8"))


def rewrite_submission(folder: Path, problem: str) -> Path:
    """Replace the code of `problem` in the submission `folder` (laid out as handed out: the
    package `<problem>/`) by its independent rewrite."""
    package = folder / problem
    names = renamed(problem)
    for path in package.glob("*.py"):
        if path.name != "strategies.py":  # the suite's input generators are the pack's, not code
            path.unlink()
    for path in sorted((REWRITES / problem).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for old, new in names.items():
            text = text.replace(f"from .{old} import", f"from .{new} import")
        (package / f"{names.get(path.stem, path.stem)}.py").write_text(text, encoding="utf-8")
    return folder
