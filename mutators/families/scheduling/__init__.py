"""Scheduling bugs: the queues, budgets and state machines of batch schedulers.

Sites are found by code shape (a guard before an insertion, a filter reassignment after a
loop, a `popleft()`), never by our reference scheduler's names, so the family finds the same
bugs in any scheduler, job queue or rate limiter. Statement moves are proposed only when no
local name would be read before it is bound, so every mutant is a program a person could write.
"""

from bugsmith.mutators.families.scheduling.bookkeeping import BudgetOffByOne, CheckAfterInsert, LateCleanup
from bugsmith.mutators.families.scheduling.phases import EarlyTransition, ElifFallsThrough, SwapPhases
from bugsmith.mutators.families.scheduling.queue_order import (
    EnqueueWrongEnd,
    IterateReversed,
    PeekWrongEnd,
    PopWrongEnd,
    SortReversed,
)

MUTATORS = (
    CheckAfterInsert,
    BudgetOffByOne,
    LateCleanup,
    EarlyTransition,
    ElifFallsThrough,
    SwapPhases,
    PopWrongEnd,
    PeekWrongEnd,
    EnqueueWrongEnd,
    IterateReversed,
    SortReversed,
)
