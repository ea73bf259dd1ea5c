"""Run a mutant of code that runs at import in a forked child of a worker, without a new
interpreter: execute the mutated module again into its own module object, and rebind what other
modules took from it.

That equals a fresh import followed by collection only when nothing else kept what the first
import made. A worker finds that out once per module (`survey`, before it forks): the module's
import must touch nothing but its own namespace (harness.child.import_effects), the names other
modules bound from it must be known (`from m import x`, `import *`: rebound in the child), and no
other object may hold what it built (an instance of its class in a test module's data, its
function in another module's registry, a subclass elsewhere): found by asking the garbage
collector who refers to each of the module's values. In the child (`reexecute`), the names other
modules read while they were imported (a parametrize list) must come out of the mutated import
with equal values, and whatever of this fails raises NeedsFreshImport: a fresh interpreter
gives the verdict instead.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
import types
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bugsmith.harness.child.activation import NeedsFreshImport
from bugsmith.harness.child.import_effects import module_names, outside_effect, uses_of

# What an import puts in a module's namespace before its code runs.
_IMPORT_NAMES = frozenset({"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__",
                           "__cached__", "__builtins__", "__path__"})
# What running a module's code adds to its namespace besides the names it binds.
_IMPLICIT_NAMES = frozenset({"__annotations__", "__warningregistry__"})
_ATOMS = (type(None), bool, int, float, complex, str, bytes, range, type(Ellipsis))
# Objects reachable from a module's values are walked this far, then the module is refused.
_WALK_LIMIT = 200_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Survey:
    """What re-executing module `name` in place must do, or why it cannot stand for a fresh import."""

    name: str
    refused: str | None = None
    names: frozenset[str] = frozenset()  # what the original module's code may bind
    reads: frozenset[str] | None = frozenset()  # names other modules read while imported; None: any
    # (module, its name, this module's name): `from name import x as y`, `import *`, re-exports
    bindings: tuple[tuple[str, str, str], ...] = ()
    held: frozenset[str] = frozenset()  # names whose objects something else holds


def project_modules(root: str, skip: str = "") -> dict[str, types.ModuleType]:
    """The loaded modules whose file is in the project (tests, conftest files, its packages)."""
    prefix = root.rstrip(os.sep) + os.sep
    found = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name != skip and isinstance(file, str) and file.startswith(prefix) and "site-packages" not in file:
            found[name] = module
    return found


def survey(name: str, path: str, root: str, ours: Iterable[Any] = ()) -> Survey:
    """Decide, in the worker before it forks, whether module `name` (file `path`) can be
    re-executed in place by its mutants, and what that takes. `ours`: containers of the worker's
    own that hold the module's functions (the index of live functions), never seen by a test."""
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != path:
        return Survey(name=name, refused="the module is not loaded from its file")
    try:
        source = Path(path).read_text(encoding="utf-8")
        effect = outside_effect(source)
        names = module_names(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as error:
        return Survey(name=name, refused=f"cannot read the module: {error}")
    if effect is not None:
        return Survey(name=name, refused=effect)
    prefix = name + "."
    foreign = sorted(key for key, value in vars(module).items()
                     if key not in names and key not in _IMPORT_NAMES and key not in _IMPLICIT_NAMES
                     and not (isinstance(value, types.ModuleType) and value.__name__.startswith(prefix)))
    if foreign:
        return Survey(name=name, refused=f"other code set {', '.join(foreign[:3])} on the module")
    try:
        reads, bindings = _uses(name, vars(module), project_modules(root, skip=name))
    except _Unreadable as error:
        return Survey(name=name, refused=f"cannot read {error}, which may use the module")
    survey = Survey(name=name, names=names, reads=reads, bindings=bindings)
    held = _held(module, survey, {id(container) for container in ours})
    if isinstance(held, str):
        return Survey(name=name, refused=held)
    return Survey(name=name, names=names, reads=reads, bindings=bindings, held=held)


class _Unreadable(Exception):
    pass


class ImportFailed(Exception):
    """Executing the mutated module raised `error`: a fresh import's collection would fail too."""

    def __init__(self, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


def first_importer(name: str, files: Iterable[str], root: str) -> str | None:
    """The first of `files` (test files relative to `root`, in the order pytest would collect
    them) whose import imports module `name`: where a fresh collection reports the module's
    import failing. None when a conftest imports it (pytest reports that failure otherwise) or
    none of `files` does (their tests would run: only a fresh interpreter can say how)."""
    modules = project_modules(root)
    users = _dependents(name, modules)
    if any(key.rpartition(".")[2] == "conftest" for key in users):
        return None
    by_file = {os.path.relpath(str(module.__file__), root): key for key, module in modules.items()}
    return next((file for file in files if by_file.get(file) in users), None)


def _dependents(name: str, modules: dict[str, types.ModuleType]) -> set[str]:
    """The modules of `modules` whose import imports `name`, as far as their namespaces show it:
    a module, function or class they bound from it, or a package their own name passes through.
    A package's own submodules are left out: importing one sets it on the package, which need
    not import it. Errs towards missing a module: then a later file is named, or none."""
    needs: dict[str, set[str]] = {}
    for key, module in modules.items():
        found = _packages(key)
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                if not value.__name__.startswith(key + "."):
                    found.update(_packages(value.__name__), {value.__name__})
            elif isinstance(value, (type, types.FunctionType)) and isinstance(value.__module__, str):
                found.update(_packages(value.__module__), {value.__module__})
        needs[key] = found
    users = {name}
    grown = True
    while grown:
        grown = False
        for key, found in needs.items():
            if key not in users and found & users:
                users.add(key)
                grown = True
    users.discard(name)
    return users


def _packages(name: str) -> set[str]:
    """The packages importing module `name` imports first: `a` and `a.b` for `a.b.c`."""
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts))}


def _uses(name: str, namespace: dict[str, Any], others: dict[str, types.ModuleType],
          ) -> tuple[frozenset[str] | None, tuple[tuple[str, str, str], ...]]:
    """The module's names other modules read while imported (None: any), and every name another
    module bound to one of its values, also through a module that re-exports it (`from .m import
    f` in a package's `__init__`, then `from package import f` in a test)."""
    aliases: dict[str, dict[str, str]] = {name: {key: key for key in namespace}}  # module -> its name -> ours
    trees: dict[str, ast.Module] = {}
    found: dict[tuple[str, str], Any] = {}
    reads: set[str] | None = set()
    bindings: set[tuple[str, str, str]] = set()
    grown = True
    while grown:
        grown = False
        for other, loaded in others.items():
            for via, names in list(aliases.items()):
                if via == other:
                    continue
                if (via, other) not in found:
                    try:
                        if other not in trees:
                            trees[other] = ast.parse(Path(loaded.__file__ or "").read_bytes())
                        found[(via, other)] = uses_of(via, trees[other], other, hasattr(loaded, "__path__"))
                    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                        raise _Unreadable(other) from None
                uses = found[(via, other)]
                if uses is None:
                    continue
                taken = list(uses.bindings)
                if uses.star:
                    public = _public(vars(sys.modules[via])) if via in sys.modules else set()
                    taken += [(key, key) for key in public]
                    if reads is not None:
                        reads.add(names.get("__all__", "__all__"))
                for mine, theirs in taken:
                    if theirs in names and (other, mine, names[theirs]) not in bindings:
                        bindings.add((other, mine, names[theirs]))
                        aliases.setdefault(other, {})[mine] = names[theirs]
                        grown = True
                if uses.reads is None:
                    reads = None
                elif reads is not None:
                    reads.update(names[key] for key in uses.reads if key in names)
    return (None if reads is None else frozenset(reads)), tuple(sorted(bindings))


def _held(module: types.ModuleType, survey: Survey, ours: set[int]) -> frozenset[str] | str:
    """The module's names whose objects are held by something other than its namespace, the
    namespaces that `survey` rebinds, and the objects those values are made of; or why the
    question cannot be answered."""
    namespace = vars(module)
    values = {id(value): key for key, value in namespace.items() if _referential(value)}
    if not values:
        return frozenset()
    rebound = {(id(vars(sys.modules[other])), mine) for other, mine, _ in survey.bindings if other in sys.modules}
    namespaces = {id(vars(m)) for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)}
    inner = _made_of([namespace[key] for key in values.values()], module, namespaces)
    if inner is None:
        return "the module's values reach too many objects to tell who holds them"
    skip = inner | _harmless_caches() | ours
    frozen = gc.get_freeze_count()
    gc.unfreeze()  # frozen objects are invisible to get_referrers
    try:
        objects = [namespace[key] for key in values.values()]
        referrers = gc.get_referrers(*objects)
        held: set[str] = set()
        for referrer in referrers:
            if referrer is namespace or referrer is objects or id(referrer) in skip \
                    or isinstance(referrer, types.FrameType) or _arguments(referrer, objects):
                continue
            holds = [values[id(o)] for o in gc.get_referents(referrer) if id(o) in values]
            if id(referrer) in namespaces and isinstance(referrer, dict):
                holds = [key for key in holds if not _rebound(referrer, namespace[key], rebound)]
            held.update(holds)
        del referrers, objects
    finally:
        if frozen:
            gc.freeze()
    return frozenset(held)


def _arguments(referrer: Any, objects: list[Any]) -> bool:
    """The tuple that carried `objects` into gc.get_referrers."""
    return isinstance(referrer, tuple) and len(referrer) == len(objects) and all(
        a is b for a, b in zip(referrer, objects))


def _rebound(namespace: dict, value: Any, rebound: set[tuple[int, str]]) -> bool:
    """Every name under which `namespace` holds `value` is one that the re-execution rebinds."""
    return all((id(namespace), key) in rebound for key, held in namespace.items() if held is value)


def _referential(value: Any) -> bool:
    """A value whose identity can matter: not a module, not an immutable atom or tuple of them."""
    if isinstance(value, (types.ModuleType, *_ATOMS)):
        return False
    if isinstance(value, (tuple, frozenset)):
        return any(_referential(item) for item in value)
    return True


def _made_of(roots: list[Any], module: types.ModuleType, namespaces: set[int]) -> set[int] | None:
    """Ids of the objects the module's values are made of (a function's defaults and cells, a
    class's dict and descriptors, a list's items): holding one another is their own business.
    The walk stops at modules, namespaces, and classes and functions of other modules."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        value = stack.pop()
        if id(value) in seen or isinstance(value, types.ModuleType) or id(value) in namespaces:
            continue
        if isinstance(value, type) and value.__module__ != module.__name__:
            continue
        if isinstance(value, types.FunctionType) and value.__module__ != module.__name__:
            continue
        seen.add(id(value))
        if len(seen) > _WALK_LIMIT:
            return None
        stack.extend(gc.get_referents(value))
    return seen


def _harmless_caches() -> set[int]:
    """Caches of the standard library that keep what they were given, unseen by any test."""
    import re

    return {id(cache) for cache in (getattr(re, "_cache", None), getattr(re, "_cache2", None)) if cache is not None}


def reexecute(survey: Survey, path: str, source: str) -> None:
    """Execute `source` (the mutated module) into the live module object and rebind what other
    modules bound from it. Raises NeedsFreshImport when the result may differ from a fresh
    import, and ImportFailed when the mutated code raised an Exception (as it would in a fresh
    import: the module's import touches nothing outside it, so it meets the same world);
    anything else the mutated code raises passes through (the caller falls back)."""
    if survey.refused is not None:
        raise NeedsFreshImport(survey.refused)
    module = sys.modules[survey.name]
    namespace = vars(module)
    old = dict(namespace)
    code = compile(source, path, "exec", dont_inherit=True)
    prefix = survey.name + "."
    kept = {key: value for key, value in old.items() if key in _IMPORT_NAMES
            or (isinstance(value, types.ModuleType) and value.__name__.startswith(prefix))}
    namespace.clear()
    namespace.update(kept)
    try:
        exec(code, namespace)  # noqa: S102 - the mutant, as an import would run it
    except Exception as error:  # a skip or an exit at import is left to a fresh interpreter
        raise ImportFailed(error) from error
    changed = {key for key in old.keys() | namespace.keys()
               if key not in kept and (key not in namespace or key not in old or namespace[key] is not old[key])}
    if changed & survey.held:
        raise NeedsFreshImport(f"something else holds {sorted(changed & survey.held)[0]}")
    read = changed if survey.reads is None else changed & survey.reads
    for key in read:
        if not same_value(old.get(key, _MISSING), namespace.get(key, _MISSING)):
            raise NeedsFreshImport(f"another module read {key} while it was imported")
    for other, mine, theirs in survey.bindings:
        target = vars(sys.modules[other])
        if mine in target and target[mine] is old.get(theirs, _MISSING) and theirs in changed:
            if theirs not in namespace:
                raise NeedsFreshImport(f"{other} imports {theirs}, which the mutant removes")
            target[mine] = namespace[theirs]


def _public(namespace: dict) -> set[str]:
    names = namespace.get("__all__")
    if isinstance(names, (list, tuple)):
        return {str(name) for name in names}
    return {key for key in namespace if not key.startswith("_")}


_MISSING = object()


def same_value(old: Any, new: Any, depth: int = 0) -> bool:
    """`old` and `new` are interchangeable for code that only reads them: the same object, or
    equal plain data (None, numbers, strings, and tuples, lists, sets and dicts of them) that
    also iterates in the same order."""
    if old is new:
        return True
    if type(old) is not type(new) or depth > 50:
        return False
    if isinstance(old, _ATOMS):
        return bool(old == new)
    if isinstance(old, (tuple, list, set, frozenset)):
        return len(old) == len(new) and all(same_value(a, b, depth + 1) for a, b in zip(old, new))
    if isinstance(old, dict):
        return len(old) == len(new) and all(a == b and same_value(old[a], new[b], depth + 1)
                                            for a, b in zip(old, new))
    return False
