"""The baseline: run the whole suite once on unmutated code, with per-test line coverage.

Usually it runs inside the fork-server workers that will run the mutants: the suite is split
into chunks of consecutive tests of one file, and each chunk runs in a forked child under
coverage, on every core at once. The workers collect the suite once for both jobs, so a cold
run pays for one collection per core instead of an extra interpreter that imports and
collects everything again. Executors without a fork server run it in its own interpreter
(`python -m bugsmith.harness.child.coverage_run`, the child half of the baseline). Lines that run
at import time are not tied to any test in either way (harness.job_plan gives their mutants
every test that runs their file). A red baseline stops the run: with a failing suite, every
verdict would be meaningless.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bugsmith.errors import BaselineError, ConfigError
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.interpreter import SuiteCoverage, module_command
from bugsmith.harness.shared.protocol import Job, TestOutcome, TestResult, Verdict, WorkerSetup, encode
from bugsmith.harness.shared.tasks import Coverage, CoverageTask, LineMap

CHUNKS_PER_WORKER = 8  # enough that no core idles long behind one slow chunk, few enough forks
CHUNK_LIMIT = 3600.0  # seconds: a backstop for a suite that hangs, not a verdict


@dataclass(frozen=True, slots=True, kw_only=True)
class Baseline:
    tests: tuple[TestInfo, ...]  # in collection order
    lines: LineMap  # file (relative) -> line -> covering tests
    duration: float
    # What the unmutated suite changed in its tree ("created x", ...: harness.executors.in_copy): such a
    # suite would damage the user's tree without bugsmith, and its verdicts may depend on order.
    writes: tuple[str, ...] = ()
    # What it wrote in the project outside the copy, by absolute paths ("created /x/y"): kept
    # out of the project by the jobs' private views (harness.child.private_view).
    escapes: tuple[str, ...] = ()
    # Why its jobs shared the project's files, where they had no private view ("": they had one).
    shared_view: str = ""
    # Tests that failed after others in a chunk but pass alone, each with the test it ran after:
    # left out of the baseline, so out of every verdict (`assemble`).
    order_dependent: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": [{"id": t.id, "file": t.file, "duration": t.duration} for t in self.tests],
            "lines": {f: {str(n): list(ids) for n, ids in lines.items()} for f, lines in self.lines.items()},
            "duration": self.duration,
            "writes": list(self.writes),
            "escapes": list(self.escapes),
            "shared_view": self.shared_view,
            "order_dependent": list(self.order_dependent),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Baseline:
        return cls(
            tests=tuple(TestInfo(**t) for t in data["tests"]),
            lines={f: {int(n): tuple(ids) for n, ids in lines.items()} for f, lines in data["lines"].items()},
            duration=data["duration"],
            writes=tuple(data.get("writes", ())),
            escapes=tuple(data.get("escapes", ())),
            shared_view=data.get("shared_view", ""),
            order_dependent=tuple(data.get("order_dependent", ())),
        )


def chunk_jobs(tests: Sequence[str], workers: int) -> list[Job]:
    """Jobs that run the suite in runs of consecutive tests of one file (module fixtures are
    set up once per run), about CHUNKS_PER_WORKER per worker."""
    size = max(1, math.ceil(len(tests) / (workers * CHUNKS_PER_WORKER)))
    chunks: list[list[str]] = []
    for test in tests:
        last = chunks[-1] if chunks else None
        if last is None or len(last) >= size or _file(last[-1]) != _file(test):
            chunks.append([test])
        else:
            last.append(test)
    return [replace(Job.unmutated(f"baseline-{n}", tuple(chunk), CHUNK_LIMIT), task=CoverageTask(),
                    stop_on_failure=False)
            for n, chunk in enumerate(chunks)]


def _file(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def assemble(tests: Sequence[tuple[str, str]], runs: Sequence[tuple[Job, Verdict]], started: float,
             passes_alone: Callable[[list[str]], set[str]] | None = None) -> Baseline:
    """The Baseline from the chunks' jobs and verdicts; raise BaselineError unless every test
    passed, or, given `passes_alone` (which of these tests pass each in a job of its own), every
    test that failed passes alone: such a test depends on the tests run before it, and is left
    out of the baseline, so out of every verdict, and named in `order_dependent`. `tests` are
    (id, file) in collection order."""
    verdicts = [verdict for _, verdict in runs]
    results = {r.id: r for verdict in verdicts for r in verdict.results}
    failed = [r for r in results.values() if r.outcome == TestOutcome.FAILED]
    alone = passes_alone([r.id for r in failed]) if failed and passes_alone is not None else set()
    if [r for r in failed if r.id not in alone]:
        _raise_red([r for r in failed if r.id not in alone])
    tests = [(t, f) for t, f in tests if t not in alone]
    for job, verdict in runs:
        if verdict.timed_out or verdict.died or verdict.error or verdict.missing:
            _raise_broken(job, verdict, results)
    lines: dict[str, dict[int, set[str]]] = {}
    for verdict in verdicts:
        found = verdict.findings.lines if isinstance(verdict.findings, Coverage) else {}
        for file, by_line in found.items():
            for number, ids in by_line.items():
                lines.setdefault(file, {}).setdefault(number, set()).update(ids)
    if not tests:
        raise BaselineError("no tests were collected: check the test paths")
    return Baseline(
        tests=tuple(TestInfo(id=t, file=f, duration=results[t].duration if t in results else 0.0)
                    for t, f in tests),
        lines={f: {n: tuple(sorted(ids - alone)) for n, ids in sorted(by.items()) if ids - alone}
               for f, by in lines.items()},
        duration=time.monotonic() - started,
        order_dependent=tuple(_after(test, runs) for test in sorted(alone)),
    )


def _after(test: str, runs: Sequence[tuple[Job, Verdict]]) -> str:
    """`test`, and the test that ran just before it in its chunk: the likeliest to interfere."""
    for job, _ in runs:
        if test in job.tests:
            position = job.tests.index(test)
            return f"{test} (after {job.tests[position - 1]})" if position else test
    return test


def kept_writes(baseline: Baseline, verdicts: Sequence[Verdict], setup: WorkerSetup, shown: int = 20) -> Baseline:
    """`baseline` with what its chunks' private views kept: a change under the tree it ran in
    becomes one of its `writes` (relative), one elsewhere in the project an `escape`."""
    tree = os.path.join(setup.root, "")
    writes: list[str] = []
    escapes: list[str] = []
    for verdict in verdicts:
        for change in verdict.wrote:
            verb, _, path = change.partition(" ")
            if path.startswith(tree):
                writes.append(f"{verb} {path.removeprefix(tree)}")
            else:
                escapes.append(change)
    shared = next((verdict.shared_view for verdict in verdicts if verdict.shared_view), "")
    return replace(baseline, writes=tuple(sorted(set(writes)))[:shown], escapes=tuple(sorted(set(escapes)))[:shown],
                   shared_view=shared)


def _raise_broken(job: Job, verdict: Verdict, results: Mapping[str, TestResult]) -> None:
    culprit = next((test for test in job.tests if test not in results), job.tests[0])
    why = (f"no result within {job.timeout:.0f} s" if verdict.timed_out else verdict.died or verdict.error
           or f"tests not found: {', '.join(verdict.missing[:3])}")
    raise BaselineError(f"the baseline run broke off at {culprit}: {why}")


def _raise_red(failed: Sequence[TestResult]) -> None:
    names = ", ".join(f.id for f in failed[:5])
    more = f" and {len(failed) - 5} more" if len(failed) > 5 else ""
    raise BaselineError(
        f"{len(failed)} test(s) fail on the unmutated code: {names}{more} (first: {failed[0].failure_line})"
    )


def refused_arguments(output: str) -> ConfigError | None:
    """pytest's own usage error in the output of a process that ran it (`ERROR: usage: ...`,
    then argparse's `<prog>: error: <what>`), as the configuration error it is: the process
    ends normally, so without this the user only hears "exit status 0"."""
    lines = output.splitlines()
    if not any(line.startswith("ERROR: usage:") for line in lines):
        return None
    what = next((line.split(": error: ", 1)[1] for line in lines if ": error: " in line), "a usage error")
    return ConfigError(f"pytest refused its arguments: {what.strip()[:200]} (check pytest-args in"
                       " [tool.bugsmith] and addopts in the project's pytest configuration)")


def run_baseline(setup: WorkerSetup, env: dict[str, str]) -> Baseline:
    """Run the suite once in a fresh interpreter; raise BaselineError if it is not green."""
    started = time.monotonic()
    process = subprocess.run(
        module_command("bugsmith.harness.child.coverage_run"),
        input=encode(setup), capture_output=True, cwd=setup.root, env=env, check=False,
    )
    refused = refused_arguments(process.stderr.decode(errors="replace"))
    if refused is not None:
        raise refused
    if not process.stdout.strip():
        tail = process.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise BaselineError(f"the baseline test run crashed: {tail[0]}")
    suite = SuiteCoverage.from_dict(json.loads(process.stdout))
    if suite.collect_errors:
        raise BaselineError(f"the tests cannot be collected: {suite.collect_errors[0]}")
    if suite.failed:
        _raise_red(suite.failed)
    if not suite.tests:
        raise BaselineError("no tests were collected: check the test paths")
    return Baseline(tests=tuple(TestInfo(id=i, file=f, duration=d) for i, f, d in suite.tests),
                    lines=suite.coverage.lines, duration=time.monotonic() - started)
