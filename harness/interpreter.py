"""The command line of bugsmith's own helper interpreters (workers, fresh imports, recorders)."""

from __future__ import annotations

import sys


def module_command(module: str) -> list[str]:
    """`python -P -m module`: `-P` keeps the working folder (the user's project) off
    `sys.path`, so a project package named like one of ours cannot shadow it; the helper adds
    the project root itself once bugsmith is imported."""
    return [sys.executable, "-P", "-m", module]
