"""The child side of triage: replay the suite's calls on a mutant, then search for a witness.

`probe` and `check` are the worker's handlers for ProbeTask and CheckTask (harness.shared.tasks,
harness.child.worker.HANDLERS): they run inside a forked, time- and memory-limited child of a
fork-server worker, after nothing else has been activated. A probe holds the original and the
mutated code of the survivor's function and switches the live function objects between them,
so both versions run in the same child on deep copies of the same input. Neither raises:
anything that goes wrong is the `error` of the findings it returns.
"""

from __future__ import annotations

import base64
import importlib
import pickle
import time
from dataclasses import replace
from types import CodeType, FunctionType
from typing import Any

from bugsmith.harness.child.activation import (
    FunctionIndex,
    NeedsFreshImport,
    live_functions,
    mutated_code,
    swap,
)
from bugsmith.harness.child.triage.call_recorder import label
from bugsmith.harness.child.triage.calls import Compared, Result, call, difference
from bugsmith.harness.child.triage.observable import difference_path, same
from bugsmith.harness.child.triage.suggest import suggested_test, test_name
from bugsmith.harness.child.triage.values import NotLiteral, short
from bugsmith.harness.shared.protocol import Patch
from bugsmith.harness.shared.tasks import Checked, CheckTask, Classification, Probed, ProbeTask, RecordedCall

RAISED = object()  # the recorded call raised: replay expects the original to refuse it again


class Toggle:
    """Switches every live function of the survivor between its original and its mutated code."""

    def __init__(self, index: FunctionIndex, patches: tuple[Patch, ...]) -> None:
        self.swaps: list[tuple[FunctionType, CodeType, CodeType]] = []
        self.files = frozenset(patch.path for patch in patches)
        self.patches = patches
        for patch in patches:
            if patch.function is None:
                raise NeedsFreshImport("the site runs at import time")
            targets = live_functions(index, patch.path, patch.function)
            new = mutated_code(targets, patch.path, patch.function, patch.source, patch.unit)
            self.swaps += [(target, target.__code__, new) for target in targets]

    @property
    def function(self) -> FunctionType:
        return self.swaps[0][0]

    def named(self, callee: str) -> FunctionType:
        """The live function a recorded call was made to (call_recorder.label), else the first."""
        for target, _, _ in self.swaps:
            if callee and label(target) == callee:
                return target
        return self.swaps[0][0]

    def original(self) -> None:
        for target, code, _ in self.swaps:
            target.__code__ = code

    def mutant(self) -> None:
        for target, _, code in self.swaps:
            target.__code__ = code

    def compare(self, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Compared:
        """The original's and the mutant's behaviour on one input, and how they differ, if they do.

        A difference is confirmed by running the original once more, after the mutant: what the
        original changes by itself between the two runs (a timestamp, an address) is not one,
        and a clock that moved between the first and the last run is seen moving.
        """
        self.original()
        first = call(function, args, kwargs, files=self.files)
        self.mutant()
        second = call(function, args, kwargs, files=self.files)
        self.original()
        if difference(first, second) is None:
            return Compared(first=first, second=second, why=None)
        again = call(function, args, kwargs, files=self.files)
        return Compared(first=first, second=second, why=difference(first, second, again))


def probe(task: ProbeTask, index: FunctionIndex, patches: tuple[Patch, ...]) -> Probed:
    """Replay, then search: what tells the survivor from the original, if anything does."""
    try:
        return _probe(task, Toggle(index, patches))
    except NeedsFreshImport as error:
        return Probed(error=f"not triaged: {error}")
    except BaseException as error:  # noqa: BLE001 - a finding, never a crash of the worker
        return Probed(error=f"{type(error).__name__}: {short(str(error), 200)}")


def _probe(task: ProbeTask, toggle: Toggle) -> Probed:
    started = time.monotonic()
    recorded = [c for c in map(_unpickled, task.calls) if c is not None]
    found = None if _hidden(task) else replay(task, toggle, recorded)
    if found is not None:
        return replace(found, seconds=time.monotonic() - started)
    from bugsmith.harness.child.triage.search import (  # hypothesis: only when replay found nothing
        Entry,
        entries,
        plan,
        search,
    )

    own = Entry(callee=task.function, module=task.module, function=toggle.function, strategy=None)
    calls = [(a, k) for _, a, k, _, _ in recorded]
    callers = _callers(task, Entry)
    candidates = entries(task.module, task.function, own, calls, public_only=task.public_only, callers=callers)
    planned = plan(own, calls, callers, _site(toggle), public_only=task.public_only)
    outcome = search(candidates, lambda entry, args, kwargs: toggle.compare(entry.function, args, kwargs),
                     seconds=task.search_seconds, max_examples=task.max_examples, planned=planned)
    tried = f"replayed {len(recorded)} recorded call(s); tried {outcome.evidence()}"
    if outcome.witness is None:
        return Probed(classification=Classification.POSSIBLY_EQUIVALENT, tried=tried,
                      seconds=time.monotonic() - started)
    entry, args, kwargs, first, second, why = outcome.witness
    found = _finding(Classification.UNDERTESTED, task, entry.callee, entry.module, args, kwargs,
                     first, second, why)
    return replace(found, tried=tried, seconds=time.monotonic() - started)


def _site(toggle: Toggle) -> Any:
    """What the mutated lines say (harness.child.triage.inputs_from_code.site_of), from the file
    as it is and the mutated text of the first patch."""
    from bugsmith.harness.child.triage.inputs_from_code import Site, site_of

    for patch in toggle.patches:
        try:
            with open(patch.path, encoding="utf-8") as file:
                return site_of(file.read(), patch.source)
        except (OSError, UnicodeDecodeError):
            continue
    return Site()


def _callers(task: ProbeTask, entry: Any) -> list[Any]:
    """The public callers of the survivor's function that the suite called, each with its calls
    (harness.triage.classify records them, labelled "module:qualname")."""
    grouped: dict[str, list[tuple[Any, Any]]] = {}
    for recorded in task.through:
        unpickled = _unpickled(recorded)
        if unpickled is not None:
            grouped.setdefault(recorded.callee, []).append((unpickled[1], unpickled[2]))
    found = []
    for label_, calls in grouped.items():
        module, _, qualname = label_.partition(":")
        function = _resolved(module, qualname)
        if function is not None:
            found.append((entry(callee=qualname, module=module, function=function, strategy=None,
                                source=f"recorded calls of {qualname}"), calls))
    return found


def _resolved(module: str, qualname: str) -> Any:
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except Exception:  # noqa: BLE001 - a caller that cannot be reached by its name
        return None
    return target if callable(target) else None


def _hidden(task: ProbeTask) -> bool:
    """Whether the survivor's function is one a witness must not call (private, public_only)."""
    from bugsmith.harness.child.triage.search import is_private  # hypothesis: loaded with search

    return task.public_only and is_private(task.function)


def replay(task: ProbeTask, toggle: Toggle, recorded: list[tuple[str, Any, Any, Any, str]]) -> Probed | None:
    """The first recorded call on which the mutant differs, as an `unasserted` finding."""
    for test, args, kwargs, expected, callee in recorded:
        compared = toggle.compare(toggle.named(callee), args, kwargs)
        first, second, why = compared.first, compared.second, compared.why
        if not _reproduces(first, expected):
            continue  # the original does not reproduce its recorded result: not a fair witness
        if why is not None:
            # A wrapper's call is written as a call of what it wraps (`old_double(2)`), which
            # is how the test made it and how a drafted test can import it.
            module, _, name = callee.partition(":")
            named = bool(name) and "<locals>" not in name
            found = _finding(Classification.UNASSERTED, task, name if named else task.function,
                             module if named else task.module, args, kwargs, first, second, why)
            return replace(found, test=test, tried=f"replayed the call made by {test}")
    return None


def _reproduces(first: Result, expected: Any) -> bool:
    if expected is RAISED:
        return first.deliberate
    return first.ok and same(first.value, expected)


def _unpickled(recorded: RecordedCall) -> tuple[str, Any, Any, Any, str] | None:
    try:
        args, kwargs = pickle.loads(base64.b64decode(recorded.args))
        result = pickle.loads(base64.b64decode(recorded.result)) if recorded.result else RAISED
        return recorded.test, tuple(args), dict(kwargs), result, recorded.callee
    except Exception:  # noqa: BLE001 - e.g. a class defined in a test module
        return None


def _finding(kind: Classification, task: ProbeTask, callee: str, module: str, args: tuple[Any, ...],
             kwargs: dict[str, Any], first: Result, second: Result, why: str) -> Probed:
    constructs = callee.endswith(".__init__") and bool(args)
    built = first.after[0][0] if constructs and first.ok else first.value
    if constructs:  # `Scheduler.__init__(self, 0)` is written `Scheduler(0)`
        callee, args = callee.removesuffix(".__init__"), args[1:]
    shown = [short(a, 160) for a in args] + [f"{k}={short(v, 160)}" for k, v in kwargs.items()]
    expected, actual = _described(first, constructs), _described(second, constructs)
    if actual == expected:
        # Alike in print (an in-place change, a dict subclass): the difference itself is what the
        # mutant does, never "returns None" twice.
        actual = why
    finding = Probed(
        classification=kind, callee=callee, module=module,
        call=f"{callee}({', '.join(shown)})", expected=expected, actual=actual, why=why,
    )
    changed, retyped = _where(first, second, why, constructs)
    try:
        drafted = suggested_test(
            module=module, callee=callee, args=args, kwargs=kwargs, expected=built,
            raises=None if first.ok else (first.exception, first.message), constructs=constructs,
            raised_from=first.raised_from, changed=changed, after=first.after, retyped=retyped,
            mutant_id=task.mutant_id, operator=task.operator)
    except NotLiteral as error:
        return replace(finding, not_written=f"the witness has no source form: {error}")
    return replace(finding, suggested_test=drafted, test_name=test_name(callee, task.mutant_id))


def _where(first: Result, second: Result, why: str, constructs: bool) -> tuple[str, str]:
    """What a drafted test asserts besides the result: the path in the arguments the mutant leaves
    in another state, and the path in the result where it returns another type ("" if none)."""
    if not first.ok or constructs:
        return "", ""
    if why.startswith("leaves its arguments"):
        return difference_path(first.after, second.after) or "", ""
    path = (difference_path(first.value, second.value) or "") if second.ok else ""
    return "", path if path.endswith("{type}") else ""


def _described(result: Result, constructs: bool) -> str:
    return "builds the object" if constructs and result.ok else result.describe()


def check(task: CheckTask, index: FunctionIndex, patches: tuple[Patch, ...]) -> Checked:
    """Run a drafted test's source on the original (no patches) or on the mutant."""
    try:
        for patch in patches:
            swap(index, patch.path, patch.function, patch.source, patch.unit)
        namespace: dict[str, Any] = {"__name__": "bugsmith_suggested"}
        try:
            exec(compile(task.source, "<suggested test>", "exec", dont_inherit=True), namespace)
        except BaseException as error:  # noqa: BLE001
            return Checked(passed=False, error=f"the test does not load: {type(error).__name__}: {error}")
        result = call(namespace[task.name], (), {}, seconds=task.seconds)
        return Checked(passed=result.ok, error="" if result.ok else result.describe())
    except NeedsFreshImport as error:
        return Checked(error=f"not triaged: {error}")
    except BaseException as error:  # noqa: BLE001 - a finding, never a crash of the worker
        return Checked(error=f"{type(error).__name__}: {short(str(error), 200)}")
