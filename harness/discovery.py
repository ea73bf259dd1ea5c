"""Which files a run mutates: the configured paths, less tests and excluded patterns."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

from bugsmith.errors import ConfigError
from bugsmith.harness.config import DEFAULT_EXCLUDE, RunOptions
from bugsmith.mutators.enumeration import Skipped


def _excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    # fnmatch's `*` crosses slashes, so "**/x" also needs the top-level form "x".
    return any(
        fnmatch(relative, pattern) or (pattern.startswith("**/") and fnmatch(relative, pattern[3:]))
        for pattern in patterns
    )


def _skip(file: str, reason: str) -> Skipped:
    return Skipped(file=file, reason=reason)


def discover(options: RunOptions) -> tuple[list[Path], list[Skipped]]:
    """The Python files to mutate (resolved, sorted, each once), and the files left out: a
    symlink that leads outside the project is not the project's code to mutate, and one bad
    link must not stop the run."""
    patterns = DEFAULT_EXCLUDE + options.exclude
    root = options.root.resolve()
    found: set[Path] = set()
    skipped: dict[str, Skipped] = {}
    for entry in options.paths:
        path = (options.root / entry).resolve()
        if not path.exists():
            raise ConfigError(f"no such file or directory: {path}")
        candidates = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for candidate in candidates:
            as_found = candidate.relative_to(root).as_posix()
            if candidate.suffix != ".py" or _excluded(as_found, patterns):
                continue
            target = candidate.resolve()
            if not target.is_relative_to(root):
                skipped[as_found] = _skip(as_found, f"a symlink to {target}, outside the project")
            elif not target.is_file():
                skipped[as_found] = _skip(as_found, "a broken symlink")
            elif not _excluded(target.relative_to(root).as_posix(), patterns):
                found.add(target)
    return sorted(found), sorted(skipped.values(), key=lambda s: s.file)


def source_files(options: RunOptions) -> list[Path]:
    """The Python files to mutate, sorted, each once."""
    return discover(options)[0]


def lines_to_mutate(options: RunOptions) -> int:
    """How many lines the files to mutate hold (unreadable files count none)."""
    total = 0
    for path in source_files(options):
        try:
            with path.open("rb") as file:
                total += sum(1 for _ in file)
        except OSError:
            continue
    return total
