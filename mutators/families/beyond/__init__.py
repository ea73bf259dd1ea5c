"""Beyond classic: the one-line bugs that fill the published bug datasets.

ManySStuBs4J, BugsInPy and PyTraceBugs show that about half of real one-line bugs are not an
operator typo but a wrong name, a swapped pair, a forgotten call or update, a dropped guard, or
a bound one off; mutmut and cosmic-ray make none of them.
"""

from bugsmith.mutators.families.beyond.call_mixups import SiblingCall, SiblingKeyword, UnwrapCall
from bugsmith.mutators.families.beyond.deletions import DeleteCall, DeleteUpdate, RemoveGuard
from bugsmith.mutators.families.beyond.off_by_one import AddOne, DropOne, DropSliceBound
from bugsmith.mutators.families.beyond.swaps import SwapArguments, SwapIndices, SwapOperands
from bugsmith.mutators.families.beyond.wrong_names import WrongAttribute, WrongVariable

MUTATORS = (
    WrongVariable,
    WrongAttribute,
    SwapArguments,
    SwapOperands,
    SwapIndices,
    UnwrapCall,
    SiblingCall,
    SiblingKeyword,
    DeleteCall,
    DeleteUpdate,
    RemoveGuard,
    DropOne,
    AddOne,
    DropSliceBound,
)
