"""Beyond classic: the one-line bugs that fill the published bug datasets.

ManySStuBs4J, BugsInPy and PyTraceBugs show that about half of real one-line bugs are not an
operator typo but a wrong name, a swapped pair, a forgotten call or update, a dropped guard, or
a bound one off; mutmut and cosmic-ray make none of them.
"""

from bugsmith.mutators.families.beyond.argument_placement import CrossedArguments, MisplacedArgument
from bugsmith.mutators.families.beyond.call_mixups import SiblingCall, SiblingKeyword, UnwrapArgument, UnwrapCall
from bugsmith.mutators.families.beyond.constant_answers import (
    AssignConstantBool,
    EmptyResult,
    LoopForever,
    ReturnConstantBool,
)
from bugsmith.mutators.families.beyond.deletions import (
    DeleteCall,
    DeleteConditionalUpdate,
    DeleteRebinding,
    DeleteUpdate,
    DropCondition,
    DropTry,
    FirstBranchOnly,
    RemoveGuard,
)
from bugsmith.mutators.families.beyond.forgotten_parts import (
    DropClause,
    DropKey,
    DropKeyword,
    DropOperand,
    LabelToIndex,
    PositionToLabel,
    Uncalled,
)
from bugsmith.mutators.families.beyond.keywords import BeyondKeywordTrap
from bugsmith.mutators.families.beyond.membership import WrongContainer
from bugsmith.mutators.families.beyond.off_by_one import AddOne, DropOne, DropSliceBound
from bugsmith.mutators.families.beyond.swaps import SwapArguments, SwapElements, SwapIndices, SwapOperands
from bugsmith.mutators.families.beyond.twins import TwinCopied, TwinNotUpdated
from bugsmith.mutators.families.beyond.validation import DropAlternative, DropCase, DropRangeEnd, TypeCheck
from bugsmith.mutators.families.beyond.wrong_names import SiblingAttribute, WrongAttribute, WrongVariable
from bugsmith.mutators.families.beyond.wrong_values import SwapException, SwapSentinel

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
    # Added for the BugsInPy realism benchmark (benchmarks/realism.py); appended so that the
    # mutants above keep their wording where two operators make the same code.
    DropClause,
    DropCondition,
    DeleteConditionalUpdate,
    DropKeyword,
    UnwrapArgument,
    DropOperand,
    DeleteRebinding,
    ReturnConstantBool,
    EmptyResult,
    LoopForever,
    SiblingAttribute,
    SwapSentinel,
    SwapException,
    DropKey,
    LabelToIndex,
    # Added for issue 16's catalogue: the wrong collection checked for membership.
    WrongContainer,
    # Issue 40: a keyword trap of the one table; a check loosened or tightened by one case.
    BeyondKeywordTrap,
    DropAlternative,
    TypeCheck,
    DropRangeEnd,
    # Issue 40: an edit made in one of two twins (mutators/analysis/twins.py draws the line).
    TwinCopied,
    TwinNotUpdated,
    # Issue 40, second step: an argument passed to the wrong call (BugsInPy's missed fixes).
    CrossedArguments,
    MisplacedArgument,
    SwapElements,
    Uncalled,
    AssignConstantBool,
    PositionToLabel,
    FirstBranchOnly,
    DropTry,
    DropCase,
)
