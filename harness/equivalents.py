"""The reviewed list of equivalent mutants: `equivalent-mutants.toml` at the project root
(or where `[tool.bugsmith] equivalents` says).

    [[mutant]]
    id = "ab12cd34"
    reason = "why no input can tell this mutant from the original"

A listed mutant is not run; it is reported as equivalent with its reason.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from bugsmith.errors import ConfigError


def load(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: `mutant` must be an array of tables ([[mutant]] entries)")
    reasons: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("id") or not entry.get("reason"):
            raise ConfigError(f"{path}: every [[mutant]] needs an id and a reason")
        reasons[str(entry["id"])] = str(entry["reason"])
    return reasons
