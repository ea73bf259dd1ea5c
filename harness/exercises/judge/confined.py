"""One sandboxed process and the pipe it reports on: start it, read its messages by a deadline, kill it.

The process writes JSON lines on a pipe whose descriptor it finds in its environment
(`sandboxed.channel`); its standard output and error go to a file, never to a pipe, so
that whatever it prints cannot block it or the grader. Messages are read as data only:
a line that is not a JSON object, or more bytes than the process may send, ends the
reading as if the process had closed the pipe.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import replace
from typing import Any

from bugsmith.harness.exercises.judge.sandboxed.channel import FD_VARIABLE
from bugsmith.harness.shared.sandbox import Sandbox, command

MAX_LINE = 16 * 2**20
OUTPUT_TAIL = 4000


class Ended:
    """The process closed its pipe (it exited, or stopped reporting)."""


class Late:
    """No message came before the deadline."""


ENDED, LATE = Ended(), Late()


class Confined:
    """A context manager around one sandboxed command; `message(deadline)` reads the next message."""

    def __init__(self, sandbox: Sandbox, argv: list[str], *, max_bytes: int = 128 * 2**20) -> None:
        self.read_fd, write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        launch = command(replace(sandbox, env={**sandbox.env, FD_VARIABLE: str(write_fd)}), argv)
        self.output = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(launch.argv, env=launch.env, cwd=launch.cwd, pass_fds=(write_fd,),
                                            stdin=subprocess.DEVNULL, stdout=self.output, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        finally:
            os.close(write_fd)
        self.buffer = b""
        self.left = max_bytes
        self.ended = False

    def __enter__(self) -> Confined:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        os.close(self.read_fd)
        self.output.close()

    def message(self, deadline: float) -> dict[str, Any] | Ended | Late:
        """The next message, ENDED once the pipe is closed, or LATE at `deadline` (time.monotonic())."""
        while True:
            line, newline, rest = self.buffer.partition(b"\n")
            if newline:
                self.buffer = rest
                return self._parse(line)
            if self.ended:
                return ENDED
            wait = deadline - time.monotonic()
            if wait <= 0:
                return LATE
            ready, _, _ = select.select([self.read_fd], [], [], wait)
            if not ready:
                return LATE
            try:
                chunk = os.read(self.read_fd, 1 << 16)
            except BlockingIOError:
                continue
            self.left -= len(chunk)
            if not chunk or self.left < 0 or len(self.buffer) > MAX_LINE:
                self.ended, self.buffer = True, b""
                continue
            self.buffer += chunk

    def _parse(self, line: bytes) -> dict[str, Any] | Ended:
        try:
            found = json.loads(line)
        except (ValueError, RecursionError):
            found = None
        if not isinstance(found, dict):
            self.ended, self.buffer = True, b""
            return ENDED
        return found

    def finish(self, deadline: float) -> bool:
        """Wait for the process to exit until `deadline`; kill it past that. True if it exited by itself."""
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            return True
        except subprocess.TimeoutExpired:
            self.kill()
            return False

    def kill(self) -> None:
        """Kill the process: bubblewrap's death takes every process in the sandbox with it."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()

    def output_tail(self) -> str:
        self.output.seek(0, os.SEEK_END)
        size = self.output.tell()
        self.output.seek(max(0, size - OUTPUT_TAIL))
        return self.output.read().decode("utf-8", "replace")
