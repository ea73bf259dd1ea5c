"""Source that builds an object as a suite would: `NoteList([3, 1], frozen=True)`.

A drafted test for a method must call it on an instance of its own class, never on a plain list
standing in for `self`. The instance the witness used is a live object in the child; this module
writes the constructor call that builds an equal one (its items, and the constructor's
parameters that it keeps as attributes), and checks it: the call is run and the object it
builds must agree with the live one as harness.child.triage.observable compares them, else no
source is offered (NotLiteral).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from bugsmith.harness.child.triage.observable import same
from bugsmith.harness.child.triage.values import NotLiteral, literal

_BUILT_INS = (list, tuple, dict, set, frozenset)


def plain(value: Any, depth: int = 0) -> Any:
    """`value` with every list, tuple, dict or set subclass (a Box, a BoxList) made its built-in
    base, recursively: what a constructor that converts its input back is given."""
    if depth > 8:
        raise NotLiteral("nested too deeply")
    if isinstance(value, dict):
        return {plain(k, depth + 1): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(plain(v, depth + 1) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(plain(v, depth + 1) for v in value) if isinstance(value, frozenset) else {
            plain(v, depth + 1) for v in value}
    return value


def plain_literal(value: Any) -> str:
    """Source for a value a test compares with `==`: the value itself, or its built-in form when
    that compares equal to it (a Box is equal to the dict it holds)."""
    try:
        return literal(value)
    except NotLiteral:
        simple = plain(value)
        if simple is value or not _equal(simple, value):
            raise
        return literal(simple)


def construction(obj: Any, name: str) -> str:
    """A call of the class `name` (as the test imports it) that builds an object equal to `obj`."""
    kind = type(obj)
    try:
        # `__init__`'s own parameters: a `__new__(cls, *args, **kwargs)` beside it (python-box's)
        # would hide them from the class's signature.
        initialiser = kind.__init__
        if inspect.isfunction(initialiser):
            parameters = list(inspect.signature(initialiser).parameters.values())[1:]
        else:
            parameters = list(inspect.signature(kind).parameters.values())
    except (TypeError, ValueError):
        raise NotLiteral(f"{kind.__name__}'s constructor has no signature") from None
    for source in [f"{name}({', '.join(arguments)})" for arguments in _attempts(obj, parameters)] + _by_repr(obj, name):
        try:
            rebuilt = eval(source, {name.partition(".")[0]: _root_of(kind, name)})  # noqa: S307 - our own source
        except Exception:  # noqa: BLE001 - the constructor refuses these arguments: try the next
            continue
        if type(rebuilt) is kind and same(obj, rebuilt):
            return source
    raise NotLiteral(f"no constructor call of {kind.__name__} rebuilds the object the witness used")


def _attempts(obj: Any, parameters: list[inspect.Parameter]) -> list[list[str]]:
    """Argument lists to try, most complete first: the items (for a container), then each
    parameter the object keeps as an attribute of the same name."""
    items: list[str] = []
    named = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if isinstance(obj, _BUILT_INS):
        items = [plain_literal(_base(obj))]
        named = named[1:] if named and named[0].kind is named[0].POSITIONAL_OR_KEYWORD else named
    state = getattr(obj, "__dict__", {})
    keywords = []
    for parameter in named:
        if parameter.name in state:
            value = state[parameter.name]
            if parameter.default is not parameter.empty and _equal(value, parameter.default):
                continue  # the default: a reader need not see it
            keywords += _keyword(parameter.name, value)
    # `**options` kept whole as the attribute `options` (python-box's `box_options`): its items,
    # those that can be written, are the keywords the object was built with.
    extra = []
    for parameter in parameters:
        if parameter.kind is parameter.VAR_KEYWORD and isinstance(state.get(parameter.name), dict):
            extra += [item for name, value in state[parameter.name].items() if isinstance(name, str)
                      and name.isidentifier() and name not in {p.name for p in parameters}
                      for item in _keyword(name, value)]
    attempts = [items + keywords + extra, items + keywords, items]
    return [attempt for number, attempt in enumerate(attempts) if attempt not in attempts[:number]]


def _by_repr(obj: Any, name: str) -> list[str]:
    """The object's own repr when it reads as a call of its class (`PosixPath('a/b')`), with the
    class spelt as the test imports it."""
    try:
        shown = repr(obj)
    except Exception:  # noqa: BLE001 - a __repr__ of the code under triage that raises
        return []
    own = type(obj).__name__
    return [name + shown[len(own):]] if shown.startswith(own + "(") and shown.endswith(")") else []


def _keyword(name: str, value: Any) -> list[str]:
    try:
        return [f"{name}={plain_literal(value)}"]
    except NotLiteral:
        return []


def _base(obj: Any) -> Any:
    for base in _BUILT_INS:
        if isinstance(obj, base):
            return base(obj)
    return obj


def _root_of(kind: type, name: str) -> Any:
    """The object a test imports to reach `kind` by `name` ("Outer.Inner": Outer)."""
    module = sys.modules.get(kind.__module__)
    head = name.partition(".")[0]
    found = getattr(module, head, None)
    if found is None:
        raise NotLiteral(f"{kind.__module__} has no {head}")
    return found


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ of the code under triage that raises
        return False
