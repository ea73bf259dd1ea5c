"""Write the missing test: call the function on the witness and assert what the original does.

Built inside the child that found the witness (it holds the live values), verified later in two
more children (harness.child.triage.probe.check): it must pass on the original code and fail on the
mutant before anyone sees it. A witness with no faithful source form gets no suggested test.

A method is called on an instance of its own class, built by its constructor as a suite would
(harness.child.triage.construction), never on a plain value standing in for `self`. The test
asserts the value that differs: the result, the refusal (its exception imported from where it is
defined), or, when the results agree, the argument the mutant leaves in another state.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from bugsmith.harness.child.triage.construction import construction, plain_literal
from bugsmith.harness.child.triage.values import ATOL, RTOL, NotLiteral, literal, np, pd

_TOLERANCE = f"rtol={RTOL:g}, atol={ATOL:g}"
_MODULES = {"math": "import math", "np": "import numpy as np", "pd": "import pandas as pd",
            "pytest": "import pytest"}
_STEP = re.compile(r"\[(?:-?\d+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]|\.[A-Za-z_]\w*")
_MARKERS = ("{type}", "{len}", "{keys}")


def test_name(callee: str, mutant_id: str) -> str:
    stem = re.sub(r"\W+", "_", callee).strip("_").lower()
    return f"test_{stem}_catches_{re.sub(r'[^0-9A-Za-z]', '', mutant_id)[:10].lower()}"


@dataclass(slots=True)
class _Draft:
    """The lines of a test body and the imports they need, as they are written."""

    lines: list[str] = field(default_factory=list)
    imports: dict[str, None] = field(default_factory=dict)  # "from m import X" lines, in order

    def imported(self, kind: type) -> str:
        """The name a test uses for `kind`: a built-in's own, else imported from its module."""
        if getattr(builtins, kind.__name__, None) is kind:
            return kind.__name__
        module = sys.modules.get(kind.__module__)
        if module is None or getattr(module, kind.__qualname__, None) is not kind or kind.__module__ == "__main__":
            raise NotLiteral(f"{kind.__qualname__} cannot be imported from {kind.__module__}")
        self.imports[f"from {kind.__module__} import {kind.__qualname__}"] = None
        return kind.__qualname__


def suggested_test(*, module: str, callee: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                   expected: Any, mutant_id: str, operator: str,
                   raises: tuple[str, str] | None = None, constructs: bool = False, raised_from: str = "",
                   changed: str = "", after: Any = None, retyped: str = "") -> str:
    """Source of a pytest test module; raises NotLiteral when the witness cannot be written.

    `raises` is the (exception type, message) with which the original refuses the input, and
    `raised_from` the module that defines that type; `constructs` says that `callee` is a class
    and `expected` the object it builds. `changed` is the path (harness.child.triage.observable)
    in the original's `after` (its arguments after the call) where the mutant leaves them in
    another state; `retyped`, the path in the result where the mutant returns another type.
    """
    head = callee.partition(".")[0]
    draft = _Draft()
    names = _arguments(draft, module, callee, args, kwargs, changed, constructs)
    invocation = _invocation(callee, names, len(args), list(kwargs), method=names[:1] == ["obj"])
    if raises is None and constructs:
        draft.lines += _construction(invocation, expected)
        promise = "build this object"
    elif raises is None and changed:
        draft.lines.append(f"    {invocation}")
        draft.lines += _changed(draft, names, list(kwargs), changed, after, len(args))
        promise = "leave its arguments as the original does"
    elif raises is None:
        draft.lines += [f"    result = {invocation}", f"    expected = {plain_literal(expected)}"]
        if retyped:
            draft.lines.append(_type_check("result", retyped, expected, draft))
        draft.lines += assertions("result", "expected", expected)
        promise = "return the correct result on this input"
    else:
        raised = _exception(raises[0], raised_from, draft)
        draft.lines += [f"    with pytest.raises({raised}, match={_pattern(raises[1])}):", f"        {invocation}"]
        promise = f"refuse this input with a {raises[0]}"
    name = test_name(callee, mutant_id)
    doc = f'    """{callee} must {promise}; mutant {mutant_id} ({operator}) does not."""'
    code = "\n".join([f"def {name}():", doc, *draft.lines]) + "\n"
    imports = [line for alias, line in _MODULES.items() if re.search(rf"\b{alias}\.", code)]
    own = [f"from {module} import {head}", *(line for line in draft.imports if line != f"from {module} import {head}")]
    header = "\n".join(imports) + ("\n\n" if imports else "") + "\n".join(own) + "\n"
    return f"{header}\n\n{code}"


def _arguments(draft: _Draft, module: str, callee: str, args: tuple[Any, ...], kwargs: dict[str, Any],
               changed: str, constructs: bool) -> list[str]:
    """The source of each argument, positional then keyword; an instance the method is called on
    is built first as `obj`, and an argument whose state the test asserts is bound to a name."""
    bound = _bound_argument(changed, len(args), list(kwargs))
    names = []
    receiver = not constructs and _receiver_class(module, callee, args)
    for position, value in enumerate([*args, *kwargs.values()]):
        if position == 0 and receiver:
            draft.lines.append(f"    obj = {construction(value, callee.rpartition('.')[0])}")
            names.append("obj")
        elif position == bound:
            draft.lines.append(f"    arg = {_source(draft, value)}")
            names.append("arg")
        else:
            names.append(_source(draft, value))
    return names


def _source(draft: _Draft, value: Any) -> str:
    """A value's literal, or else a call of its class's constructor that builds it (a BoxList)."""
    try:
        return literal(value)
    except NotLiteral:
        if isinstance(value, type):
            raise
        return construction(value, draft.imported(type(value)))


def _receiver_class(module: str, callee: str, args: tuple[Any, ...]) -> bool:
    """Whether `callee` is a method (`Class.method`, neither static nor a class method) and
    `args[0]` an instance of its class: the call is then written on that instance."""
    owner, _, method = callee.rpartition(".")
    if not owner or not args:
        return False
    try:
        target: Any = importlib.import_module(module)
        for part in owner.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return False
    return isinstance(target, type) and isinstance(args[0], target) and inspect.isfunction(
        inspect.getattr_static(target, method, None))


def _invocation(callee: str, names: list[str], positional: int, keywords: list[str], *, method: bool) -> str:
    shown = names[:positional] + [f"{key}={name}" for key, name in zip(keywords, names[positional:])]
    if method:
        return f"obj.{callee.rpartition('.')[2]}({', '.join(shown[1:])})"
    return f"{callee}({', '.join(shown)})"


def _bound_argument(changed: str, positional: int, keywords: list[str]) -> int | None:
    """Which argument (position among args then kwargs) the path `changed` into `(args, kwargs)` is in."""
    steps = _STEP.findall(changed)
    if len(steps) < 2:
        return None
    side, where = steps[0], steps[1]
    if side == "[0]" and where.strip("[]").lstrip("-").isdigit():
        return int(where.strip("[]"))
    if side == "[1]" and where.startswith("['"):
        key = where[2:-2]
        return positional + keywords.index(key) if key in keywords else None
    return None


def _changed(draft: _Draft, names: list[str], keywords: list[str], changed: str, after: Any,
             positional: int) -> list[str]:
    """An assertion on the argument the mutant leaves in another state, at the place it differs."""
    position = _bound_argument(changed, positional, keywords)
    if position is None or names[position] not in ("obj", "arg"):
        raise NotLiteral("the changed state is not in an argument a test can hold")
    marker = next((m for m in _MARKERS if changed.endswith(m)), "")
    path = changed.removesuffix(marker)
    rest = "".join(_STEP.findall(path)[2:])
    if "".join(_STEP.findall(path)) != path:
        raise NotLiteral(f"no source form for the place {changed!r}")
    try:
        value = eval("__after" + path, {"__after": after})  # noqa: S307 - a path we built ourselves
    except Exception as error:  # noqa: BLE001
        raise NotLiteral(f"the changed place cannot be read back: {error}") from None
    got = names[position] + rest
    if marker == "{len}":
        return [f"    assert len({got}) == {len(value)}"]
    if marker == "{type}":
        return [_type_check(got, "", value, draft)]
    return [f"    expected = {plain_literal(value)}", *assertions(got, "expected", value)]


def _type_check(got: str, path: str, expected: Any, draft: _Draft) -> str:
    """`assert type(result<path>) is dict`: the result's type, where the mutant returns another."""
    marker = path.removesuffix("{type}")
    if "".join(_STEP.findall(marker)) != marker:
        raise NotLiteral(f"no source form for the place {path!r}")
    try:
        value = eval("__value" + marker, {"__value": expected})  # noqa: S307 - a path we built ourselves
    except Exception as error:  # noqa: BLE001
        raise NotLiteral(f"the retyped place cannot be read back: {error}") from None
    if value is None:  # NoneType is no name a test imports
        return f"    assert {got}{marker} is None"
    return f"    assert type({got}{marker}) is {draft.imported(type(value))}"


def _construction(invocation: str, built: Any) -> list[str]:
    """Build the object and pin its attributes when they can be written, else only that it builds."""
    try:
        return [f"    result = {invocation}", f"    assert vars(result) == {literal(vars(built))}"]
    except (NotLiteral, TypeError):
        return [f"    {invocation}  # must not raise"]


def _exception(name: str, module: str, draft: _Draft) -> str:
    """The exception's name as the test spells it: a built-in's own, else imported from `module`."""
    if isinstance(getattr(builtins, name, None), type) and issubclass(getattr(builtins, name), Exception):
        return name
    kind = getattr(sys.modules.get(module), name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        raise NotLiteral(f"{name} cannot be imported from {module or 'its module'}")
    return draft.imported(kind)


def _pattern(message: str) -> str:
    """A `match=` pattern for the message's first line (re.search: a prefix is enough)."""
    first = message.splitlines()[0][:120] if message else ""
    return repr(re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", first))


def assertions(got: str, want: str, expected: Any, depth: int = 0) -> list[str]:
    """Lines that assert `got` equals `want` as `harness.child.triage.observable.same` would judge."""
    pad = "    "
    if depth > 3:
        raise NotLiteral("result nested too deeply for a readable assertion")
    if isinstance(expected, float | np.floating):
        return [f"{pad}assert {got} == pytest.approx({want}, rel={RTOL:g}, abs={ATOL:g}, nan_ok=True)"]
    if isinstance(expected, np.ndarray):
        check = (f"np.testing.assert_allclose({got}, {want}, {_TOLERANCE})" if expected.dtype.kind in "fc"
                 else f"np.testing.assert_array_equal({got}, {want})")
        return [f"{pad}assert np.shape({got}) == {expected.shape!r}", f"{pad}{check}"]
    if isinstance(expected, pd.DataFrame):
        return [f"{pad}pd.testing.assert_frame_equal({got}, {want}, check_exact=False, {_TOLERANCE})"]
    if isinstance(expected, pd.Series):
        return [f"{pad}pd.testing.assert_series_equal({got}, {want}, check_exact=False, {_TOLERANCE})"]
    if isinstance(expected, tuple | list) and any(
            isinstance(item, float | np.floating | np.ndarray | pd.DataFrame | pd.Series | tuple | list)
            for item in expected):
        lines = [f"{pad}assert len({got}) == {len(expected)}"]
        for position, item in enumerate(expected):
            lines += assertions(f"{got}[{position}]", f"{want}[{position}]", item, depth + 1)
        return lines
    return [f"{pad}assert {got} == {want}"]
