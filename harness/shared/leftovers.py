"""Find and kill what a dead test process left running, by a mark in its environment.

A fork-server worker kills what each job started (harness.child.reaper), but a worker can die
mid-job (killed for being stuck, by the OOM killer, or by the mutant itself), and a fresh
interpreter can be killed at its time limit. Their children then belong to init, in sessions
of their own, beyond any process-group kill. Every process the executors start carries
`BUGSMITH_PROCESS_MARK=<mark>` in its environment, which its children inherit (exec included,
unless a test clears the environment); the executors kill the processes with a mark after the
process that owned it has gone.

A worker forked from a zygote (harness.shared.zygote) did not exec, so its environment as /proc shows
it is the zygote's: `remark` rewrites the mark in place, in the block of memory /proc reads,
which is why every mark of one pool has the same length (`member_mark`).

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


def member_mark(mark: str, member: int | str) -> str:
    """The mark of one process of the pool marked `mark`: a worker's number, or ZYGOTE; all of
    the same length, so that `remark` can turn one into another in place."""
    return f"{mark}/{member:0>{len(ZYGOTE)}}"


ZYGOTE = "zygote"


def remark(mark: str) -> bool:
    """Make this process carry `mark` instead of its own, for /proc and for what it starts from
    now on (forked or exec'd); False, changing nothing, where that cannot be done (not Linux,
    no mark of the same length).

    /proc/PID/environ shows the block of memory the environment was in when the process was
    exec'd, which a fork copies and setenv never changes: the new mark is written into that
    block itself, through /proc/self/mem.
    """
    old = os.environ.get(VARIABLE)
    if old is None or len(old) != len(mark):
        return False
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end: fields 50 and 51
        with open("/proc/self/mem", "r+b", buffering=0) as memory:
            memory.seek(start)
            block = b"\0" + memory.read(end - start)
            at = block.find(f"\0{VARIABLE}={old}\0".encode())
            if at < 0:
                return False
            memory.seek(start + at + len(VARIABLE) + 1)
            memory.write(mark.encode())
    except (OSError, IndexError, ValueError):
        return False
    os.environ[VARIABLE] = mark
    return True


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
