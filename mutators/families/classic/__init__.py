"""Classic mutation operators, as in mutmut, cosmic-ray and PIT, but only the plausible swaps.

Each operator changes one token the way a person mistypes or misremembers it: `+` for `-`,
`<` for `<=`, `and` for `or`, a dropped `not`, a constant off by one. Swaps that only make
absurd code are left out: arithmetic on string, list or tuple literals (concatenation and
`%` formatting), constants that make an identity (`x + 0`, `x * 1`), seeds and verbosity
levels, `while True` loops. When a rewrite's validity is doubtful, nothing is proposed.
"""

from bugsmith.mutators.families.classic.constants import NumberChange, TrueFalse
from bugsmith.mutators.families.classic.jumps import BreakContinue, ReturnBool, ReturnNone
from bugsmith.mutators.families.classic.operators import (
    AndOr,
    ArithmeticSwap,
    AugmentedSwap,
    ComparisonBoundary,
    ComparisonFlip,
    ComparisonNegate,
    DropUnary,
)

MUTATORS = (
    ArithmeticSwap,
    AugmentedSwap,
    ComparisonBoundary,
    ComparisonFlip,
    ComparisonNegate,
    AndOr,
    DropUnary,
    NumberChange,
    TrueFalse,
    ReturnNone,
    ReturnBool,
    BreakContinue,
)
