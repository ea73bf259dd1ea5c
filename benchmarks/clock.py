"""CPU time of this process and of every child it has reaped: a figure the shared machine's
load stretches far less than wall time."""

from __future__ import annotations

import resource


def cpu_seconds() -> float:
    """User + system seconds of this process and its reaped descendants so far."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total
