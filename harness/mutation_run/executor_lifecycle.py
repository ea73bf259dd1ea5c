"""The run's executor, from its start to its end: entered on first use (before the mutants exist
on a cold run), narrowed to the tests a warm run runs again, widened to the whole suite when a
job needs a test it did not collect, proven by a control run before any job, closed when the
run ends.

A run after an edit to one function runs again only the tests that executed that function
(and every test of a changed or new test file): the executor it opens collects just those
(their node ids are its test paths), so neither the suite's collection nor its baseline is
paid again. If the mutants left to run need a test it did not collect, it is replaced by one
that collects the whole suite (`Executors.widen`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace

from bugsmith.errors import BugsmithError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.early_baseline import EarlyBaseline
from bugsmith.harness.executors.base import Executor, ExecutorFactory
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.protocol import WorkerSetup

NODE_IDS = 2000  # beyond this many tests to name, an executor collects the whole suite instead


class Executors:
    """The run's executor, entered on first use and left when the run ends.

    A cold run enters it before generating mutants: fork-server workers then import and
    collect the suite while libcst works, and run the baseline as soon as they are ready. A
    warm run may first enter one narrowed to the tests it runs again (`narrow`).
    """

    def __init__(self, factory: ExecutorFactory, setup: WorkerSetup, options: RunOptions) -> None:
        self._factory = factory
        self.full_setup = setup
        self.setup = setup
        self._options = self.full_options = options
        self._stack = ExitStack()
        self._entered: Executor | None = None
        self.collected: frozenset[str] | None = None  # the tests a narrowed executor knows, else all
        self._early: tuple[EarlyBaseline, Executor] | None = None  # a control in the baseline's thread
        self._proven: Executor | None = None  # the entered executor whose control run passed
        self._failed: tuple[Executor, BugsmithError] | None = None  # one whose control run failed

    def get(self) -> Executor:
        if self._entered is None:
            self._entered = self._stack.enter_context(self._factory(self.setup, self._options))
        return self._entered

    def narrow(self, test_paths: tuple[str, ...], work: int | None = None) -> None:
        """Collect only `test_paths` (files and node ids) in the executor not yet entered, on
        no more workers than `work` items of work need."""
        assert self._entered is None, "narrow before the executor starts"
        self.setup = replace(self.full_setup, test_paths=test_paths)
        self.collected = frozenset()
        if work is not None:
            self._options = replace(self._options, jobs=max(1, min(self._options.jobs, work)))

    def fit(self, tests: set[str], jobs: int, everything: int) -> None:
        """Make sure the executor knows `tests` before `jobs` mutants run: one not yet started
        collects only them (unless that is the whole suite of `everything` tests)."""
        if self._entered is None and self.collected is None and len(tests) < min(everything, NODE_IDS):
            self.narrow(tuple(sorted(tests)), jobs)
            self.collected = frozenset(tests)
        elif not self.knows(tests):
            self.widen()

    def widen(self) -> None:
        """Replace a narrowed executor by one that collects the whole suite."""
        if self.collected is None:
            return
        self.wait_for_control()
        self.close()
        self._stack, self._entered = ExitStack(), None
        self.setup, self.collected, self._options = self.full_setup, None, self.full_options

    def control_in(self, early: EarlyBaseline, executor: Executor) -> None:
        """`early`'s thread runs `executor`'s control run after its baseline (`begin`)."""
        self._early = (early, executor)

    def wait_for_control(self) -> None:
        """Wait for a control run in the baseline's thread: no two threads use an executor at
        once, and one is left only once its thread is done with it. A control that passed
        proves its executor; a failure is raised where that executor runs jobs (`controlled`)."""
        if self._early is None:
            return
        (early, executor), self._early = self._early, None
        try:
            if early.controlled():
                self._proven = executor
        except BugsmithError as error:  # what the control raises in the run's thread, raised there
            self._failed = (executor, error)

    def controlled(self, control: Callable[[Executor], None]) -> Executor:
        """The entered executor, once its control run passed: the one the baseline's thread
        ran, else `control` run now (once per executor)."""
        self.wait_for_control()
        executor = self.get()
        if self._failed is not None and self._failed[0] is executor:
            raise self._failed[1]
        if self._proven is not executor:
            control(executor)
            self._proven = executor
        return executor

    def knows(self, tests: set[str]) -> bool:
        return self.collected is None or tests <= self.collected

    def close(self) -> None:
        self._stack.close()



def control(executor: Executor, tests: Sequence[TestInfo], options: RunOptions) -> None:
    """The control run of `executor`, which knows `tests`: HarnessError unless the unmutated
    code passes through the machinery the mutants run in."""
    executor.control(_control_tests(tests), timeout=_control_limit(tests, options))


def _control_tests(tests: Sequence[TestInfo]) -> tuple[str, ...]:
    """The fastest test of each test file: proves every file runs through the machinery."""
    fastest: dict[str, tuple[float, str]] = {}
    for test in tests:
        best = fastest.get(test.file)
        if best is None or test.duration < best[0]:
            fastest[test.file] = (test.duration, test.id)
    return tuple(test_id for _, test_id in fastest.values())


def _control_limit(tests: Sequence[TestInfo], options: RunOptions) -> float:
    return options.timeout_factor * sum(t.duration for t in tests) + 10 * options.timeout_base

