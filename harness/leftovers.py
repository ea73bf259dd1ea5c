"""Find and kill what a dead test process left running, by a mark in its environment.

A fork-server worker kills what each job started (harness.child.reaper), but a worker can die
mid-job (killed for being stuck, by the OOM killer, or by the mutant itself), and a fresh
interpreter can be killed at its time limit. Their children then belong to init, in sessions
of their own, beyond any process-group kill. Every process the executors start carries
`BUGSMITH_PROCESS_MARK=<mark>` in its environment, which its children inherit (exec included,
unless a test clears the environment); the executors kill the processes with a mark after the
process that owned it has gone.

Linux only (/proc); elsewhere nothing is found.
"""

from __future__ import annotations

import os
import signal
import uuid

VARIABLE = "BUGSMITH_PROCESS_MARK"


def new_mark() -> str:
    """A mark no other executor, here or in another run, uses."""
    return uuid.uuid4().hex


def marked(mark: str, prefix: bool = False) -> list[int]:
    """The processes whose environment carries `mark` (or, with `prefix`, a mark that starts with it)."""
    needle = f"{VARIABLE}={mark}".encode()
    found: list[int] = []
    me = os.getpid()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:
            continue  # gone, or another user's
        if any(v == needle or (prefix and v.startswith(needle)) for v in variables):
            found.append(pid)
    return found


def kill_marked(mark: str, prefix: bool = False) -> int:
    """SIGKILL every process `marked` finds; the number killed."""
    killed = 0
    for pid in marked(mark, prefix):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (ProcessLookupError, PermissionError):
            pass
    return killed
