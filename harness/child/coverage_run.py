"""The child half of the baseline: the suite under coverage, with one coverage context per test.

In a fork-server worker (harness.child.worker) coverage is set up once and each chunk of tests
runs under it in a forked child (`ready_coverage`, `run_with_coverage`). Executors without a
fork server run the whole suite once in a fresh interpreter instead:
`python -m bugsmith.harness.child.coverage_run`. The coordinator half is harness.baseline.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import coverage
import pytest
from coverage.exceptions import CoverageWarning

from bugsmith.harness.child.hypothesis_view import HypothesisSeesTheProject
from bugsmith.harness.child.recorder import Recorder
from bugsmith.harness.child.session import CollectErrors, StateOutsideTheTree, enter_project, protocol_streams
from bugsmith.harness.shared.interpreter import SuiteCoverage
from bugsmith.harness.shared.protocol import TestOutcome, TestResult, WorkerSetup, receive, send
from bugsmith.harness.shared.tasks import Coverage


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


# Every warning coverage.py can give (its "messages" page). They are about bugsmith's own
# instrumentation, never about the user's code, and a suite's `filterwarnings = error` (pytest
# applies it around every test, and python-slugify's applies it to the whole run) must not turn
# them into exceptions: "No data was collected" alone failed such a suite's baseline whenever a
# chunk of its tests ran none of the mutated files.
COVERAGE_WARNINGS = (
    "already-imported", "cant-combine", "couldnt-parse", "dynamic-conflict", "include-ignored",
    "module-not-imported", "module-not-measured", "module-not-python", "no-ctracer", "no-data-collected",
    "no-source", "no-sysmon", "no-sysmon-context", "trace-changed", "fork", "pth",
)


def quiet_coverage(sources: Sequence[str]) -> coverage.Coverage:
    """A Coverage of `sources`, in memory, that never warns."""
    cov = coverage.Coverage(data_file=None, include=list(sources), config_file=False)
    cov.set_option("run:disable_warnings", list(COVERAGE_WARNINGS))
    return cov


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """Whatever coverage warns (a warning it has no slug for) is dropped, not raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        yield


class ForkedChildren:
    """Follows the tracer into the forked children of the tests (a fork-based multiprocessing
    pool, a bare `os.fork`) and brings back the lines they ran.

    A forked child inherits the running tracer and the current test's context, but its data
    dies with it. So the child writes what it has measured to a file of its own before each
    result it hands back through a multiprocessing queue (a pool's workers die by SIGTERM when
    a `with Pool()` block closes, and a Python handler for it can miss the signal while the
    worker blocks on the queue's lock, which hangs the test) and before `os._exit`, the way
    multiprocessing ends a process that returned. `merge` adds those files to the parent's
    lines. Only a test process does this (registered in it after the fork server forked it, or
    in the fresh baseline interpreter), and only while `active`.
    """

    def __init__(self, cov: coverage.Coverage, root: str) -> None:
        self.cov = cov
        self.root = root
        # Made by the first child that saves: most suites fork no child, and a test process
        # killed at its limit never reaches `merge`, which left an empty folder in /tmp each time.
        self.folder = Path(tempfile.gettempdir()) / f"bugsmith-forks-{uuid.uuid4().hex}"
        self.active = True
        os.register_at_fork(after_in_child=self._in_child)

    def _in_child(self) -> None:
        if not self.active:
            return
        exit_now = os._exit

        def save_then_exit(status: int) -> NoReturn:
            self._save()
            exit_now(status)

        os._exit = save_then_exit
        queues = sys.modules.get("multiprocessing.queues")
        for queue in (queues.SimpleQueue, queues.Queue) if queues is not None else ():
            queue.put = self._saving_first(queue.put)

    def _saving_first(self, put: Callable[..., None]) -> Callable[..., None]:
        # Saving takes milliseconds; a pool may hand back thousands of results. So a child saves
        # before its 1st, 2nd, 4th, 8th... result: what only its late tasks ran can be lost if
        # the pool is terminated, never what it ran before it returned.
        puts = 0

        def put_after_saving(queue: Any, *args: Any, **kwargs: Any) -> None:
            nonlocal puts
            puts += 1
            if puts & (puts - 1) == 0:
                self._save()
            put(queue, *args, **kwargs)

        return put_after_saving

    def _save(self) -> None:
        """Write this child's lines so far (a superset of what it wrote before)."""
        try:
            with _silenced():
                found = _lines_by_test(self.cov, self.root)
            self.folder.mkdir(mode=0o700, exist_ok=True)
            part = self.folder / f"{os.getpid()}.part"
            part.write_text(json.dumps(found.to_dict()), encoding="utf-8")
            part.replace(part.with_suffix(".json"))  # whole or not at all: a child may be killed
        except BaseException:  # noqa: BLE001 - a child's lines are a bonus, never its failure
            pass

    def merge(self, lines: Coverage) -> Coverage:
        """`lines` with the lines the children ran; stops following them."""
        self.active = False
        merged = {file: {n: set(ids) for n, ids in by_line.items()} for file, by_line in lines.lines.items()}
        for path in sorted(self.folder.glob("*.json")):
            try:
                found = Coverage.from_dict(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError):
                continue
            for file, by_line in found.lines.items():
                for number, ids in by_line.items():
                    merged.setdefault(file, {}).setdefault(number, set()).update(ids)
        shutil.rmtree(self.folder, ignore_errors=True)
        return Coverage(lines={file: {n: tuple(sorted(ids)) for n, ids in sorted(by_line.items())}
                               for file, by_line in merged.items()})


def _collect_in_this_process(setup: WorkerSetup) -> SuiteCoverage:
    sources = frozenset(setup.sources)
    cov = quiet_coverage(sorted(sources))
    recorder = Recorder(sources)
    contexts = _Contexts(cov)
    errors = CollectErrors()
    with _silenced():
        cov.start()
    children = ForkedChildren(cov, setup.root)
    try:
        code = pytest.main(
            [*setup.pytest_args, "-q", "-p", "no:cacheprovider", *setup.test_paths],
            plugins=[recorder, contexts, errors, StateOutsideTheTree(setup.project),
                     HypothesisSeesTheProject(setup.project, setup.root, read_only=False)],
        )
    finally:
        with _silenced():
            cov.stop()
    return SuiteCoverage(
        exit_code=int(code),
        collect_errors=tuple(errors.errors),
        tests=tuple((item.nodeid, item.location[0], recorder.durations.get(item.nodeid, 0.0))
                    for item in contexts.collected),
        failed=tuple(r for r in recorder.results.values() if r.outcome == TestOutcome.FAILED),
        coverage=children.merge(_lines_by_test(cov, setup.root)),
    )


def ready_coverage(setup: WorkerSetup) -> coverage.Coverage:
    """A Coverage for the files under mutation, started and stopped once in the fork server.

    Its first start works out which files to trace, which is slow with scientific libraries
    loaded; started again in a forked child, it only installs its tracer.
    """
    cov = quiet_coverage(setup.sources)
    with _silenced():
        cov.start()
        cov.stop()
    return cov


def run_with_coverage(items: Sequence[pytest.Item], recorder: Recorder, cov: coverage.Coverage, root: str,
                      report: Callable[[TestResult], None]) -> tuple[tuple[TestResult, ...], Coverage]:
    """Run `items` under `cov` (from `ready_coverage`, in a forked worker child) with one
    context per test: report each test's result as it ends; return the results and the lines
    each test ran, where the code under test warned, and where failing tests' tracebacks ended in it."""
    results = []
    with _silenced():
        cov.start()
    children = ForkedChildren(cov, root)
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
        with _silenced():
            cov.stop()
    lines = children.merge(_lines_by_test(cov, root))
    warned = tuple(sorted((os.path.relpath(file, root), line) for file, line in recorder.warned))
    raised = tuple(sorted((os.path.relpath(file, root), line) for file, line in recorder.raised))
    return tuple(results), replace(lines, warned=warned, raised=raised)


def _lines_by_test(cov: coverage.Coverage, root: str) -> Coverage:
    with _silenced():
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
