"""One guarded call of the code under triage, and how two calls' behaviours differ."""

from __future__ import annotations

import copy
import dis
import signal
import warnings
from dataclasses import dataclass
from typing import Any

from bugsmith.harness.child.recorder import first_lines
from bugsmith.harness.child.triage.observable import differing_paths, first_difference, without_addresses
from bugsmith.harness.child.triage.values import short
from bugsmith.harness.shared.tasks import CALL_SECONDS

_RAISES = frozenset(dis.opmap[name] for name in ("RAISE_VARARGS", "RERAISE"))


class _Hung(BaseException):
    """Raised by the alarm in a call that runs too long; a BaseException so code cannot catch it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """What one call did: its value and its arguments afterwards, or the exception it raised."""

    ok: bool
    value: Any = None
    after: Any = None
    exception: str = ""  # type name
    raised_from: str = ""  # the module that defines the exception's type, for a test to import it
    message: str = ""  # first lines of str(exception)
    hung: bool = False
    # Raised by a `raise` statement in the code under triage: a refusal, a behaviour. An error the
    # interpreter raised there (an AttributeError on an argument of the wrong type) is not.
    deliberate: bool = False
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Compared:
    """The original's and the mutant's behaviour on one input; `why` they differ, or None."""

    first: Result
    second: Result
    why: str | None


def call(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], seconds: float = CALL_SECONDS,
         files: frozenset[str] = frozenset()) -> Result:
    """Call on deep copies of the arguments, under an alarm; never raises.

    An exception raised by a `raise` statement of the code in `files` was raised on purpose.
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
            return Result(ok=True, value=value, after=_observable(function, args, kwargs), warned=_warned(caught))
        except _Hung:
            return Result(ok=False, hung=True)
        except BaseException as error:  # noqa: BLE001 - the mutant's exception is a behaviour
            return Result(ok=False, exception=type(error).__name__, raised_from=type(error).__module__,
                          message=first_lines(error, 3, 400),
                          deliberate=isinstance(error, Exception) and _raised_in(error, files),
                          warned=_warned(caught))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _observable(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The arguments after the call, as a test sees them: a `__deepcopy__`'s memo (the copy
    protocol's bookkeeping, keyed by addresses) is left out, in place, as None."""
    if getattr(function, "__name__", "") != "__deepcopy__":
        return args, kwargs
    return args[:1] + (None,) * (len(args) > 1) + args[2:], {k: None if k == "memo" else v for k, v in kwargs.items()}


def _warned(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    return tuple(f"{w.category.__name__}: {first_lines(w.message, 2, 300)}"
                 for w in caught)


def _raised_in(error: BaseException, files: frozenset[str]) -> bool:
    """Whether the innermost frame of `error` is in `files`, stopped at a `raise` statement."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or tb.tb_frame.f_code.co_filename not in files:
        return False
    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and code[tb.tb_lasti] in _RAISES


def difference(original: Result, mutant: Result, again: Result | None = None) -> str | None:
    """How the mutant's behaviour differs from the original's on a valid input, or None: the
    kind of difference, then where the values first differ.

    `again` is a second run of the original, made after the mutant's: what differs between the
    two runs of the original (a timestamp, an id, a random draw) is no evidence, and an input on
    which the original does not even behave the same way twice is not a fair one.
    """
    if again is not None and not _steady(original, again):
        return None
    if original.ok:
        if not mutant.ok:
            return "hangs" if mutant.hung else "raises"
        noise = differing_paths(original.value, again.value) if again is not None else frozenset()
        if (found := first_difference(original.value, mutant.value, noise)) is not None:
            return _returned(found)
        noise = differing_paths(original.after, again.after) if again is not None else frozenset()
        if (found := first_difference(original.after, mutant.after, noise)) is not None:
            return f"leaves its arguments in a different state: {found.removeprefix('at ')}"
        return _other_warnings(original, mutant, again)
    if not original.deliberate:
        return None
    if mutant.ok:
        return "returns instead of refusing the input"
    if mutant.hung:
        return "hangs"
    if mutant.exception != original.exception or (
            _message(mutant) != _message(original) and (again is None or _message(again) == _message(original))):
        return "refuses the input with another error"
    return _other_warnings(original, mutant, again)


def _steady(original: Result, again: Result) -> bool:
    return (original.ok, original.hung, original.exception) == (again.ok, again.hung, again.exception)


def _returned(found: str) -> str:
    """"returns a CommentedMap instead of a dict" for a whole result of another type, else where
    the values differ."""
    if found.startswith(("a ", "an ")) and " instead of " in found:
        return f"returns {found}"
    return f"returns a different value: {found}"


def _message(result: Result) -> str:
    return without_addresses(result.message)


def _other_warnings(original: Result, mutant: Result, again: Result | None = None) -> str | None:
    seen = [without_addresses(w) for w in original.warned]
    if seen == [without_addresses(w) for w in mutant.warned]:
        return None
    if again is not None and seen != [without_addresses(w) for w in again.warned]:
        return None  # the original's own warnings change from run to run
    found = first_difference(list(original.warned), list(mutant.warned))
    return f"emits other warnings: {found}"
