"""One guarded call of the code under triage, and how two calls' behaviours differ."""

from __future__ import annotations

import copy
import signal
from dataclasses import dataclass
from typing import Any

from harness.triage.values import same, short

CALL_SECONDS = 2.0  # one call of the function under triage, original or mutant


class _Hung(BaseException):
    """Raised by the alarm in a call that runs too long; a BaseException so code cannot catch it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """What one call did: its value and its arguments afterwards, or the exception it raised."""

    ok: bool
    value: Any = None
    after: Any = None
    error: str = ""


def call(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], seconds: float = CALL_SECONDS) -> Result:
    """Call on deep copies of the arguments, under an alarm; never raises."""

    def alarm(signum: int, frame: Any) -> None:
        raise _Hung

    try:
        args, kwargs = copy.deepcopy((args, kwargs))
    except Exception as error:  # noqa: BLE001 - an argument that cannot be copied
        return Result(ok=False, error=f"cannot copy the arguments: {type(error).__name__}")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        value = function(*args, **kwargs)
        return Result(ok=True, value=value, after=(args, kwargs))
    except _Hung:
        return Result(ok=False, error=f"runs over {seconds:g} s")
    except BaseException as error:  # noqa: BLE001 - the mutant's exception is a behaviour
        return Result(ok=False, error=f"{type(error).__name__}: {short(str(error), 120)}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def difference(original: Result, mutant: Result) -> str | None:
    """How the mutant's behaviour differs from a successful original call, or None."""
    if not mutant.ok:
        return f"raises {mutant.error}" if "runs over" not in mutant.error else mutant.error
    if not same(original.value, mutant.value):
        return "returns a different value"
    if not same(original.after, mutant.after):
        return "leaves its arguments in a different state"
    return None
