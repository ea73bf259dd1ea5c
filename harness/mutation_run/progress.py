"""The progress a run reports as it goes (triage reports its probes with the same record)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress:
    """Reported after each verdict, for a progress bar."""

    done: int
    total: int
    counts: dict[str, int]
    elapsed: float  # seconds since the stage started
    stage: str = "mutants"
    first: int = 0  # done before the stage started (stored or immediate verdicts)

    @property
    def eta(self) -> float | None:
        # From this stage's own pace: stored verdicts cost nothing and the baseline is over.
        measured = self.done - self.first
        if measured <= 0 or self.done >= self.total:
            return None
        return self.elapsed / measured * (self.total - self.done)


ProgressCallback = Callable[[Progress], None]
