"""Which files a run mutates: the configured paths, less tests and excluded patterns."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

from bugsmith.errors import ConfigError
from bugsmith.harness.config import DEFAULT_EXCLUDE, RunOptions


def _excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    # fnmatch's `*` crosses slashes, so "**/x" also needs the top-level form "x".
    return any(
        fnmatch(relative, pattern) or (pattern.startswith("**/") and fnmatch(relative, pattern[3:]))
        for pattern in patterns
    )


def source_files(options: RunOptions) -> list[Path]:
    """The Python files to mutate, sorted, each once."""
    patterns = DEFAULT_EXCLUDE + options.exclude
    found: set[Path] = set()
    for entry in options.paths:
        path = (options.root / entry).resolve()
        if not path.exists():
            raise ConfigError(f"no such file or directory: {path}")
        candidates = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for candidate in candidates:
            relative = candidate.relative_to(options.root.resolve()).as_posix()
            if candidate.suffix == ".py" and not _excluded(relative, patterns):
                found.add(candidate)
    return sorted(found)
