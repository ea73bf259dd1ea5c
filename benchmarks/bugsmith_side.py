"""bugsmith through its library API, timed phase by phase, with the floor of its test time."""

from __future__ import annotations

import ast
import shutil
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clock import cpu_seconds

from bugsmith import harness
from bugsmith.harness.config import RunOptions, resolve
from bugsmith.harness.executors.table import local_executor
from bugsmith.harness.import_time import called_names_in, import_calls
from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.store import Store

_RUN = (Status.KILLED, Status.SURVIVED, Status.TIMEOUT, Status.ERROR)


@dataclass(frozen=True, slots=True, kw_only=True)
class BugsmithResult:
    label: str
    mutants: int
    statuses: dict[str, int]
    by_family: dict[str, int]
    wall: float  # seconds for the whole `harness.run`
    cpu: float  # user + system seconds of every process it ran
    baseline: float  # from the workers' start to the end of the suite's run under per-test
    # coverage, in chunks on every worker (mutant generation goes on beside it)
    startup: float  # spawning the workers (they import and collect while mutants are generated)
    control: float  # unmutated code run through the workers once
    mutant_phase: float  # every mutant, from the first job to the last verdict
    floor: float  # sum over killed mutants of their cheapest killing test's baseline time
    tests_time: float  # baseline time of every test a mutant ran (what a perfect runner pays)
    timeout_seconds: float  # recorded time of timed-out mutants (their confirming re-run)
    median_mutant: float  # median worker time of a killed or survived mutant, seconds
    jobs: int
    at_import: int = 0  # killed or survived mutants in code run at import (see `_at_import`)
    import_median: float = 0.0  # their median worker time, seconds
    function_median: float = 0.0  # that of the other killed or survived mutants
    verdicts: dict[str, str] = field(default_factory=dict)  # mutant id -> status, for --against

    @property
    def executed(self) -> int:
        return sum(self.statuses.get(status.value, 0) for status in _RUN)

    @property
    def other(self) -> float:
        """Seconds outside the timed phases: mutant generation (libcst), planning, the store."""
        return self.wall - self.baseline - self.startup - self.control - self.mutant_phase

    def overhead(self, wall: float, spent: float, count: int) -> float:
        """Seconds per mutant beyond `spent` test time, with `wall` seconds on `jobs` cores."""
        return (wall * self.jobs - spent) / count if count else 0.0


class _TimedExecutor:
    """Wraps the local executor so that worker spawn, baseline, control and mutants are timed apart."""

    def __init__(self, inner: Any, phases: dict[str, float]) -> None:
        self.inner = inner
        self.phases = phases

    def __enter__(self) -> _TimedExecutor:
        started = time.monotonic()
        self.inner.__enter__()
        self.entered = time.monotonic()
        self.phases["startup"] = self.entered - started
        return self

    @property
    def drains(self) -> bool:
        """The pool's own answer: without it the run would not start its baseline early
        (harness.early_baseline), and the benchmark would time a path users do not take."""
        return bool(getattr(self.inner, "drains", False))

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(*exc)

    def baseline(self) -> Any:
        found = self.inner.baseline()
        self.phases["baseline"] = time.monotonic() - self.entered  # as baseline_with
        return found

    def baseline_with(self, idle_work: Any) -> Any:
        """The baseline while idle workers run mutants (harness.speculation). It may start as
        soon as the workers do, in a thread of its own, while the run generates mutants: timed
        from the workers' start to its end, which holds that generation."""
        found = self.inner.baseline_with(idle_work)
        self.phases["baseline"] = time.monotonic() - self.entered
        return found

    def control(self, *args: Any, **kwargs: Any) -> None:
        started = time.monotonic()
        self.inner.control(*args, **kwargs)
        self.phases["control"] = time.monotonic() - started

    def run(self, *args: Any, **kwargs: Any) -> None:
        started = time.monotonic()
        self.inner.run(*args, **kwargs)
        self.phases["mutants"] = time.monotonic() - started


def run_bugsmith(folder: Path, jobs: int, families: tuple[str, ...], label: str) -> BugsmithResult:
    """One cold run (no stored baseline or verdicts) of bugsmith on the staged `folder`."""
    shutil.rmtree(folder / ".bugsmith", ignore_errors=True)
    options = resolve(folder, jobs=jobs, families=families)
    phases: dict[str, float] = {}

    def factory(setup: Any, opts: RunOptions) -> _TimedExecutor:
        return _TimedExecutor(local_executor(setup, opts), phases)

    cpu_before = cpu_seconds()
    started = time.monotonic()
    result = harness.run(options, executor_factory=factory)
    wall = time.monotonic() - started
    cpu = cpu_seconds() - cpu_before
    _check_imported_the_copy(result, options)
    statuses = Counter(outcome.status.value for outcome in result.outcomes)
    at_import = _at_import(result, folder)
    imported = [o.duration for o in result.outcomes
                if o.status in (Status.KILLED, Status.SURVIVED) and o.mutant_id in at_import]
    return BugsmithResult(
        label=label,
        mutants=len(result.outcomes),
        statuses=dict(statuses),
        by_family=dict(Counter(mutant.family.value for mutant in result.mutants)),
        wall=wall,
        cpu=cpu,
        baseline=phases.get("baseline", 0.0),
        startup=phases.get("startup", 0.0),
        control=phases.get("control", 0.0),
        mutant_phase=phases.get("mutants", 0.0),
        floor=floor(result),
        tests_time=tests_time(result),
        timeout_seconds=sum(o.duration for o in result.outcomes if o.status is Status.TIMEOUT),
        median_mutant=_median([o.duration for o in result.outcomes
                               if o.status in (Status.KILLED, Status.SURVIVED)]),
        jobs=jobs,
        at_import=len(imported),
        import_median=_median(imported),
        function_median=_median([o.duration for o in result.outcomes if o.status in (Status.KILLED, Status.SURVIVED)
                                 and o.mutant_id not in at_import]),
        verdicts={o.mutant_id: o.status.value for o in result.outcomes},
    )


def floor(result: RunResult) -> float:
    """Sum over killed mutants of the cheapest killing test's baseline duration."""
    duration = {test.id: test.duration for test in result.tests}
    return sum(
        min(duration.get(test, 0.0) for test in outcome.killed_by)
        for outcome in result.outcomes
        if outcome.status is Status.KILLED and outcome.killed_by
    )


def tests_time(result: RunResult) -> float:
    """Baseline time of the tests each mutant actually ran (its covering tests, fastest first,
    up to the first failure): the test work itself, so the rest is the harness's overhead."""
    duration = {test.id: test.duration for test in result.tests}
    return sum(
        sum(duration.get(test, 0.0) for test in outcome.covered_by[: outcome.tests_run])
        for outcome in result.outcomes
    )


def _at_import(result: RunResult, folder: Path) -> set[str]:
    """Ids of the mutants in code run at import: module level, or a function that module-level
    code (its own, or a test module's) calls, as the runner decides (harness.import_time; a
    function only reached through others counts only when no test covers it, left out here)."""
    calls = _import_calls(folder, {mutant.file for mutant in result.mutants})
    return {mutant.id for mutant in result.mutants if calls[mutant.file].needs_fresh_import(mutant.function, True)}


def _import_calls(folder: Path, files: Iterable[str]) -> dict[str, Any]:
    # mutmut's copies under mutants/ are not what the tests import.
    names = {}
    for path in sorted(p for p in folder.rglob("*.py") if ".bugsmith" not in p.parts and "mutants" not in p.parts):
        try:
            names[path] = called_names_in(path.read_bytes())
        except OSError:
            continue  # as the runner does: a file it cannot read is left out
    return {file: import_calls((folder / file).read_text(encoding="utf-8"),
                               (called for path, called in names.items() if path != folder / file))
            for file in files}


def import_time_rule(folder: Path, files: Iterable[str]) -> Callable[[str, int], bool]:
    """Whether a mutant at (file, line) is in code run at import, by the rule of `_at_import`:
    module level, or a function that import-time code calls. For any tool's mutants."""
    calls = _import_calls(folder, files)
    enclosing = {file: _functions(folder / file) for file in calls}

    def at_import(file: str, line: int) -> bool:
        if file not in calls:
            return False
        name = next((n for first, last, n in enclosing[file] if first <= line <= last), None)
        return name is None or bool(calls[file].needs_fresh_import(name, True))

    return at_import


def _functions(path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of the top-level functions and methods, as mutants name them."""
    found: list[tuple[int, int, str]] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        defs = [(node, "")] if not isinstance(node, ast.ClassDef) else [(n, f"{node.name}.") for n in node.body]
        found += [(d.lineno, d.end_lineno or d.lineno, prefix + d.name) for d, prefix in defs
                  if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)]
    return found


def stored_run(folder: Path) -> RunResult:
    """The last run stored in `folder`'s .bugsmith store."""
    store = Store.open_read_only(folder / ".bugsmith" / "bugsmith.sqlite")
    try:
        return store.last_run()
    finally:
        store.close()


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def _check_imported_the_copy(result: RunResult, options: RunOptions) -> None:
    """Every mutant without coverage means the tests imported some other copy of the module
    (an installed one); the timings would then be meaningless."""
    covered = [o for o in result.outcomes if o.status is not Status.NO_COVERAGE]
    if result.outcomes and not covered:
        raise RuntimeError(f"no mutant in {options.root} is covered: the tests import another copy")
