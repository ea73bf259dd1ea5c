"""Metric bugs: ROC/AUC, precision/recall and ranking metrics that return plausible numbers.

An AUC of 0.83 instead of 0.85 looks fine to everyone. These mutators model the mistakes that
produce such numbers: ties split into a staircase, the sort order flipped, rectangles instead
of trapezoids, the two axes of a curve swapped, the (0, 0) point missing, a rate normalised by
the wrong class count. Sites are found by numpy idioms (`np.diff`, `argsort`, `[1:] + [:-1]`)
and by the names every ROC implementation uses (tps/fps, tpr/fpr), never by our file names.
"""

from bugsmith.mutators.families.metric.area import RectangleRule, StepAtWrongEnd, TrapezoidToSum
from bugsmith.mutators.families.metric.class_roles import SwapCurveAxes, WrongClassCount
from bugsmith.mutators.families.metric.keywords import MetricKeywordTrap
from bugsmith.mutators.families.metric.label_checks import LabelSetToCount
from bugsmith.mutators.families.metric.origin import DropOrigin
from bugsmith.mutators.families.metric.ranking import FlipSortOrder, OrdinalRanks, SplitTieGroups, UnstableSort

MUTATORS = (
    SplitTieGroups,
    OrdinalRanks,
    FlipSortOrder,
    UnstableSort,
    WrongClassCount,
    RectangleRule,
    TrapezoidToSum,
    StepAtWrongEnd,
    SwapCurveAxes,
    DropOrigin,
    # Issue 40: a keyword trap of the one table, and a label check turned into a count.
    MetricKeywordTrap,
    LabelSetToCount,
)
