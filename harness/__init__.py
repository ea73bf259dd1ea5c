"""Run test suites against mutants, score them, report, and build exercises.

The library API: `bugsmith.harness.run(options) -> RunResult`, with options from
`bugsmith.harness.config.resolve(...)`.
"""

from typing import Any

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    # Lazy, so that the worker and helper interpreters (`python -m bugsmith.harness.child.worker`)
    # do not import the whole pipeline.
    if name == "run":
        from bugsmith.harness.runner import run

        return run
    raise AttributeError(name)
