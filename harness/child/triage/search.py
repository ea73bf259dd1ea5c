"""Search for a distinguishing input: first the inputs the code suggests, then in two stages.

Runs in the forked child (harness.child.triage.probe).
0. Planned inputs (harness.child.triage.inputs_from_code), nearest the mutated site's constants
   first, on the survivor's function and on the public functions that call it (a private helper
   is shown through the API that reaches it); the first that tells the two apart is shrunk
   greedily and is the witness. They take at most a share of the time and the examples.
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
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from bugsmith.harness.child.triage.calls import Compared
from bugsmith.harness.child.triage.inputs_from_code import (
    AS_RECORDED,
    DEFAULTS,
    EDGES,
    NEAR,
    OTHERS,
    Candidate,
    Site,
    candidates,
    from_hints,
    simpler,
)
from bugsmith.harness.child.triage.values import np

Call = tuple[tuple[Any, ...], dict[str, Any]]
_RECORDED_SEEDS = 8  # recorded calls used as starting points
# The planned inputs' share of the time and examples when a random search follows: they come
# first, nearest first, and most of those that show anything do so within a few dozen.
_PLANNED_SHARE = 0.5
_SHRINK_STEPS = 60


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """A callable to search through, where a test imports it from, and its input strategy."""

    callee: str  # "roc_curve", "Scheduler.step"
    module: str
    function: Any
    strategy: Any  # SearchStrategy[Call] | None
    source: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Planned:
    """One planned input: the callable it goes to and the call."""

    entry: Entry
    candidate: Candidate


@dataclass(slots=True, kw_only=True)
class SearchOutcome:
    drawn: int = 0
    valid: int = 0
    seconds: float = 0.0
    sources: list[str] = field(default_factory=list)
    by_source: dict[str, int] = field(default_factory=dict)  # inputs tried, by where they came from
    shrunk: int = 0  # calls spent shrinking the witness
    witness: tuple[Any, ...] | None = None  # (entry, args, kwargs, original Result, mutant Result, why)

    def count(self, source: str) -> None:
        self.drawn += 1
        self.by_source[source] = self.by_source.get(source, 0) + 1

    def evidence(self) -> str:
        """"57 input(s) (40 valid) in 1.2 s from: 23 the mutated site's constants; 34 ..."."""
        parts = [f"{n} {source}" for source, n in self.by_source.items()]
        return (f"{self.drawn} input(s) ({self.valid} valid) in {self.seconds:.1f} s from: "
                f"{'; '.join(parts) or 'no strategy applies'}")


class _OutOfTime(Exception):
    """The search budget is spent; the best witness seen so far stands."""


def entries(module: str, function: str, own: Entry, recorded: Sequence[Call],
            public_only: bool = False, callers: Sequence[tuple[Entry, Sequence[Call]]] = ()) -> list[list[Entry]]:
    """Ways to reach the survivor, in stages: its own function first (and, when it is private or
    no test called it, the public callers' recorded calls, perturbed), then the problem's others.

    With `public_only`, a private function (`_weights`) is reached only through its callers and
    the problem's entry points, so that the witness is a call a user of the API would make."""
    problem = _problem_entries(module)
    exact = [e for e in problem if e.callee == function]
    through = [replace(entry, source=f"recorded calls of {entry.callee}, perturbed",
                       strategy=st.one_of(*[_call_like(a, k) for a, k in _diverse(calls)]))
               for entry, calls in callers if calls] if is_private(function) or not recorded else []
    if public_only and is_private(function):
        return [stage for stage in ([*exact, *through], [e for e in problem if e.callee != function]) if stage]
    seeds = [_with_defaults(own.function, a, k) for a, k in _diverse(recorded)]
    seeded = [Entry(callee=own.callee, module=own.module, function=own.function,
                    strategy=st.one_of(*[_call_like(a, k) for a, k in seeds]),
                    source="the suite's recorded arguments, perturbed")] if recorded else []
    hinted = [] if problem or seeded else _hinted(own)
    stages = [exact + seeded + through + hinted, [e for e in problem if e.callee != function]]
    return [stage for stage in stages if stage]


def is_private(qualname: str) -> bool:
    """`_weights`, `Scheduler._admit`, `f.<locals>.g`: not a name the problem's users call."""
    return any(part.startswith("_") and not part.endswith("__") or part == "<locals>"
               for part in qualname.split("."))


def plan(own: Entry, recorded: Sequence[Call], callers: Sequence[tuple[Entry, Sequence[Call]]], site: Site,
         *, public_only: bool = False) -> list[Planned]:
    """The inputs the code suggests, in the order to try them: nearest the mutated site's
    constants first, then the public callers' recorded calls as they were, then edge values, then
    the function's other constants.

    The public callers are searched when the function is private or no test called it; for a
    private one their inputs come first at each rank (a witness a user of the API would write),
    and with `public_only` they are the only ones.
    """
    private = is_private(own.callee)
    mine: list[Planned] = []
    if not (public_only and private):
        bases = [_with_defaults(own.function, a, k) for a, k in _diverse(recorded)]
        if not bases and (hinted := from_hints(own.function)) is not None:
            bases = [hinted]
            mine.append(Planned(entry=own, candidate=Candidate(args=hinted[0], kwargs=hinted[1], source=DEFAULTS)))
        mine += [Planned(entry=own, candidate=c) for c in candidates(own.function, bases, site, as_recorded=False)]
    theirs: list[Planned] = []
    if private or not recorded:
        for entry, calls in callers:
            theirs += [Planned(entry=entry, candidate=replace(c, source=f"{c.source}, through {entry.callee}"))
                       for c in candidates(entry.function, _diverse(calls), site, as_recorded=True)]
    ordered = theirs + mine if private else mine + theirs
    return sorted(ordered, key=lambda p: _RANK.get(p.candidate.source.partition(", through")[0], 4))


_RANK = {NEAR: 0, DEFAULTS: 0, AS_RECORDED: 1, EDGES: 2, OTHERS: 3}


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


def search(stages: list[list[Entry]], both: Compare, *, seconds: float, max_examples: int,
           planned: Sequence[Planned] = ()) -> SearchOutcome:
    """Find the smallest input where `both` (original, mutant) differ, within `seconds` and
    `max_examples` inputs in all.

    The planned inputs go first, in their order, with a share of both budgets when stages
    follow; then each stage gets an equal share of the time left, and a later stage runs only
    if the earlier ones found nothing.
    """
    outcome = SearchOutcome(sources=list(dict.fromkeys(
        [p.candidate.source for p in planned] + [e.source for stage in stages for e in stage])))
    started = time.monotonic()
    if planned:
        share = _PLANNED_SHARE if stages else 1.0
        _planned(planned, both, outcome, started + seconds * share, max(1, int(max_examples * share)),
                 started + seconds)
    for position, stage in enumerate(stages):
        if outcome.witness is not None or outcome.drawn >= max_examples:
            break
        left = seconds - (time.monotonic() - started)
        _stage(stage, both, outcome, left / (len(stages) - position), max_examples - outcome.drawn)
    outcome.seconds = time.monotonic() - started
    return outcome


def _planned(planned: Sequence[Planned], both: Compare, outcome: SearchOutcome, until: float, most: int,
             deadline: float) -> None:
    """Try the planned inputs in order until one tells the two apart, then shrink it."""
    for item in planned[:most]:
        if time.monotonic() > until:
            return
        entry, candidate = item.entry, item.candidate
        outcome.count(candidate.source)
        compared = both(entry, candidate.args, dict(candidate.kwargs))
        if not compared.first.valid:
            continue
        outcome.valid += 1
        if compared.why is not None:
            args, kwargs, compared = _shrunk(entry, candidate.args, dict(candidate.kwargs), compared, both,
                                             outcome, deadline)
            outcome.witness = (entry, args, kwargs, compared.first, compared.second, compared.why)
            return


def _shrunk(entry: Entry, args: tuple[Any, ...], kwargs: dict[str, Any], compared: Compared, both: Compare,
            outcome: SearchOutcome, deadline: float) -> tuple[tuple[Any, ...], dict[str, Any], Compared]:
    """A greedy shrink: drop a keyword, or put a smaller value in one argument, while the smaller
    call still tells the two apart; until nothing shrinks or the steps or time run out."""
    improved = True
    while improved and outcome.shrunk < _SHRINK_STEPS and time.monotonic() < deadline:
        improved = False
        for trial in _smaller_calls(args, kwargs):
            if outcome.shrunk >= _SHRINK_STEPS or time.monotonic() >= deadline:
                break
            outcome.shrunk += 1
            again = both(entry, *trial)
            if again.first.valid and again.why is not None:
                (args, kwargs), compared, improved = trial, again, True
                break
    return args, kwargs, compared


def _smaller_calls(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    for key in kwargs:
        yield args, {k: v for k, v in kwargs.items() if k != key}
    for position, value in enumerate(args):
        for smaller in simpler(value):
            yield args[:position] + (smaller,) + args[position + 1:], dict(kwargs)
    for key, value in kwargs.items():
        for smaller in simpler(value):
            yield args, {**kwargs, key: smaller}


def _stage(candidates: list[Entry], both: Compare, outcome: SearchOutcome, seconds: float,
           max_examples: int) -> None:
    strategy = st.one_of(*[st.tuples(st.just(n), e.strategy) for n, e in enumerate(candidates)])
    started = time.monotonic()

    def distinguishes(drawn: tuple[int, Call]) -> bool:
        if time.monotonic() - started > seconds:
            raise _OutOfTime
        number, (args, kwargs) = drawn
        outcome.count(candidates[number].source)
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
