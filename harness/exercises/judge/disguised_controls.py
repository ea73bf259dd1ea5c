"""Controls disguised as mutants: the unmutated code, run among the mutants exactly as they are.

`bugsmith score` counts a mutant as detected when the candidate's tests fail on it, and those
tests are the candidate's code: they run in the same process as the worker that reports the
verdict, so they can make any test report a failure (patch pytest's reports, exit early). A
suite that fails everywhere is refused by its red baseline, and one that fails only on
recognisable control runs (`Executor.control`, a baseline chunk) by those; what is left is a
suite that tells a mutant's run from an unmutated one and fails only on the former.

So among the real jobs this executor plants a few whose "mutant" is the original code: a
real job's function (or whole module), its covering tests, a fresh id of the same form, sent
in random places. Nothing in the job says it is one: the same function is swapped in, from
the same kind of text, and the tests run as for any mutant. On unmutated code honest tests
pass, so a disguised control that is killed (or times out, which counts as detected too)
means the suite's failures cannot be believed (or that it is flaky), and the run gives no
score at all.
"""

from __future__ import annotations

import base64
import random
import secrets
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bugsmith.errors import BaselineError
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.executors.base import Executor, OnVerdict, Prepare
from bugsmith.harness.outcome import Status
from bugsmith.harness.shared.protocol import Job, Verdict
from bugsmith.harness.units import statement_ranges
from bugsmith.harness.verdict import outcome_of

MIN_CONTROLS, MAX_CONTROLS = 3, 10
JOBS_PER_CONTROL = 25


class DisguisedControls:
    """An Executor around another: runs its jobs with disguised controls mixed in, and raises
    BaselineError (no score) when one of them is killed."""

    def __init__(self, inner: Executor, rng: random.Random | None = None) -> None:
        self.inner = inner
        self.rng = rng or random.Random(secrets.randbits(64))
        self.planted = 0
        self.killed: list[str] = []  # why each killed control failed

    def __enter__(self) -> DisguisedControls:
        self.inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(*exc)

    def baseline(self) -> Baseline:
        return self.inner.baseline()

    def control(self, tests: Sequence[str], timeout: float) -> None:
        self.inner.control(tests, timeout)

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        controls = plant(jobs, self.rng)
        ids = {job.mutant_id for job in controls}
        mixed = list(jobs)
        for control in controls:
            mixed.insert(self.rng.randint(0, len(mixed)), control)
        self.planted += len(controls)

        def route(job: Job, verdict: Verdict) -> None:
            if job.mutant_id not in ids:
                on_verdict(job, verdict)
                return
            outcome = outcome_of(job, verdict)
            # A failure, or a timeout that held on its longer second run (a timeout counts as
            # detected, so a suite could hang where it cannot fail), says the suite is not to be
            # believed; an error detects nothing and gains nothing.
            if outcome.status is Status.KILLED:
                self.killed.append(f"{outcome.killed_by[0]}: {outcome.message}"[:200])
            elif outcome.status is Status.TIMEOUT:
                self.killed.append(outcome.detail[:200])

        self.inner.run(mixed, route, prepare)
        if self.killed:
            raise BaselineError(
                f"the tests failed or hung on the unmutated code in {len(self.killed)} of {len(controls)} runs"
                f" that looked like mutants (first: {self.killed[0]}): tests that fail when nothing is wrong,"
                " because they are flaky or tamper with their own reporting, detect nothing, so no score is given")


def plant(jobs: Sequence[Job], rng: random.Random) -> list[Job]:
    """Disguised controls made from randomly chosen real jobs (none if there are no mutant jobs)."""
    real = [job for job in jobs if job.source and job.task is None and not job.extra]
    if not real:
        return []
    count = min(MAX_CONTROLS, max(MIN_CONTROLS, len(real) // JOBS_PER_CONTROL))
    originals: dict[str, str] = {}
    controls = []
    for job in (rng.choice(real) for _ in range(count)):
        if job.path not in originals:
            originals[job.path] = Path(job.path).read_text(encoding="utf-8")
        original = originals[job.path]
        controls.append(replace(job, mutant_id=_fresh_id(), source=original,
                                unit=_original_unit(job.unit, original) if job.unit else ""))
    return controls


def _original_unit(unit: str, original: str) -> str:
    """The original text of the top-level statement a mutated unit holds, at the same lines."""
    first = len(unit) - len(unit.lstrip("\n")) + 1
    lines = original.splitlines(keepends=True)
    for lo, hi in statement_ranges(original):
        if lo == first:
            return "\n" * (first - 1) + "".join(lines[lo - 1:hi])
    return ""  # not found: the worker compiles the whole (original) file, as for such a mutant


def _fresh_id() -> str:
    """Eight base32 characters, as a real mutant's id (mutators.engine.mutant_id)."""
    return base64.b32encode(secrets.token_bytes(5)).decode().lower()
