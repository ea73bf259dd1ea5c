"""Every process a mutant starts dies with it: the worker adopts and kills its descendants.

A mutant may start processes, and a process that puts itself in a session or process group of
its own (`start_new_session=True`, `setsid`, a double fork) escapes the kill of the mutant's
process group. On Linux the fork-server worker makes itself a *child subreaper*
(prctl PR_SET_CHILD_SUBREAPER): every orphan below it is re-parented to it instead of to init,
so after each job the worker finds all of them by walking its children and kills them.
Each forked child also asks to die with the worker (PR_SET_PDEATHSIG), so that a worker killed
mid-job takes its job with it; what that job started is then found by the coordinator
(harness.shared.leftovers), through the marker in its environment.

Elsewhere (no prctl) these are no-ops and the process-group kill is all there is.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
KILL_SECONDS = 5.0  # a process in uninterruptible sleep may take a while to die


@functools.cache
def _libc_prctl() -> Any:
    """libc's prctl, looked up once: the worker's first call leaves it ready in every child,
    which would otherwise load the library again for each mutant."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _prctl(option: int, value: int) -> bool:
    prctl = _libc_prctl()
    return prctl is not None and int(prctl(option, value, 0, 0, 0)) == 0


def become_subreaper() -> bool:
    """Adopt every orphan among this process's descendants; False where the OS cannot."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent ends (call right after fork, with the parent's pid)."""
    if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL) and os.getppid() != parent:
        os._exit(1)  # the parent died before the request took effect


def children(pid: int) -> list[int]:
    """The direct children of `pid` (every thread's), from /proc; [] where /proc cannot tell."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listing:
                found.extend(int(child) for child in listing.read().split())
        except OSError:
            continue
    return found


def descendants(pid: int, spare: frozenset[int] = frozenset()) -> list[int]:
    """Every process below `pid` but those in `spare` and theirs, parents before their children."""
    found: list[int] = []
    level = [child for child in children(pid) if child not in spare]
    while level:
        found.extend(level)
        level = [grandchild for child in level for grandchild in children(child)]
    return found


def kill_descendants(spare: frozenset[int] = frozenset()) -> int:
    """SIGKILL every process below this one (but `spare`, the ones it started itself, and
    theirs) and reap them; the number killed.

    Killing a parent hands its children to this process (a subreaper), so the walk repeats
    until nothing is left or KILL_SECONDS have passed.
    """
    me = os.getpid()
    killed: set[int] = set()
    deadline = time.monotonic() + KILL_SECONDS
    while (below := descendants(me, spare)) and time.monotonic() < deadline:
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        reap()
        time.sleep(0.001)
    reap()
    return len(killed)


def reap() -> list[int]:
    """Collect every child that has ended (adopted orphans included), without waiting: their pids."""
    reaped: list[int] = []
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.append(pid)
