"""The zygote's side of harness.shared.zygote: once the suite is collected, fork workers on request.

The zygote is a fork-server worker (harness.child.worker) started with `--zygote`: it imports
and collects like any worker, then, instead of serving jobs, answers the pool's requests by
forking. The forked worker returns from `Zygote.serve` with its own channel and goes on as a
worker that has just collected the suite; what it must not share with the zygote or its
siblings it makes its own first: a session (so the pool's kill and the terminal's Ctrl-C reach
what they reach for a worker started as an interpreter), the subreaper role (prctl's setting
is not inherited by fork), its mark (harness.shared.leftovers), its log as stderr and pytest's
global capture files (shared ones would mix two workers' captured output). Its coverage
object, import surveys and `own` processes start empty there: the zygote never ran a job.
"""

from __future__ import annotations

import faulthandler
import json
import os
import select
import socket
import sys
import time
from typing import BinaryIO

import pytest

from bugsmith.harness.child import reaper
from bugsmith.harness.shared import leftovers
from bugsmith.harness.shared.protocol import JOB_BUFFER, Ready, encode
from bugsmith.harness.shared.zygote import ForkAnswer, ForkRequest

REAP_EVERY = 1.0  # seconds between two collections of ended workers while no request comes
END_SECONDS = 5.0  # how long the zygote waits, once the pool is done, for its workers to end


class Zygote:
    """The zygote's control channel (a Unix socket on the worker's stdin and stdout)."""

    def __init__(self, reader: BinaryIO) -> None:
        self.control = socket.socket(fileno=os.dup(reader.fileno()))
        self.workers: set[int] = set()
        # Forking is refused rather than giving workers a mark that is not their own.
        self.refused = None if leftovers.remark(os.environ.get(leftovers.VARIABLE, "")) else (
            "this process cannot rewrite its mark (harness.shared.leftovers.remark)")

    def serve(self, ready: Ready, config: pytest.Config) -> tuple[BinaryIO, BinaryIO]:
        """Send `ready` (the collection), then fork a worker per request until the pool closes
        the channel, and end the zygote then. Returns only in each forked worker: its own pipes
        (jobs to read, verdicts to write)."""
        self.control.sendall(encode(ready))
        while (next_request := self._next()) is not None:
            request, fds = next_request
            if self.refused is not None or len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                self._answer(ForkAnswer(error=self.refused or "a request came without its descriptors"))
                continue
            jobs, verdicts, log = fds
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the new worker
                return self._become_worker(request, jobs, verdicts, log, config)
            for fd in fds:
                os.close(fd)
            self.workers.add(pid)
            pidfd = os.pidfd_open(pid)
            try:
                self._answer(ForkAnswer(pid=pid), pidfd)
            finally:
                os.close(pidfd)
        self._end()
        # A worker started as an interpreter is SIGKILLed at the end and never finishes pytest's
        # session: neither does the zygote, and the pool is not kept waiting while it would.
        os._exit(0)

    def _next(self) -> tuple[ForkRequest, list[int]] | None:
        """The next request and its descriptors; None when the pool closed the channel. Ended
        workers (and orphans of theirs adopted here) are collected meanwhile."""
        buffer, fds = b"", []
        while not buffer.endswith(b"\n"):
            while not select.select([self.control], [], [], REAP_EVERY)[0]:
                self._reap()
            data, received, _, _ = socket.recv_fds(self.control, 1 << 16, 3)
            fds.extend(received)
            if not data:
                for fd in fds:
                    os.close(fd)
                return None
            buffer += data
        return ForkRequest.from_dict(json.loads(buffer)), fds

    def _answer(self, answer: ForkAnswer, *fds: int) -> None:
        socket.send_fds(self.control, [encode(answer)], list(fds))

    def _reap(self) -> None:
        self.workers.difference_update(reaper.reap())

    def _end(self) -> None:
        """Collect the workers the pool has stopped, so that their CPU time counts in this
        process's children (and so in the pool's)."""
        self.control.close()
        deadline = time.monotonic() + END_SECONDS
        while self.workers and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.01)

    def _become_worker(self, request: ForkRequest, jobs: int, verdicts: int, log: int,
                       config: pytest.Config) -> tuple[BinaryIO, BinaryIO]:  # pragma: no cover - child
        self.control.close()
        self.workers.clear()
        os.setsid()
        reaper.become_subreaper()
        leftovers.remark(request.mark)
        _own_stderr(log, config)
        return os.fdopen(jobs, "rb", buffering=JOB_BUFFER), os.fdopen(verdicts, "wb", buffering=0)


def _own_stderr(log: int, config: pytest.Config) -> None:  # pragma: no cover - runs in a forked worker
    """Point stderr at this worker's log, and have pytest capture into files of this worker's:
    its global capture saved the zygote's stderr to restore after each test, and its
    temporary files are shared with every process forked from the zygote."""
    capture = config.pluginmanager.getplugin("capturemanager")
    sys.stderr.flush()
    if capture is not None:
        capture.stop_global_capturing()
    os.dup2(log, 2)
    os.close(log)
    if capture is not None:
        capture.start_global_capturing()
        capture.suspend_global_capture()
    if faulthandler.is_enabled():
        faulthandler.enable(file=2)  # pytest enabled it on a copy of the zygote's stderr
