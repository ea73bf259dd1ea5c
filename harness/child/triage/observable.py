"""Where two results differ in a way a test could observe, and where they only seem to.

Runs inside the forked children (the values come from untrusted code). A triage finding is a
claim that some test would see the mutant's result differ from the original's, so only what a
test can observe counts:

- values compare by their structure, never by `repr` (which holds addresses), and an object's
  address inside a text (`<Foo object at 0x7f...>`) is not part of the text;
- a set is unordered: its elements are matched, by value, or by structure where they hash by
  identity (two deep copies of the same object);
- a dict keyed by `id()` (a `__deepcopy__` memo, an identity cache) compares by its values: its
  keys are addresses, which no test can predict;
- a list, dict or tuple subclass compares by its items and by its attributes (a frozen mode,
  options), and a type difference is said as such ("a CommentedMap instead of a dict");
- what differs between two runs of the original itself (a timestamp, an id, a random draw) is
  noise: `differing_paths` lists it, and `first_difference` passes over it.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from bugsmith.harness.child.triage.values import ATOL, RTOL, np, pd, short

_MAX_DEPTH = 8
_MAX_MATCHED = 200  # elements of a set matched by structure, pairwise
_MAX_REACHABLE = 20_000  # objects walked to learn which ints are addresses
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
_LOWEST_ADDRESS = 2**16  # no object lives in the first pages of an address space
# The parts of a path that name a fact about a container rather than a value inside it: noise
# there (a dict whose keys change by themselves) says nothing about the values it holds.
_FACTS = ("{keys}", "{len}")


def same(a: Any, b: Any) -> bool:
    """Whether two results agree as a test would see them (floats within RTOL/ATOL)."""
    return first_difference(a, b) is None


def first_difference(a: Any, b: Any, noise: frozenset[str] = frozenset()) -> str | None:
    """Where `b` first differs from `a`, as a short path and both values, or None if a test could
    not tell them apart; differences at the paths in `noise` (`differing_paths` of two runs of
    the original) and inside them are passed over."""
    for path, text in _Comparison(a, b).differences():
        if not _noisy(path, noise):
            return _said(path, text)
    return None


def difference_path(a: Any, b: Any) -> str | None:
    """The path of the first difference, as `first_difference` finds it, with its marker
    (`{type}`, `{len}`, `{keys}`) when it is a fact about a container; None if they agree."""
    return next((path for path, _ in _Comparison(a, b).differences()), None)


def differing_paths(a: Any, b: Any, limit: int = 200) -> frozenset[str]:
    """Every path at which `b` differs from `a` (up to `limit`): what changes by itself."""
    paths = []
    for path, _ in _Comparison(a, b).differences():
        paths.append(path)
        if len(paths) >= limit:
            break
    return frozenset(paths)


def without_addresses(text: str) -> str:
    """`text` with every object address (`at 0x7f3a...`) blanked: the rest is what a test sees."""
    return _ADDRESS.sub("at 0x...", text)


def kind_of(value: Any) -> str:
    """"a dict", "an int": a type's name with its article, for "a X instead of a Y"."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _said(path: str, text: str) -> str:
    shown = path.replace("{type}", "")
    for fact in _FACTS:
        shown = shown.replace(fact, "")
    return f"at {shown}: {text}" if shown else text


def _noisy(path: str, noise: frozenset[str]) -> bool:
    if path in noise:
        return True
    for other in noise:
        if other.endswith(_FACTS):
            continue  # a container's keys or length changing says nothing of its values
        base = other.removesuffix("{type}")
        if path.startswith(base) and path[len(base):][:1] in ("", "[", ".", "{"):
            return True
    return False


class _Comparison:
    """One comparison of two whole results: each side's reachable objects are learnt once, when an
    int-keyed dict asks whether its keys are the addresses of objects it can reach."""

    def __init__(self, a: Any, b: Any) -> None:
        self.roots = (a, b)
        self._reachable: list[set[int] | None] = [None, None]

    def differences(self) -> Iterator[tuple[str, str]]:
        return self._differ(self.roots[0], self.roots[1], "", 0, frozenset())

    def _differ(self, a: Any, b: Any, path: str, depth: int,
                seen: frozenset[tuple[int, int]]) -> Iterator[tuple[str, str]]:
        if depth > _MAX_DEPTH or (id(a), id(b)) in seen:
            return  # deep enough, or a cycle already being compared
        if isinstance(a, pd.DataFrame | pd.Series | pd.Index):
            if not (type(a) is type(b) and _same_pandas(a, b)):
                yield path, _shown(a, b)
            return
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            if not _same_array(a, b):
                yield path, _shown(a, b)
            return
        if isinstance(a, float | np.floating) and isinstance(b, float | np.floating):
            if not (_close(float(a), float(b)) and type(a) is type(b)):
                yield path, _shown(a, b)
            return
        if type(a) is not type(b):
            yield path + "{type}", _shown(a, b, f"{kind_of(b)} instead of {kind_of(a)}")
            return
        if isinstance(a, str):
            if without_addresses(a) != without_addresses(b):
                yield path, _shown(a, b)
            return
        if isinstance(a, bytes | int | bool | complex | type(None) | np.generic):
            if not bool(a == b):
                yield path, _shown(a, b)
            return
        seen, depth = seen | {(id(a), id(b))}, depth + 1
        if isinstance(a, set | frozenset):
            if not self._same_set(a, b, depth, seen):
                yield path, _shown(a, b)
        elif isinstance(a, list | tuple):
            yield from self._sequence(a, b, path, depth, seen)
        elif isinstance(a, dict):
            yield from self._mapping(a, b, path, depth, seen)
        container = isinstance(a, set | frozenset | list | tuple | dict)
        if container and not hasattr(a, "__dict__"):
            return  # a built-in container: its items were all there is to see
        equal = None if container or isinstance(a, slice | range) else _equal(a, b)
        if equal is False:  # where they differ, if the attributes tell; else the objects do
            told = False
            for found in self._attributes(a, b, path, depth, seen):
                told = True
                yield found
            if not told:
                yield path, _shown(a, b)
            return
        # An object with an `==` of its own that holds is equal as a test compares it: of its
        # attributes, only the public ones are still seen (a private one may be a cache, filled
        # in one and not yet in the other: a path's `_str`).
        yield from self._attributes(a, b, path, depth, seen, public_only=equal is True)

    def _sequence(self, a: Any, b: Any, path: str, depth: int,
                  seen: frozenset[tuple[int, int]]) -> Iterator[tuple[str, str]]:
        if len(a) != len(b):
            yield path + "{len}", _shown(a, b, f"{len(a)} != {len(b)} items")
        for i, (x, y) in enumerate(zip(a, b)):
            yield from self._differ(x, y, f"{path}[{i}]", depth, seen)

    def _mapping(self, a: dict[Any, Any], b: dict[Any, Any], path: str, depth: int,
                 seen: frozenset[tuple[int, int]]) -> Iterator[tuple[str, str]]:
        if self._identity_keyed(a, 0) and self._identity_keyed(b, 1):
            # Keyed by addresses: the values, in the order they were stored, are what is there.
            yield from self._sequence(list(a.values()), list(b.values()), f"{path}.values()", depth, seen)
            return
        pairs = _matched_keys(a, b, lambda x, y: not any(self._differ(x, y, "", depth, seen)))
        if len(pairs) != len(a) or len(pairs) != len(b):
            paired = {id(x) for x, _ in pairs} | {id(y) for _, y in pairs}
            alone = [repr(k) for k in [*a, *b] if id(k) not in paired]
            yield path + "{keys}", _shown(a, b, f"keys {short(sorted(alone), 120)} in one only")
        for x, y in pairs:
            yield from self._differ(a[x], b[y], f"{path}[{short(x, 40)}]", depth, seen)

    def _attributes(self, a: Any, b: Any, path: str, depth: int, seen: frozenset[tuple[int, int]],
                    public_only: bool = False) -> Iterator[tuple[str, str]]:
        state_a: dict[str, Any] | None
        state_b: dict[str, Any] | None
        if isinstance(a, slice | range):
            state_a, state_b = _bounds(a), _bounds(b)
        else:
            state_a, state_b = _state(a), _state(b)
        if public_only and state_a is not None and state_b is not None:
            state_a = {k: v for k, v in state_a.items() if not k.startswith("_")}
            state_b = {k: v for k, v in state_b.items() if not k.startswith("_")}
        if state_a is None or state_b is None:
            if not isinstance(a, set | frozenset | list | tuple | dict):
                yield from self._by_equality(a, b, path, depth)
            return
        for name in dict.fromkeys([*state_a, *state_b]):
            if name not in state_a or name not in state_b:
                yield path, _shown(a, b, f"attribute {name!r} in one only")
                return
            yield from self._differ(state_a[name], state_b[name], f"{path}.{name}", depth, seen)

    def _by_equality(self, a: Any, b: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        """A value that keeps no attributes (a C type: Decimal, datetime, a compiled pattern) agrees
        by its own `==`, or else by what it hands to pickle; one without either has nothing to see."""
        if type(a).__eq__ is not object.__eq__:
            try:
                if not bool(a == b):
                    yield path, _shown(a, b)
                return
            except Exception:  # noqa: BLE001 - a broken __eq__: try what pickle sees
                pass
        try:
            reduced = a.__reduce_ex__(4), b.__reduce_ex__(4)
        except Exception:  # noqa: BLE001
            return
        if all(isinstance(r, tuple) for r in reduced):
            yield from self._differ(reduced[0][1:3], reduced[1][1:3], path, depth, frozenset())

    def _same_set(self, a: Any, b: Any, depth: int, seen: frozenset[tuple[int, int]]) -> bool:
        if len(a) != len(b):
            return False
        if a == b:
            return True
        left, right = [x for x in a if x not in b], [y for y in b if y not in a]
        if len(left) > _MAX_MATCHED:
            return False
        pairs = _matched(left, right, lambda x, y: not any(self._differ(x, y, "", depth, seen)))
        return len(pairs) == len(left) == len(right)

    def _identity_keyed(self, mapping: dict[Any, Any], side: int) -> bool:
        """Whether every key is an int that is the address of an object this side of the
        comparison can reach (a `__deepcopy__` memo keeps the objects it copied)."""
        if not mapping or not all(type(key) is int and key > _LOWEST_ADDRESS for key in mapping):
            return False  # an ordinary int-keyed dict (0, 1, 2, ...): nothing to walk
        if self._reachable[side] is None:
            self._reachable[side] = _reachable(self.roots[side])
        reachable = self._reachable[side]
        return reachable is not None and all(key in reachable for key in mapping)


def _matched_keys(a: dict[Any, Any], b: dict[Any, Any], alike: Any) -> list[tuple[Any, Any]]:
    """Pairs of keys, one from each dict: equal keys first, then keys that hash by identity matched
    by structure (a deep copy's objects are other objects)."""
    pairs = [(k, k) for k in a if k in b]
    left, right = [k for k in a if k not in b], [k for k in b if k not in a]
    if left and right and len(left) <= _MAX_MATCHED:
        pairs += _matched(left, right, alike)
    return pairs


def _matched(left: list[Any], right: list[Any], alike: Any) -> list[tuple[Any, Any]]:
    pairs, free = [], list(right)
    for x in left:
        partner = next((y for y in free if type(y) is type(x) and alike(x, y)), _NONE)
        if partner is not _NONE:
            free.remove(partner)
            pairs.append((x, partner))
    return pairs


_NONE = object()


def _reachable(root: Any) -> set[int]:
    """The ids of the objects reachable from `root` through containers and attributes (bounded)."""
    found: set[int] = set()
    stack = [root]
    while stack and len(found) < _MAX_REACHABLE:
        value = stack.pop()
        if id(value) in found or isinstance(value, str | bytes | int | float | complex | type(None)):
            continue
        found.add(id(value))
        if isinstance(value, dict):
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, list | tuple | set | frozenset):
            stack += list(value)
        state = _state(value) if not isinstance(value, type) else None
        if state:
            stack += list(state.values())
    return found


def _equal(a: Any, b: Any) -> bool | None:
    """`a == b` by the type's own `==`; None when it has none (identity) or it fails."""
    if type(a).__eq__ is object.__eq__:
        return None
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a broken or mutated __eq__: compare the attributes instead
        return None


def _bounds(value: slice | range) -> dict[str, Any]:
    return {"start": value.start, "stop": value.stop, "step": value.step}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _state(obj: Any) -> dict[str, Any] | None:
    """An object's attributes (its `__dict__` and `__slots__`, a dataclass's fields), so that two
    schedulers or two trees compare by content; None for an object that keeps none."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
    state: dict[str, Any] = {}
    found = False
    try:
        if isinstance(getattr(obj, "__dict__", None), dict):
            state.update(vars(obj))
            found = True
    except Exception:  # noqa: BLE001 - a __getattr__ of the code under triage that raises
        pass
    for klass in type(obj).__mro__:
        slots = getattr(klass, "__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            found = True
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                state[slot] = getattr(obj, slot)
    return state if found else None


def _shown(a: Any, b: Any, what: str = "") -> str:
    """`<a> != <b>`, or only what differs when both print alike (a dict and a dict subclass);
    strings that print alike (Unicode normalisation, invisible characters) are shown escaped."""
    first, second = short(a, 120), short(b, 120)
    if isinstance(a, str) and isinstance(b, str) and (first == second or not (a.isascii() and b.isascii())):
        first, second = _cut(ascii(a), 120), _cut(ascii(b), 120)
        if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
            what = "the same text in another Unicode normalisation"
    if first == second and what:
        return what  # the values print alike: only what tells them apart is worth showing
    return f"{first} != {second}" + (f" ({what})" if what else "")


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= ATOL + RTOL * abs(b)


def _same_array(a: Any, b: Any) -> bool:
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))
    if a.dtype.kind == "O":
        return all(same(x, y) for x, y in zip(a.ravel(), b.ravel()))
    return bool(np.array_equal(a, b))


def _same_pandas(a: Any, b: Any) -> bool:
    try:
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=RTOL, atol=ATOL)
        elif isinstance(a, pd.Series):
            pd.testing.assert_series_equal(a, b, check_exact=False, rtol=RTOL, atol=ATOL)
        else:
            pd.testing.assert_index_equal(a, b, exact=True)
    except (AssertionError, TypeError, ValueError):
        return False
    return True
