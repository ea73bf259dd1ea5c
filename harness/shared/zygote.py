"""Fork-server workers forked from one process that collected the suite: the zygote.

Starting a worker as an interpreter costs pytest, the project, its dependencies and a
collection of the whole suite (seconds of CPU on a real project), paid by every worker and
again by every replacement. The pool (harness.executors.fork_pool) starts one zygote instead, as it
would a worker (`python -m bugsmith.harness.child.worker --zygote`) but on a Unix socket: after
collection the zygote answers each `ForkRequest`, which brings the new worker's own pipes and log
as descriptors, by forking a worker (harness.child.fork_workers) and sending back a pidfd of
it. Through that pidfd the pool signals the worker and sees it end, and learns its pid as this
process sees it: also when the zygote runs in a sandbox with a pid namespace of its own, where
the forked workers stay.

Both sides import this module. Linux only (pidfds, descriptors passed over a socket):
elsewhere `available()` is False and every worker is an interpreter of its own.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bugsmith.harness.shared.protocol import encode

FLAG = "--zygote"  # on the worker's command line: collect, then fork workers on request
ANSWER_SECONDS = 60.0  # a zygote that takes longer to fork is stuck: the pool starts interpreters


def available() -> bool:
    return (sys.platform.startswith("linux") and hasattr(os, "pidfd_open")
            and hasattr(signal, "pidfd_send_signal") and hasattr(socket, "send_fds"))


class ForkRefused(Exception):
    """The zygote is gone or cannot fork a worker; internal: the pool starts an interpreter."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ForkRequest:
    """Fork worker `number`, marked `mark` (harness.shared.leftovers); the pipe it reads jobs from,
    the one it writes verdicts to and its log come with this request as descriptors, in that
    order."""

    number: int
    mark: str

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "mark": self.mark}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForkRequest:
        return cls(number=data["number"], mark=data["mark"])


@dataclass(frozen=True, slots=True, kw_only=True)
class ForkAnswer:
    """The forked worker's pid in the zygote's pid namespace (its pidfd comes with this answer
    as a descriptor), or why there is no worker. A preloader answers a request for a zygote the
    same way (harness.shared.preload)."""

    pid: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"pid": self.pid, "error": self.error}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForkAnswer:
        return cls(pid=data.get("pid", 0), error=data.get("error"))


class ForkedProcess:
    """A worker the zygote forked, as the pool sees it. Not this process's child (the zygote
    reaps it), so it is signalled and awaited through its pidfd, and its exit status is unknown."""

    def __init__(self, pidfd: int) -> None:
        self._pidfd = pidfd
        try:
            self.pid = _pid_here(pidfd)
        except OSError:
            os.close(pidfd)
            raise
        self.returncode: int | None = None
        # The pool's thread and a baseline's (harness.early_baseline) may both wait for one
        # worker as the pool is left: the pidfd is closed once, by whichever sees the end first.
        self._waiting = threading.Lock()

    def kill(self) -> None:
        if self._pidfd < 0:
            return
        try:
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        except (ProcessLookupError, OSError):  # ended, and its pidfd closed meanwhile by a wait
            pass

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait until the worker has ended (or `timeout` seconds)."""
        with self._waiting:
            if self._pidfd >= 0 and select.select([self._pidfd], [], [], timeout)[0]:
                os.close(self._pidfd)
                self._pidfd = -1
        return self.returncode


def ask_for_worker(control: socket.socket, request: ForkRequest,
                   log_path: Path) -> tuple[ForkedProcess, IO[bytes], IO[bytes]]:
    """Ask the zygote at the other end of `control` for a worker: the worker, and the pipes to
    send it jobs and read its verdicts. ForkRefused if the zygote cannot (it may be gone)."""
    jobs_out, jobs_in = os.pipe()
    verdicts_out, verdicts_in = os.pipe()
    try:
        log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            socket.send_fds(control, [encode(request)], [jobs_out, verdicts_in, log])
        finally:
            for fd in (jobs_out, verdicts_in, log):
                os.close(fd)
        answer, pidfds = read_answer(control)
        if answer.error is not None or len(pidfds) != 1:
            for fd in pidfds:
                os.close(fd)
            raise ForkRefused(answer.error or "no pidfd came with the answer")
        process = ForkedProcess(pidfds[0])
    except (OSError, ValueError, ForkRefused) as error:
        os.close(jobs_in)
        os.close(verdicts_out)
        raise ForkRefused(str(error)) from error
    return process, os.fdopen(jobs_in, "wb", buffering=0), os.fdopen(verdicts_out, "rb", buffering=0)


def read_answer(control: socket.socket, wait: float = ANSWER_SECONDS,
                who: str = "the zygote") -> tuple[ForkAnswer, list[int]]:
    """One answer (and its descriptors): `who` sends nothing else, and only after a request, so
    a line read here is never followed by more."""
    buffer, fds = b"", []
    while not buffer.endswith(b"\n"):
        if not select.select([control], [], [], wait)[0]:
            raise ForkRefused(f"{who} did not answer within {wait:.0f} s")
        data, received, _, _ = socket.recv_fds(control, 1 << 16, 1)
        fds.extend(received)
        if not data:
            for fd in fds:
                os.close(fd)
            raise ForkRefused(f"{who} is gone")
        buffer += data
    return ForkAnswer.from_dict(json.loads(buffer)), fds


def _pid_here(pidfd: int) -> int:
    """The pid of a pidfd's process in this process's pid namespace (/proc/self/fdinfo)."""
    with open(f"/proc/self/fdinfo/{pidfd}", encoding="ascii") as info:
        for line in info:
            name, _, value = line.partition(":")
            if name == "Pid" and int(value) > 0:
                return int(value)
    raise OSError("the pidfd's process is gone or not visible here")
