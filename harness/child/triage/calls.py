"""One guarded call of the code under triage, and how two calls' behaviours differ."""

from __future__ import annotations

import copy
import signal
from dataclasses import dataclass
from typing import Any

from bugsmith.harness.child.recorder import first_lines
from bugsmith.harness.child.triage.values import same, short
from bugsmith.harness.tasks import CALL_SECONDS


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

    @property
    def valid(self) -> bool:
        """The original either returned or refused the input on purpose: a fair test input."""
        return self.ok or self.deliberate

    def describe(self) -> str:
        if self.ok:
            return f"returns {short(self.value)}"
        if self.hung:
            return "runs over its time limit"
        return f"raises {self.exception}: {short(self.message, 160)}"


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
    try:
        value = function(*args, **kwargs)
        return Result(ok=True, value=value, after=(args, kwargs))
    except _Hung:
        return Result(ok=False, hung=True)
    except BaseException as error:  # noqa: BLE001 - the mutant's exception is a behaviour
        return Result(ok=False, exception=type(error).__name__, message=first_lines(error, 3, 400),
                      deliberate=isinstance(error, Exception) and _innermost(error) in files)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _innermost(error: BaseException) -> str:
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename if tb is not None else ""


def difference(original: Result, mutant: Result) -> str | None:
    """How the mutant's behaviour differs from the original's on a valid input, or None."""
    if original.ok:
        if not mutant.ok:
            return "hangs" if mutant.hung else "raises"
        if not same(original.value, mutant.value):
            return "returns a different value"
        if not same(original.after, mutant.after):
            return "leaves its arguments in a different state"
        return None
    if not original.deliberate:
        return None
    if mutant.ok:
        return "returns instead of refusing the input"
    if mutant.hung:
        return "hangs"
    if (mutant.exception, mutant.message) != (original.exception, original.message):
        return "refuses the input with another error"
    return None
