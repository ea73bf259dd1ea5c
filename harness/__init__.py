"""Run test suites against mutants, score them, report, and build exercises.

The library API: `harness.run(options) -> RunResult`, with options from
`harness.config.resolve(...)`.
"""

from typing import Any

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `python -m harness.worker` and `mutators` (which use harness.errors) do
    # not import the whole pipeline.
    if name == "run":
        from harness.runner import run

        return run
    raise AttributeError(name)
