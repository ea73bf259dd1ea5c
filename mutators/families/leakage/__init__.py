"""Leakage bugs: a feature computed for time t quietly uses data from after t, or from another entity.

Leakage is the bug that makes a model look better: every test of "does it run" and most tests
of "is the number plausible" still pass, and the validation score goes up. The mutators match
the pandas idioms that keep features causal (lags, trailing windows, forward fills, per-entity
groups, sorting by time) and undo or reverse them.
"""

from bugsmith.mutators.families.leakage.lags import DropShift, FlipShift
from bugsmith.mutators.families.leakage.lookahead import AsofDirection, BackFill, CenterWindow, ClosedWindow
from bugsmith.mutators.families.leakage.pooling import CumulativeToTotal, DropGroupby, FullSampleStatistic
from bugsmith.mutators.families.leakage.sorting import DropSort

MUTATORS = (
    DropShift,
    FlipShift,
    CenterWindow,
    ClosedWindow,
    BackFill,
    AsofDirection,
    DropGroupby,
    FullSampleStatistic,
    CumulativeToTotal,
    DropSort,
)
