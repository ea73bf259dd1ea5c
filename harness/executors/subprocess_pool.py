"""The portable executor: every job in a fresh interpreter on this machine (harness.executors.base).

`--isolation subprocess`: no fork server, so it works wherever a worker's fork cannot (or
must not) be trusted, at the price of a full start-up and collection per job. Each job runs in
`python -m bugsmith.harness.child.isolated`, which imports the mutant through an import hook.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from bugsmith.errors import HarnessError
from bugsmith.harness.baseline import Baseline, run_baseline
from bugsmith.harness.executors.base import OnVerdict, Prepare
from bugsmith.harness.executors.confirmation import carried_over, next_confirmation, with_carried
from bugsmith.harness.shared import leftovers
from bugsmith.harness.shared.interpreter import FreshRequest, helper_launch, verdict_of_output, worker_env
from bugsmith.harness.shared.protocol import Job, TestResult, Verdict, WorkerSetup, encode
from bugsmith.harness.shared.sandbox import Sandbox
from bugsmith.harness.verdict import control_failure

SUBPROCESS_STARTUP = 10.0  # seconds a fresh interpreter may spend before its tests run


class SubprocessPool:
    """The portable mode: every job in a fresh interpreter, `jobs` at a time."""

    def __init__(self, setup: WorkerSetup, jobs: int, sandbox: Sandbox | None = None) -> None:
        self.setup = setup
        self.size = jobs
        self.sandbox = sandbox

    def __enter__(self) -> SubprocessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def baseline(self) -> Baseline:
        """The suite once in its own fresh interpreter: there is no worker to share it with."""
        if self.sandbox is not None:
            raise HarnessError("a sandboxed run needs the fork pool: this mode's baseline runs unconfined")
        return run_baseline(self.setup, worker_env(self.setup.project))

    def control(self, tests: Sequence[str], timeout: float) -> None:
        reason = control_failure(self._one(Job.unmutated("control", tuple(tests), timeout)), environment_ok=True)
        if reason:
            raise HarnessError(f"the control run of unmutated code failed in a fresh interpreter: {reason}")

    def run(self, jobs: Sequence[Job], on_verdict: OnVerdict, prepare: Prepare | None = None) -> None:
        prepared = [(prepare or (lambda job: job))(job) for job in jobs]
        with ThreadPoolExecutor(max_workers=self.size) as threads:
            for job, verdict in threads.map(self._confirmed, prepared):
                on_verdict(job, verdict)

    def _confirmed(self, job: Job) -> tuple[Job, Verdict]:
        """The job's verdict, or that of its confirmation (the job that gave it) after a timeout."""
        verdict, done, first = self._one(job), 0, job
        carried: tuple[TestResult, ...] = ()  # what passed before a hang is not run again
        while (confirmation := next_confirmation(job, verdict, done, first)) is not None:
            carried += carried_over(verdict, confirmation)
            job, verdict, done = confirmation, self._one(confirmation), done + 1
        return with_carried(job, verdict, carried, first)

    def _one(self, job: Job) -> Verdict:
        request = encode(FreshRequest(setup=self.setup, job=job))
        started = time.monotonic()
        mark = leftovers.new_mark()  # one per job: jobs run side by side
        launch = helper_launch("bugsmith.harness.child.isolated", self.setup, self.sandbox,
                               {leftovers.VARIABLE: mark})
        process = subprocess.Popen(
            launch.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=launch.cwd, env=launch.env, start_new_session=True,
        )
        try:
            out, _ = process.communicate(request, timeout=job.timeout + SUBPROCESS_STARTUP)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return Verdict(mutant_id=job.mutant_id, timed_out=True, elapsed=time.monotonic() - started)
        finally:
            leftovers.kill_marked(mark)  # what the job started in sessions of its own
        return verdict_of_output(job, out, process.returncode, elapsed=time.monotonic() - started)
