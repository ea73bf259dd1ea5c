"""Window bugs: a window, a range or a slice is one element too long or too short.

Off-by-one errors at the edge of a window are the classic silent bug of time-series and
scheduling code: the numbers stay plausible, only the first or last element of each window is
wrong. Bounds are matched by syntax (rolling calls, `range`, slices, comparisons against
limit-like names), never by our own file or function names.
"""

from bugsmith.mutators.families.window.bounds import BoundaryComparison, RangeBound, SliceBound
from bugsmith.mutators.families.window.keywords import WindowKeywordTrap
from bugsmith.mutators.families.window.rolling import MinPeriods, WindowSize

MUTATORS = (
    WindowSize,
    MinPeriods,
    RangeBound,
    SliceBound,
    BoundaryComparison,
    # Issue 40: the edge keywords of the one table of keyword traps.
    WindowKeywordTrap,
)
