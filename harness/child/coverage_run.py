"""The child half of the baseline: the suite under coverage, with one coverage context per test.

In a fork-server worker (harness.child.worker) coverage is set up once and each chunk of tests
runs under it in a forked child (`ready_coverage`, `run_with_coverage`). Executors without a
fork server run the whole suite once in a fresh interpreter instead:
`python -m bugsmith.harness.child.coverage_run`. The coordinator half is harness.baseline.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import coverage
import pytest

from bugsmith.harness.child.recorder import Recorder
from bugsmith.harness.child.session import CollectErrors, enter_project, protocol_streams
from bugsmith.harness.interpreter import SuiteCoverage
from bugsmith.harness.protocol import TestResult, WorkerSetup, receive, send
from bugsmith.harness.tasks import Coverage
from bugsmith.harness.tool_state import StateOutsideTheTree


class _Contexts:
    """Name coverage's dynamic context after the running test, so lines map to tests."""

    def __init__(self, cov: coverage.Coverage) -> None:
        self.cov = cov
        self.collected: list[pytest.Item] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = list(session.items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self.cov.switch_context(item.nodeid)
        yield
        self.cov.switch_context("")


def _collect_in_this_process(setup: WorkerSetup) -> SuiteCoverage:
    sources = frozenset(setup.sources)
    cov = coverage.Coverage(data_file=None, include=list(sources), config_file=False)
    recorder = Recorder(sources)
    contexts = _Contexts(cov)
    errors = CollectErrors()
    cov.start()
    try:
        code = pytest.main(
            [*setup.pytest_args, "-q", "-p", "no:cacheprovider", *setup.test_paths],
            plugins=[recorder, contexts, errors, StateOutsideTheTree(setup.project)],
        )
    finally:
        cov.stop()
    return SuiteCoverage(
        exit_code=int(code),
        collect_errors=tuple(errors.errors),
        tests=tuple((item.nodeid, item.location[0], recorder.durations.get(item.nodeid, 0.0))
                    for item in contexts.collected),
        failed=tuple(r for r in recorder.results.values() if r.outcome == "failed"),
        coverage=_lines_by_test(cov, setup.root),
    )


def ready_coverage(setup: WorkerSetup) -> coverage.Coverage:
    """A Coverage for the files under mutation, started and stopped once in the fork server.

    Its first start works out which files to trace (some 45 ms with scientific libraries
    loaded); started again in a forked child, it only installs its tracer (0.3 ms).
    """
    cov = coverage.Coverage(data_file=None, include=list(setup.sources), config_file=False)
    cov.start()
    cov.stop()
    return cov


def run_with_coverage(items: Sequence[pytest.Item], recorder: Recorder, cov: coverage.Coverage, root: str,
                      report: Callable[[TestResult], None]) -> tuple[tuple[TestResult, ...], Coverage]:
    """Run `items` under `cov` (from `ready_coverage`, in a forked worker child) with one
    context per test: report each test's result as it ends; return the results and the lines
    each test ran."""
    results = []
    cov.start()
    try:
        for position, item in enumerate(items):
            cov.switch_context(item.nodeid)
            following = items[position + 1] if position + 1 < len(items) else None
            item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
            cov.switch_context("")
            result = recorder.results.get(item.nodeid)
            if result is not None:
                results.append(result)
                report(result)
    finally:
        cov.stop()
    return tuple(results), _lines_by_test(cov, root)


def _lines_by_test(cov: coverage.Coverage, root: str) -> Coverage:
    data = cov.get_data()
    found = {}
    for path in data.measured_files():
        by_line = {n: tuple(c for c in contexts if c) for n, contexts in data.contexts_by_lineno(path).items()}
        found[os.path.relpath(path, root)] = {n: ids for n, ids in by_line.items() if ids}
    return Coverage(lines=found)


def main() -> int:
    reader, writer = protocol_streams()
    setup = receive(reader, WorkerSetup.from_dict)
    if setup is None:
        return 1  # the coordinator went away before it asked anything
    enter_project(setup)
    send(writer, _collect_in_this_process(setup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
