"""When a test running in a forked child has had its time: the wall clock, less the time the
child spent ready to run but waiting for a core.

A test's limit comes from its baseline time. On a loaded machine a child gets a share of a
core, and the wall clock alone stops a test that has had half its time or less: a mutant that
only makes a test slower, or none at all, looks like a hang, and the verdict depends on what
else the machine was doing. The kernel counts, for each task, the time it spent runnable on a
run queue without the CPU (/proc/PID/schedstat, second field). So when the wall clock says a
test's time is up, the worker gives the test back what it lost that way since it began. A
test that sleeps or waits (a lock, a pipe, `time.sleep`) loses nothing: its time is the wall
clock's, as under plain pytest. Of the processes the child started (a fresh interpreter, a
subprocess), the one that waited longest counts.

Where the kernel does not tell (another OS, no scheduler statistics), the wall clock alone
decides, as before; and no test runs past STRETCH (harness.shared.protocol) times its limit, however
loaded the machine: a child that gets a fifth of a core (a load of ten on two cores) still has
its whole limit.
"""

from __future__ import annotations

import faulthandler
import os
import threading
import time
from dataclasses import dataclass, field
from typing import BinaryIO

from bugsmith.harness.child.reaper import descendants
from bugsmith.harness.shared.protocol import STRETCH

# Time is up when less than this share of the limit is still owed: the check's own delay is
# not worth another wait.
SLACK = 0.05


def waited(pid: int) -> float | None:
    """Seconds `pid`'s main thread spent runnable but without a CPU, or None where the kernel
    does not tell."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


@dataclass(slots=True)
class TestClock:
    """The running test's deadline in one child: `start` it at each test, `extend` it when the
    child asks for more (an import), and ask `due` when the wall clock says the time is up."""

    pid: int
    limit: float = 0.0
    wall: float = 0.0  # when the test began, time.monotonic()
    before: dict[int, float] = field(default_factory=dict)  # `waited` of each process then

    __test__ = False  # not a pytest test class

    def start(self, limit: float, now: float | None = None) -> float:
        """A new test with `limit` seconds: its first wall-clock deadline."""
        self.limit, self.wall = limit, time.monotonic() if now is None else now
        self.before = self._waits()
        return self.wall + limit

    def extend(self, seconds: float) -> None:
        self.limit += seconds

    def due(self, at: float | None = None) -> float | None:
        """None when the test has had its time (by `at`, a moment a little ahead; default now);
        else the next wall-clock deadline: when it will have had its limit with what it lost
        waiting for a core given back, never past STRETCH x its limit from its start."""
        now = time.monotonic() if at is None else at
        if self.pid not in self.before:
            return None
        lost = max((wait - self.before.get(pid, 0.0) for pid, wait in self._waits().items()), default=0.0)
        owed = self.limit - (now - self.wall - lost)
        if owed <= SLACK * self.limit:
            return None
        backstop = self.wall + STRETCH * self.limit
        return None if now >= backstop else min(now + owed, backstop)

    def _waits(self) -> dict[int, float]:
        found = {}
        for pid in (self.pid, *descendants(self.pid)):
            wait = waited(pid)
            if wait is not None:
                found[pid] = wait
        return found


# How long before faulthandler's deadline the watcher checks the waits: enough for a thread
# that needs the GIL back from a test running Python code (a switch every 5 ms).
_EARLY = 0.1


class OwnClock:
    """The same clock inside a fresh interpreter, which stops itself: faulthandler's timer (a C
    thread, so that a test holding the GIL in C code is stopped too) is armed at the limit, and
    a watcher thread moves it later just before it fires by what the process waited for a core.
    When a test holds the GIL the watcher cannot run, and the timer fires at the limit, as it
    did before."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.clock = TestClock(os.getpid())
        self.deadline: float | None = None
        self.changed = threading.Condition()
        threading.Thread(target=self._watch, name="bugsmith-test-clock", daemon=True).start()

    def arm(self, limit: float) -> None:
        with self.changed:
            self.deadline = self.clock.start(limit)
            faulthandler.dump_traceback_later(limit, exit=True, file=self.stream)
            self.changed.notify()

    def disarm(self) -> None:
        with self.changed:
            faulthandler.cancel_dump_traceback_later()
            self.deadline = None
            self.changed.notify()

    def _watch(self) -> None:
        with self.changed:
            while True:
                if self.deadline is None:
                    self.changed.wait()
                    continue
                early = self.deadline - _EARLY - time.monotonic()
                if early > 0:
                    self.changed.wait(early)
                    continue
                later = self.clock.due(at=self.deadline)
                if later is None:  # its time is up: the timer fires at the deadline
                    self.deadline = None
                    continue
                # at least a moment: faulthandler refuses a timeout of 0, and a late watcher may find `later` past
                faulthandler.dump_traceback_later(max(later - time.monotonic(), 0.001), exit=True, file=self.stream)
                self.deadline = later
