"""The bug families, and everything the project knows about each one, in one table.

`Family` is that table: each member carries its `FamilyInfo`, and the order of the members is
the order every consumer uses (the registry, reports, exercise selection). Adding a family is
one member here, its subpackage `mutators/families/<value>/` exporting `MUTATORS`, and its
tests; the registry finds the subpackage from the member, and the harness reads the rest.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import overload


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyInfo:
    """What a family is about and how the harness treats its bugs."""

    summary: str  # one line: which bugs the family injects
    # A domain family models bugs of ML, data or scheduling code; a generic one could hit any code.
    domain: bool
    # Points an exercise gets for holding a bug of this family (see the harness's difficulty):
    # a domain bug needs knowledge of the domain to see, a wrong variable needs data-flow
    # reading, a flipped operator is the classic that reviewers are trained to spot.
    difficulty: int
    hint: str  # the first hint an exercise gives: what kind of bug to look for


class Family(enum.StrEnum):
    """Bug families; the realistic (domain) ones come first because they are the point.

    Order matters: when two operators make the same code, the registry's first one keeps its
    explanation, and a domain explanation says more than a classic one.
    """

    info: FamilyInfo

    SHAPE = "shape", FamilyInfo(
        summary="an array keeps, gains or loses an axis, and broadcasting hides the mistake",
        domain=True,
        difficulty=2,
        hint="Check the shapes: an axis, a reshape, a squeeze, a keepdims or a column index may be wrong.",
    )
    WINDOW = "window", FamilyInfo(
        summary="a window, a range or a slice is one element too long or too short",
        domain=True,
        difficulty=2,
        hint="Check a boundary: a window length, a range or slice bound, or a `<` that should be `<=`.",
    )
    LEAKAGE = "leakage", FamilyInfo(
        summary="a feature for time t uses data from after t, or from another entity",
        domain=True,
        difficulty=2,
        hint="Check what each row may see: a shift, a window's alignment, a fill direction, a sort "
        "or a grouping.",
    )
    SCHEDULING = "scheduling", FamilyInfo(
        summary="the queues, budgets and state machines of a batch scheduler go out of order",
        domain=True,
        difficulty=2,
        hint="Check the order of events in a step: when capacity is checked, when a request changes "
        "phase or leaves, and which end of a queue is used.",
    )
    METRIC = "metric", FamilyInfo(
        summary="ROC/AUC and ranking metrics built wrong: ties split, order flipped, axes swapped",
        domain=True,
        difficulty=2,
        hint="Check how the metric is built: tie groups, the sort order, the integration rule, "
        "the first point.",
    )
    CLASSIC = "classic", FamilyInfo(
        summary="one operator, comparison, constant, flag or returned value changed",
        domain=False,
        difficulty=0,
        hint="Check the small things: an operator, a comparison, a constant, a condition or a return value.",
    )
    BEYOND = "beyond", FamilyInfo(
        summary="the one-line bugs of bug datasets: a wrong name, a swapped pair, a forgotten call",
        domain=False,
        difficulty=1,
        hint="Follow the data: a variable, an argument order, an attribute or a call may be the wrong one.",
    )
    # Generic: found from data flow in any code. Last, so that where a scheduling operator makes
    # the same swap, its mutant (and its id and wording) stays.
    ORDER = "order", FamilyInfo(
        summary="the right statements in the wrong order: a check, a filter, a removal or a state "
        "change one statement too early or too late",
        domain=False,
        difficulty=1,
        hint="Check the order of neighbouring statements: a check after the change it guards, a filter "
        "after the sum, a removal or a state change one line too late or too early.",
    )

    # Two calls, two meanings: Enum calls `__new__` with each row above to make the members, and
    # afterwards `Family("shape")` is Enum's own lookup of a member by value, which the first
    # overload spells out for type checkers.
    @overload
    def __new__(cls, value: str) -> Family: ...
    @overload
    def __new__(cls, value: str, info: FamilyInfo) -> Family: ...
    def __new__(cls, value: str, info: FamilyInfo | None = None) -> Family:
        if info is None:  # a row above written without its FamilyInfo
            raise TypeError(f"Family {value!r} is defined without its FamilyInfo")
        # A str member (so `family == "shape"` and JSON keep working) that also holds its row.
        member = str.__new__(cls, value)
        member._value_ = value
        member.info = info
        return member

    @property
    def package(self) -> str:
        """The subpackage whose `MUTATORS` are this family's built-in mutators."""
        return f"{__package__}.families.{self.value}"
