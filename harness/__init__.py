"""Run test suites against mutants, score them, report, and build exercises.

The library API: `bugsmith.harness.run(options) -> RunResult`, with options from
`bugsmith.harness.config.resolve(...)`.

Two rooms: this package is the coordinator (plans, stores, scores and reports, and runs jobs
on an Executor, harness.executors.base); `harness.child` is everything that runs inside the
interpreters the coordinator starts. They share only harness.shared.protocol, harness.shared.tasks,
harness.shared.interpreter and harness.shared.tool_state.
"""

from typing import Any

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    # Lazy, so that the worker and helper interpreters (`python -m bugsmith.harness.child.worker`)
    # do not import the whole pipeline.
    # The run's package is `mutation_run`, not `run`: importing a package `bugsmith.harness.run`
    # would make this module's attribute `run` that package, hiding the function.
    if name == "run":
        from bugsmith.harness.mutation_run import run

        return run
    raise AttributeError(name)
