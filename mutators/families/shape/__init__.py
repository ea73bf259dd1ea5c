"""Shape bugs: an array keeps, gains or loses an axis, and numpy broadcasting hides the mistake.

The bugs people write in numpy and pandas code rarely crash: a (n, 1) column meets a (n,)
vector and silently becomes an (n, n) matrix, a reduction runs over the wrong axis and still
returns numbers. Each mutator matches a call or indexing pattern, never a file or a name of ours.
"""

from bugsmith.mutators.families.shape.axes import DropKeepdims, SwapAxis, TransposeEinsumOutput
from bugsmith.mutators.families.shape.dimension_checks import DimensionCheck
from bugsmith.mutators.families.shape.indexing import ColumnToRow, DropNewAxis
from bugsmith.mutators.families.shape.keywords import ShapeKeywordTrap
from bugsmith.mutators.families.shape.reshaping import DropFlatten, DropSqueeze, SqueezeAllAxes, TransposeReshape

MUTATORS = (
    DropSqueeze,
    SqueezeAllAxes,
    DropFlatten,
    TransposeReshape,
    DropKeepdims,
    SwapAxis,
    TransposeEinsumOutput,
    DropNewAxis,
    ColumnToRow,
    # Issue 40: a keyword trap of the one table, and a dimension check loosened or tightened.
    ShapeKeywordTrap,
    DimensionCheck,
)
