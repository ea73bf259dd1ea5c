"""Run one job in a fresh interpreter: the portable mode, and the path for import-time sites.

Started as `python -m bugsmith.harness.child.isolated` (by the subprocess executor, and by a
worker's child for an import-time site), it reads one FreshRequest (harness.shared.interpreter) as a
JSON line on stdin, installs an import hook that serves the mutated module from memory, runs only the selected
tests (in the given order, stopping at the first failure, each within its time limit) and
writes one Verdict line.
"""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

import pytest

from bugsmith.harness.child import private_view, reaper
from bugsmith.harness.child.activation import install_finder
from bugsmith.harness.child.hypothesis_view import HypothesisSeesTheProject
from bugsmith.harness.child.recorder import Recorder
from bugsmith.harness.child.session import (
    CollectErrors,
    StateOutsideTheTree,
    enter_project,
    limit_memory,
    protocol_streams,
)
from bugsmith.harness.child.test_clock import OwnClock
from bugsmith.harness.shared.interpreter import FreshRequest
from bugsmith.harness.shared.protocol import Job, Note, Verdict, WorkerSetup, receive, send


class Selection(CollectErrors):
    """Keep only the selected tests, in the selected order; remember what was not found."""

    def __init__(self, tests: tuple[str, ...]) -> None:
        super().__init__()
        self.tests = tests
        self.missing: tuple[str, ...] = ()

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        by_id = {item.nodeid: item for item in items}
        self.missing = tuple(test for test in self.tests if test not in by_id)
        items[:] = [by_id[test] for test in self.tests if test in by_id]


class Watchdog:
    """Ends this interpreter when a test runs past its limit, even in C code that holds the GIL
    (faulthandler's timer is a C thread), or when start-up and collection (which import the
    mutant) run past `collect_limit`. It first names the test on the protocol stream, and
    faulthandler's "Timeout" line after it tells the parent why the verdict never came. A
    test's limit leaves out the time this process waited for a core (harness.child.test_clock)."""

    def __init__(self, job: Job, stream: BinaryIO, collect_limit: float | None = None) -> None:
        limits = job.enforced if len(job.enforced) == len(job.tests) else (job.timeout,) * len(job.tests)
        self.limits = dict(zip(job.tests, limits))
        self.stream = stream
        self.clock = OwnClock(stream)
        if collect_limit:
            self.clock.arm(collect_limit)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.clock.disarm()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        limit = self.limits.get(item.nodeid)
        if limit:
            send(self.stream, Note(running=item.nodeid))
            self.clock.arm(limit)
        try:
            yield
        finally:
            self.clock.disarm()


def run(setup: WorkerSetup, job: Job, stream: BinaryIO, collect_limit: float | None = None) -> Verdict:
    watchdog = Watchdog(job, stream, collect_limit)  # armed before the mutant is first imported
    finders = [install_finder(patch.module, patch.path, patch.source) for patch in job.patches]
    recorder = Recorder(frozenset(setup.sources))
    selection = Selection(job.tests)
    stop = ["-x"] if job.stop_on_failure else []
    arguments = [*setup.pytest_args, "-q", *stop, "-p", "no:cacheprovider", *job.test_files]
    pytest.main(arguments, plugins=[recorder, selection, watchdog, StateOutsideTheTree(setup.project),
                                   HypothesisSeesTheProject(setup.project, setup.root, read_only=True)])
    import_error = next((finder.error for finder in finders if finder.error is not None), None)
    broken = recorder.broken_collection(import_error, setup.root)
    if broken is not None:  # as under plain pytest, the run fails: a kill, with the error quoted
        return Verdict(mutant_id=job.mutant_id, results=(broken,))
    if selection.errors:
        return Verdict(
            mutant_id=job.mutant_id,
            error="cannot import: " + "; ".join(selection.errors)[:1000],
        )
    results = tuple(recorder.results[test] for test in job.tests if test in recorder.results)
    return Verdict(mutant_id=job.mutant_id, results=results, missing=selection.missing)


def main() -> int:
    reader, writer = protocol_streams()
    request = receive(reader, FreshRequest.from_dict)
    if request is None:
        return 1  # the parent went away before it asked anything
    reaper.become_subreaper()
    # Before the job opens a file of the project; tried in a throwaway child first, since a
    # user namespace entered cannot be left where the mounts are then refused.
    private = private_view.refused(request.setup) or private_view.enter_for(request.setup)
    enter_project(request.setup)
    limit_memory(request.setup.memory_limit_mb)
    verdict = run(request.setup, request.job, writer, request.collect_limit)
    reaper.kill_descendants()  # before the verdict: the job is over only when all it started is
    send(writer, private_view.kept(verdict, private, request.setup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
