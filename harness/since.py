"""`--since REF`: the lines changed since a git ref, so CI on a pull request tests only those."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bugsmith.errors import ConfigError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def changed_lines(root: Path, ref: str, files: list[str]) -> dict[str, set[int] | None]:
    """Changed line numbers per file (None: the whole file is new to git), for a `ref` that
    `check_ref` accepted (the run checks it before it starts: outside a repository every file
    would look new, and the run would silently test everything)."""
    changed: dict[str, set[int] | None] = {}
    for file in files:
        tracked = _git(root, "ls-files", "--error-unmatch", "--", file, check=False)
        if tracked is None:
            changed[file] = None
            continue
        diff = _git(root, "diff", "--unified=0", ref, "--", file)
        lines: set[int] = set()
        for match in _HUNK.finditer(diff or ""):
            start, count = int(match.group(1)), int(match.group(2) or 1)
            lines.update(range(start, start + count))
        changed[file] = lines
    return changed


def check_ref(root: Path, ref: str) -> None:
    """ConfigError unless `ref` names a commit of the git repository `root` is in."""
    if _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False) is None:
        inside = _git(root, "rev-parse", "--is-inside-work-tree", check=False) is not None
        raise ConfigError(f"--since: {ref!r} names no commit of the git repository here" if inside
                          else f"--since: {root} is not in a git repository")


def _git(root: Path, *args: str, check: bool = True) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise ConfigError("--since needs git, which is not installed") from None
    if done.returncode != 0:
        if not check:
            return None
        message = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise ConfigError(f"--since: {message}")
    return done.stdout
