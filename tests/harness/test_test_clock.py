"""The clock a forked test runs against (harness.child.test_clock): the wall clock, less the
time the child waited for a core. A busy test on a core of its own, and a test that sleeps,
are stopped at their limit; one that shares its core with another busy process is given back
what it lost."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bugsmith.harness.child.reaper import descendants
from bugsmith.harness.child.test_clock import TestClock, waited
from bugsmith.harness.shared.protocol import STRETCH

pytestmark = pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/schedstat"),
                                reason="the kernel keeps no scheduler statistics here")

LIMIT = 0.4


@contextmanager
def children(*bodies: str) -> Iterator[list[int]]:
    """Forked children: "spin" loops, "sleep" sleeps, "spawn" starts a spinning child and waits
    for it. Each is pinned to the first CPU this process may use, with the others."""
    core = min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    pids = []
    for body in bodies:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                if core is not None:
                    os.sched_setaffinity(0, {core})
                if body == "spawn" and os.fork() != 0:
                    os.wait()
                elif body == "sleep":
                    time.sleep(600)
                while True:
                    pass
            finally:
                os._exit(0)
        pids.append(pid)
    try:
        yield pids
    finally:
        for pid in pids:
            for process in [*descendants(pid), pid]:
                os.kill(process, 9)
            os.waitpid(pid, 0)


def _wall_until_due(pid: int) -> float:
    """Wall seconds from a test's start until the clock says its time is up."""
    time.sleep(0.05)  # let the child settle into what it does
    clock = TestClock(pid)
    deadline = clock.start(LIMIT)
    while True:
        time.sleep(max(0.0, deadline - time.monotonic()))
        later = clock.due()
        if later is None:
            return time.monotonic() - clock.wall
        assert later >= deadline - 1e-6  # never earlier than the deadline it replaces
        deadline = later


def test_a_test_that_sleeps_is_stopped_at_its_limit() -> None:
    """Sleeping, it loses no time to other processes: its time is the wall clock's."""
    with children("sleep") as [pid]:
        wall = _wall_until_due(pid)
    assert LIMIT <= wall < 2 * LIMIT


def test_a_test_that_shares_its_core_is_given_back_the_time_it_waited() -> None:
    """Two busy processes on one core: each gets about half of it, and the test runs about
    twice its limit by the wall clock. A loaded machine only makes it wait longer, up to
    STRETCH x its limit: the relation holds at any load."""
    with children("spin", "spin") as [pid, _]:
        wall = _wall_until_due(pid)
    assert 1.5 * LIMIT <= wall <= STRETCH * LIMIT + 0.5


def test_the_waits_of_processes_a_test_started_count() -> None:
    """A test waiting for a process of its own (a fresh interpreter) that shares its core with
    another busy process: what that process lost is given back too."""
    with children("spawn", "spin") as [pid, _]:
        wall = _wall_until_due(pid)
    assert 1.5 * LIMIT <= wall <= STRETCH * LIMIT + 0.5


def test_a_process_that_is_gone_leaves_the_wall_clock_to_decide() -> None:
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        os._exit(0)
    os.waitpid(pid, 0)
    assert waited(pid) is None
    clock = TestClock(pid)
    clock.start(LIMIT)
    assert clock.due() is None


_OWN = """
import os, re, sys, time
from bugsmith.harness.child.test_clock import OwnClock
core = min(os.sched_getaffinity(0))
os.sched_setaffinity(0, {{core}})
if {share} and os.fork() == 0:  # a busy process beside it on its core, for a while
    os.close(1)
    os.close(2)
    until = time.monotonic() + 4
    while time.monotonic() < until:
        pass
    os._exit(0)
clock = OwnClock(sys.stdout.buffer)
began = time.monotonic()
sys.stderr.write(f"{{began}}\\n")
sys.stderr.flush()
clock.arm({limit})
{body}
"""


def _own_clock_wall(body: str, share: bool) -> float:
    """Wall seconds until a fresh interpreter running `body` under OwnClock is stopped."""
    script = _OWN.format(limit=LIMIT, body=body, share=share)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=60)
        ended = time.monotonic()
    finally:  # the busy process beside it too, whatever happened
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    began = float(err.decode().splitlines()[0])
    assert b"Timeout" in out  # faulthandler stopped it
    return ended - began


def test_a_fresh_interpreter_that_shares_its_core_is_given_back_the_time_it_waited() -> None:
    wall = _own_clock_wall("while True:\n    pass", share=True)
    assert 1.5 * LIMIT <= wall <= STRETCH * LIMIT + 1.0


def test_a_fresh_interpreter_stuck_in_c_code_is_stopped_at_its_limit() -> None:
    """A regular expression that backtracks for ever holds the GIL: the watcher cannot run, and
    faulthandler's timer stops the process at its limit by the wall clock, as before."""
    wall = _own_clock_wall("re.match(r'(a+)+$', 'a' * 64 + 'b')", share=False)
    assert LIMIT <= wall < 3 * LIMIT
