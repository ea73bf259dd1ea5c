"""Search for a distinguishing input, in two stages, each bounded in time.

Runs in the forked child (harness.child.triage.probe).
1. The survivor's own function: its entry in the problem's `call_strategies()` (the nearest
   `strategies` module of the mutant's package; each reference problem ships one: scheduler
   workloads, frames with entities and gaps, tied scores), perturbations of the arguments the
   suite itself passed to it, or, when neither exists, its type hints.
2. Only if that found nothing: the problem's other entry points ("roc_curve" for a bug in a
   helper it calls, "Scheduler.step" for one in a method it calls).
Hypothesis finds and shrinks an input on which the original returns or refuses the input on
purpose and the mutant behaves differently; the smallest such input seen is the witness.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
import time
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from bugsmith.harness.child.triage.calls import Compared
from bugsmith.harness.child.triage.values import np

Call = tuple[tuple[Any, ...], dict[str, Any]]
_RECORDED_SEEDS = 8  # recorded calls used as starting points


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """A callable to search through, where a test imports it from, and its input strategy."""

    callee: str  # "roc_curve", "Scheduler.step"
    module: str
    function: Any
    strategy: Any  # SearchStrategy[Call] | None
    source: str = ""


@dataclass(slots=True, kw_only=True)
class SearchOutcome:
    drawn: int = 0
    valid: int = 0
    seconds: float = 0.0
    sources: list[str] = field(default_factory=list)
    witness: tuple[Any, ...] | None = None  # (entry, args, kwargs, original Result, mutant Result, why)


class _OutOfTime(Exception):
    """The search budget is spent; the best witness seen so far stands."""


def entries(module: str, function: str, own: Entry, recorded: Sequence[Call],
            public_only: bool = False) -> list[list[Entry]]:
    """Ways to reach the survivor, in stages: its own function first, then the problem's others.

    With `public_only`, a private function (`_weights`) is reached only through the problem's
    entry points, so that the witness is a call a user of the API would make."""
    problem = _problem_entries(module)
    exact = [e for e in problem if e.callee == function]
    if public_only and is_private(function):
        return [stage for stage in ([*exact], [e for e in problem if e.callee != function]) if stage]
    seeds = [_with_defaults(own.function, a, k) for a, k in _diverse(recorded)]
    seeded = [Entry(callee=own.callee, module=own.module, function=own.function,
                    strategy=st.one_of(*[_call_like(a, k) for a, k in seeds]),
                    source="the suite's recorded arguments, perturbed")] if recorded else []
    hinted = [] if problem or seeded else _hinted(own)
    stages = [exact + seeded + hinted, [e for e in problem if e.callee != function]]
    return [stage for stage in stages if stage]


def is_private(qualname: str) -> bool:
    """`_weights`, `Scheduler._admit`, `f.<locals>.g`: not a name the problem's users call."""
    return any(part.startswith("_") and not part.endswith("__") or part == "<locals>"
               for part in qualname.split("."))


def _non_finite() -> Any:
    return st.sampled_from([math.nan, math.inf, -math.inf])


def _diverse(recorded: Sequence[Call]) -> list[Call]:
    """Up to _RECORDED_SEEDS calls: one per type-and-shape signature first, then the others."""
    chosen: dict[Any, Call] = {}
    for args, kwargs in recorded:
        signature = (tuple(map(_kind, args)), tuple((k, _kind(v)) for k, v in kwargs.items()))
        chosen.setdefault(signature, (args, kwargs))
    distinct = list(chosen.values())
    rest = [c for c in recorded if not any(c is d for d in distinct)]
    return (distinct + rest)[:_RECORDED_SEEDS]


def _with_defaults(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call:
    """The call with each numeric or boolean default it left out made explicit, to perturb it too."""
    try:
        bound = inspect.signature(function).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    missing = {
        name: parameter.default for name, parameter in inspect.signature(function).parameters.items()
        if name not in bound.arguments and parameter.kind is not parameter.POSITIONAL_ONLY
        and isinstance(parameter.default, int | float) and parameter.default is not None
    }
    return args, {**kwargs, **missing}


def _kind(value: Any) -> Any:
    return type(value).__name__, getattr(value, "ndim", None), getattr(value, "dtype", None)


def _problem_entries(module: str) -> list[Entry]:
    parts = module.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:depth])
        if importlib.util.find_spec(f"{package}.strategies") is None:
            continue
        provider = getattr(importlib.import_module(f"{package}.strategies"), "call_strategies", None)
        try:
            strategies = provider() if callable(provider) else {}
        except Exception:  # noqa: BLE001 - a project's own helper may not follow the protocol
            strategies = {}
        found = []
        for key, strategy in strategies.items():
            target = _resolve(package, key)
            if target is not None:
                found.append(Entry(callee=key, module=package, function=target, strategy=strategy,
                                   source=f"{package}.strategies"))
        return found
    return []


def _resolve(package: str, key: str) -> Any:
    target: Any = importlib.import_module(package)
    for part in key.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def _call_like(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Calls like this one: first with every length kept (values vary), then lengths vary too."""
    return st.one_of(*[
        st.tuples(st.tuples(*[like(a, keep) for a in args]),
                  st.fixed_dictionaries({k: like(v, keep) for k, v in kwargs.items()}))
        for keep in (True, False)
    ])


def like(value: Any, keep_shape: bool = False) -> Any:
    """A strategy of values of exactly the type of `value`, near it; `value` itself first.

    Only built-in values are varied: an instance of a subclass (a BoxList, an IntEnum, a
    namedtuple), above all the `self` of a method, stays the object the suite built, since a
    plain list or int standing in for it tests a type confusion no user makes."""
    kind = type(value)
    if kind in (bool, np.bool_):
        return st.booleans()
    if kind is int or (isinstance(value, np.integer) and type(value).__module__ == "numpy"):
        # Guards and loops break at -1, 0 and 1 whatever the suite passed.
        return st.just(value) | st.integers(int(value) - 3, int(value) + 3) | st.sampled_from([0, 1, -1])
    if kind is float or (isinstance(value, np.floating) and type(value).__module__ == "numpy"):
        scale = abs(float(value)) * 2 + 1
        return st.just(value) | st.floats(-scale, scale, allow_nan=False) | _non_finite()
    if kind is np.ndarray and value.dtype.kind in "biuf" and 1 <= value.ndim <= 2 and value.size:
        varied = _array_like(value, keep_shape)
        return st.just(value) | varied if keep_shape else varied
    if kind is list and value and all(type(v) in (int, float) for v in value):
        # One float makes it a list of floats: [2, 1, 0.5] may hold 2.5 or inf as well.
        floats = any(isinstance(v, float) for v in value)
        elements = st.one_of(*[like(float(v) if floats else v) for v in value[:5]])
        low, high = (len(value), len(value)) if keep_shape else (0, len(value) + 2)
        return st.just(value) | st.lists(elements, min_size=low, max_size=high)
    if kind is tuple:
        return st.tuples(*[like(v, keep_shape) for v in value])
    return st.just(value)


def _array_like(value: Any, keep_shape: bool) -> Any:
    from hypothesis.extra import numpy as hnp  # only when the code under triage uses numpy

    # One and zero rows first: squeezes, ravels and empty inputs break at those sizes.
    rows = st.just(value.shape[0]) if keep_shape else (
        st.sampled_from([1, 0]) | st.integers(0, value.shape[0] + 2))
    shape = rows if value.ndim == 1 else rows.map(lambda n: (n, value.shape[1]))
    low, high = float(value.min()), float(value.max())
    elements: st.SearchStrategy[Any]
    if value.dtype.kind == "b":
        elements = st.booleans()
    elif value.dtype.kind in "iu":
        elements = st.integers(max(int(low) - 2, 0 if value.dtype.kind == "u" else int(low) - 2), int(high) + 2)
    else:
        pool = sorted(set(value.ravel().tolist()))[:8]
        elements = st.sampled_from(pool) | st.floats(low - 1, high + 1, allow_nan=False, width=64) | _non_finite()
    return hnp.arrays(value.dtype, shape, elements=elements)


def _hinted(own: Entry) -> list[Entry]:
    try:
        hints = typing.get_type_hints(own.function)
        parameters = inspect.signature(own.function).parameters.values()
    except Exception:  # noqa: BLE001 - unresolvable hints: no strategy
        return []
    args = []
    for parameter in parameters:
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            continue
        if parameter.name not in hints:
            return []
        args.append(st.from_type(hints[parameter.name]))
    strategy = st.tuples(st.tuples(*args), st.just({}))
    return [Entry(callee=own.callee, module=own.module, function=own.function, strategy=strategy,
                  source="type hints")]


Compare = Callable[[Entry, tuple[Any, ...], dict[str, Any]], Compared]


def search(stages: list[list[Entry]], both: Compare, *, seconds: float, max_examples: int) -> SearchOutcome:
    """Find the smallest input where `both` (original, mutant) differ, within `seconds`.

    Each stage gets an equal share of the time left; a later stage runs only if the earlier
    ones found nothing.
    """
    outcome = SearchOutcome(sources=list(dict.fromkeys(e.source for stage in stages for e in stage)))
    started = time.monotonic()
    for position, stage in enumerate(stages):
        left = seconds - (time.monotonic() - started)
        _stage(stage, both, outcome, left / (len(stages) - position), max_examples)
        if outcome.witness is not None:
            break
    outcome.seconds = time.monotonic() - started
    return outcome


def _stage(candidates: list[Entry], both: Compare, outcome: SearchOutcome, seconds: float,
           max_examples: int) -> None:
    strategy = st.one_of(*[st.tuples(st.just(n), e.strategy) for n, e in enumerate(candidates)])
    started = time.monotonic()

    def distinguishes(drawn: tuple[int, Call]) -> bool:
        if time.monotonic() - started > seconds:
            raise _OutOfTime
        number, (args, kwargs) = drawn
        outcome.drawn += 1
        compared = both(candidates[number], tuple(args), dict(kwargs))
        if not compared.first.valid:
            return False  # the original fails on it by accident (not a `raise` of its own)
        outcome.valid += 1
        if compared.why is None:
            return False
        outcome.witness = (candidates[number], tuple(args), dict(kwargs), compared.first, compared.second,
                           compared.why)
        return True

    config = settings(max_examples=max_examples, database=None, deadline=None, derandomize=True,
                      suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink))
    try:
        find(strategy, distinguishes, settings=config)
    except (NoSuchExample, Unsatisfiable, _OutOfTime):
        pass
    except Exception:  # noqa: BLE001 - e.g. hypothesis's FlakyFailure when time ran out while
        pass  # replaying: the witness recorded above was checked by our own two calls
