"""Order bugs: the right statements in the wrong order.

Each operator moves a statement past the neighbour it depends on, where the move is a classic
mistake: a check after the change it guards, a filter after the reduction it should precede, a
removal after the read that must not see it, a state transition before the work that earns it.
One rule makes them all (`swap.NeighbourSwap`): the two statements share state, one changing what
the other reads, found from data flow (`effects`) and the statements' shapes (`roles`), never
from names; the statements passed on the way share none with the moved one; and the new program
reads no name before it is bound and moves no `return`, `raise`, `break` or `continue`.
"""

from bugsmith.mutators.families.order.guards import CheckAfterChange
from bugsmith.mutators.families.order.lifecycle import RemovalAfterRead, TransitionBeforeWork
from bugsmith.mutators.families.order.masks import FilterAfterReduction

MUTATORS = (
    CheckAfterChange,
    FilterAfterReduction,
    RemovalAfterRead,
    TransitionBeforeWork,
)
