"""One guarded call of the code under triage, and how two calls' behaviours differ."""

from __future__ import annotations

import copy
import signal
import warnings
from dataclasses import dataclass
from typing import Any

from bugsmith.harness.child.recorder import first_lines
from bugsmith.harness.child.triage.values import first_difference, short
from bugsmith.harness.shared.tasks import CALL_SECONDS


class _Hung(BaseException):
    """Raised by the alarm in a call that runs too long; a BaseException so code cannot catch it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """What one call did: its value and its arguments afterwards, or the exception it raised."""

    ok: bool
    value: Any = None
    after: Any = None
    exception: str = ""  # type name
    message: str = ""  # first lines of str(exception)
    hung: bool = False
    deliberate: bool = False  # raised by a `raise` in the code under triage: a refusal, a behaviour
    warned: tuple[str, ...] = ()  # the warnings it emitted, "Category: message", in order

    @property
    def valid(self) -> bool:
        """The original either returned or refused the input on purpose: a fair test input."""
        return self.ok or self.deliberate

    def describe(self) -> str:
        if self.hung:
            return "runs over its time limit"
        done = f"returns {short(self.value)}" if self.ok else f"raises {self.exception}: {short(self.message, 160)}"
        if self.warned:
            more = f" and {len(self.warned) - 1} more" if len(self.warned) > 1 else ""
            done += f" after warning {self.warned[0][:160]}{more}"
        return done


def call(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], seconds: float = CALL_SECONDS,
         files: frozenset[str] = frozenset()) -> Result:
    """Call on deep copies of the arguments, under an alarm; never raises.

    An exception whose innermost frame is in `files` was raised on purpose by that code.
    """

    def alarm(signum: int, frame: Any) -> None:
        raise _Hung

    try:
        args, kwargs = copy.deepcopy((args, kwargs))
    except Exception as error:  # noqa: BLE001 - an argument that cannot be copied
        return Result(ok=False, exception=type(error).__name__, message="the arguments cannot be copied")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    # Warnings are behaviour a user sees (a deprecation, a lost precision): every one is kept,
    # none is shown or turned into an error by the suite's filters.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = function(*args, **kwargs)
            return Result(ok=True, value=value, after=(args, kwargs), warned=_warned(caught))
        except _Hung:
            return Result(ok=False, hung=True)
        except BaseException as error:  # noqa: BLE001 - the mutant's exception is a behaviour
            return Result(ok=False, exception=type(error).__name__, message=first_lines(error, 3, 400),
                          deliberate=isinstance(error, Exception) and _innermost(error) in files,
                          warned=_warned(caught))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _warned(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    return tuple(f"{w.category.__name__}: {first_lines(w.message, 2, 300)}"
                 for w in caught)


def _innermost(error: BaseException) -> str:
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename if tb is not None else ""


def difference(original: Result, mutant: Result) -> str | None:
    """How the mutant's behaviour differs from the original's on a valid input, or None: the
    kind of difference, then where the values first differ."""
    if original.ok:
        if not mutant.ok:
            return "hangs" if mutant.hung else "raises"
        if (found := first_difference(original.value, mutant.value)) is not None:
            return f"returns a different value: {found}"
        if (found := first_difference(original.after, mutant.after)) is not None:
            return f"leaves its arguments in a different state: {found.removeprefix('at ')}"
        return _other_warnings(original, mutant)
    if not original.deliberate:
        return None
    if mutant.ok:
        return "returns instead of refusing the input"
    if mutant.hung:
        return "hangs"
    if (mutant.exception, mutant.message) != (original.exception, original.message):
        return "refuses the input with another error"
    return _other_warnings(original, mutant)


def _other_warnings(original: Result, mutant: Result) -> str | None:
    if original.warned == mutant.warned:
        return None
    found = first_difference(list(original.warned), list(mutant.warned))
    return f"emits other warnings: {found}"
