"""The edits a repair search tries beyond the engine's own: the other way of each operator.

The engine's operators make bugs; many take each other back (`<` and `<=`, `any` and `all`), but
a one-way operator (`not` dropped, arguments dropped, a statement moved or deleted) has no
operator that writes the part back, so a search made of the engine's edits alone can never
repair such a bug and calls it "not found". These undo edits close that gap. They are used by
the repair search only (harness.exercises.measure.probes), never by a mutation run, whose
mutants and scores they would change.

The search sees what a candidate sees: the buggy program, the coverage and the test outcomes.
An undo edit is written from the buggy program alone, and from idioms any reader of such code
knows; it is never told where the bug is or what it was. Each carries a tier (`base`), by which
the search orders its tries on equally suspicious lines.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bugsmith.harness.exercises.measure.inverses.base import TOKEN, Undo
from bugsmith.harness.exercises.measure.inverses.checks import AlternativeBack, LabelSetBack, RangeEndBack, TypeBack
from bugsmith.harness.exercises.measure.inverses.keywords import AddKeyword, ArgumentOut, AxisBack, RemoveArgument
from bugsmith.harness.exercises.measure.inverses.statements import (
    ConditionBack,
    ElifBack,
    GuardBack,
    LoopTestBack,
    MoveBack,
    OriginBack,
    ResultBack,
    UpdateBack,
)
from bugsmith.harness.exercises.measure.inverses.tokens import (
    AttributeBack,
    CallBack,
    ColumnBack,
    InsertInvert,
    InsertMinus,
    InsertNot,
    MethodBack,
    NumberBack,
    OneBack,
    OperatorBack,
    PositionBack,
    SentinelBack,
    SliceBack,
    StringBack,
)
from bugsmith.harness.exercises.measure.inverses.twins import PartFromTwin
from bugsmith.harness.exercises.measure.inverses.wrappers import AreaBack, KeyBack, PartBack, Rewrap, StatisticBack
from bugsmith.mutators import registry
from bugsmith.mutators.base import AnyMutator
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Mutant

INVERSES: tuple[type[Undo], ...] = (
    InsertNot, InsertInvert, OperatorBack, MethodBack, StringBack, SentinelBack, NumberBack, ColumnBack,
    SliceBack, AttributeBack, OneBack, InsertMinus,
    AddKeyword, AxisBack, RemoveArgument, MoveBack, ElifBack, LoopTestBack, ResultBack,
    Rewrap, StatisticBack, AreaBack, KeyBack, PartBack, ConditionBack, GuardBack, UpdateBack, OriginBack,
    TypeBack, RangeEndBack, AlternativeBack, LabelSetBack,
    PartFromTwin,
    CallBack, PositionBack, ArgumentOut,
)


def undo_mutators(functions: frozenset[str] | None = None, lines: Collection[int] | None = None) -> list[AnyMutator]:
    """The undo edits, limited to the functions named in `functions` and to `lines` (None: everywhere)."""
    return [cls(functions, None if lines is None else sorted(lines)) for cls in INVERSES]


def repair_edits(source: str, *, file: str, module: str, functions: frozenset[str] | None = None,
                 forward: Sequence[AnyMutator] | None = None,
                 lines: Collection[int] | None = None) -> tuple[Mutant, ...]:
    """Every edit a repair search may try on `source` (on `lines` only, when named): the engine's
    operators' (`forward`, all of them when None) first, then the undo edits in `functions` that
    the engine does not make."""
    made = mutants_of_source(source, file=file, module=module, lines=lines,
                             mutators=registry.select(()) if forward is None else forward).mutants
    return (*made, *undo_edits(source, file=file, module=module, functions=functions, made=made, lines=lines))


def undo_edits(source: str, *, file: str, module: str, functions: frozenset[str] | None,
               made: Sequence[Mutant], lines: Collection[int] | None = None) -> tuple[Mutant, ...]:
    """The undo edits on `source` in `functions` (and on `lines`, when named), less those that an
    edit of `made` (the engine's edits of the same source) already makes: same place, same text."""
    seen = {(m.span, m.mutated) for m in made}
    undone = mutants_of_source(source, file=file, module=module, mutators=undo_mutators(functions, lines),
                               lines=lines).mutants
    return tuple(m for m in undone if (m.span, m.mutated) not in seen)


def tier(operator: str) -> int:
    """Where an edit of `operator` comes among the tries on equally suspicious lines."""
    for cls in INVERSES:
        if cls.name == operator:
            return cls.tier
    return TOKEN
