"""The preloader (harness.shared.preload): import what a zygote left to it
(harness.child.preloadable), then fork a zygote per request.

The preloader imports those modules in the zygote's order, and gives up (ends, and the runs start their zygotes as
interpreters) if an import warns or raises something other than an ImportError, lands inside
the project, or leaves a second thread behind (a fork would copy a lock another thread holds).
"""

from __future__ import annotations

import gc
import importlib
import inspect
import json
import os
import random
import select
import signal
import socket
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any, cast

import pytest

from bugsmith.harness.child import reaper
from bugsmith.harness.child.preloadable import Project
from bugsmith.harness.shared import leftovers
from bugsmith.harness.shared.preload import Spawn, Start, peer
from bugsmith.harness.shared.protocol import encode
from bugsmith.harness.shared.zygote import ForkAnswer

IMPORT_SECONDS = 120  # a preloader whose imports take longer is stuck: SIGALRM ends it
REQUEST_SECONDS = 5.0  # how long a connection may take to send its request
REAP_EVERY = 1.0
class Unusable(Exception):
    """This preloader cannot stand for a fresh interpreter: it ends."""


class Preloader:
    def __init__(self, start: Start) -> None:
        self.start = start
        self.launched = dict(os.environ)  # before any import could set a variable
        self.files: dict[str, tuple[int, int]] = {}  # every imported module's file: (mtime, size)
        self.children: set[int] = set()
        self.import_seconds = 0.0  # what a fresh interpreter spends on these imports

    def serve(self, listener: socket.socket) -> Callable[[], int]:
        """Import, then answer the requests on `listener`; what to run next: the end of this
        process, or, in a forked zygote, the zygote."""
        try:
            self._import()
        except Unusable as why:
            _log(f"ends: {why}")
            return lambda: 1
        _log(f"ready: {len(self.files)} module files")
        return self._loop(listener)

    def _import(self) -> None:
        started = time.monotonic()
        signal.alarm(IMPORT_SECONDS)
        os.chdir(self.start.root)
        sys.path.insert(0, self.start.root)  # as the zygote's, so names resolve as they did there
        os.environ["PYTEST_VERSION"] = pytest.__version__  # as pytest.main sets it for its imports
        import bugsmith.harness.child.worker  # noqa: F401 - pytest, coverage: what every zygote imports

        warned = _Warnings()
        with warned:
            for name in self.start.modules:
                if name in sys.modules:
                    continue
                try:
                    importlib.import_module(name)
                except ImportError as error:  # uninstalled since: the zygote will see it too
                    _log(f"skipped {name}: {error}")
                except Exception as error:  # noqa: BLE001 - any other failure is the preloader's end
                    raise Unusable(f"importing {name} raised {type(error).__name__}: {error}") from None
                if warned.seen:
                    raise Unusable(f"importing {name} warned: {warned.seen[0]}")
        signal.alarm(0)
        del os.environ["PYTEST_VERSION"]
        for name, value in self.start.environ.items():
            if os.environ.get(name) != value:  # set by a plugin or conftest, maybe read by an import
                raise Unusable(f"the suite's start-up sets {name}, which the imports do not: one may read it")
        sys.path.remove(self.start.root)
        self._check()
        self.import_seconds = time.monotonic() - started
        _map_module_files()
        gc.freeze()  # as the zygote does: each fork then copies fewer pages

    def _check(self) -> None:
        """Unusable if an import, directly or through others, loaded a pytest plugin or a module
        of the project, or left a thread; else note every module file, to see it change."""
        if len(os.listdir("/proc/self/task")) != 1:
            raise Unusable("an import left a thread running")
        project = Project(self.start.root, self.start.origin)
        plugins = set(self.start.plugins)
        for name, module in list(sys.modules.items()):
            if name.partition(".")[0] in plugins:
                raise Unusable(f"{name} (a pytest plugin's) was imported")
            file = getattr(module, "__file__", None)
            if not isinstance(file, str) or file in self.files:
                continue
            if project.holds(file):
                raise Unusable(f"{name} resolved inside the project: {file}")
            try:
                info = os.stat(file)
            except OSError:
                continue
            self.files[file] = (info.st_mtime_ns, info.st_size)

    def _loop(self, listener: socket.socket) -> Callable[[], int]:
        deadline = time.monotonic() + self.start.idle
        while True:
            self.children.difference_update(reaper.reap())
            left = deadline - time.monotonic()
            if left <= 0 or not os.path.isdir(self.start.root):
                _log("ends: idle" if left <= 0 else "ends: the project's folder is gone")
                return lambda: 0
            if not select.select([listener], [], [], min(REAP_EVERY, left))[0]:
                continue
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            with connection:
                request = _request(connection)
                if request is None:  # a probe (harness.shared.preload.alive), or a run that went away
                    continue
                outcome = self._answer(connection, listener, *request)
            if outcome is not None:
                return outcome
            deadline = time.monotonic() + self.start.idle

    def _answer(self, connection: socket.socket, listener: socket.socket, spawn: Spawn,
                fds: list[int]) -> Callable[[], int] | None:
        """Fork a zygote for `spawn`: in the zygote, the zygote to run; here, None to go on, or
        the end when the imports went stale."""
        stale = self._stale()
        if stale is not None or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            _send(connection, ForkAnswer(error=stale or "a request came without its descriptors"))
            if stale is None:
                return None
            _log(f"ends: {stale}")
            return lambda: 0
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the zygote
            listener.close()
            return lambda: self._become_zygote(spawn, fds[0], fds[1])
        for fd in fds:
            os.close(fd)
        self.children.add(pid)
        _log(f"forked zygote {pid}")
        pidfd = os.pidfd_open(pid)
        try:
            _send(connection, ForkAnswer(pid=pid), pidfd)
        finally:
            os.close(pidfd)
        return None

    def _become_zygote(self, spawn: Spawn, channel: int, log: int) -> int:  # pragma: no cover - the zygote
        """Go on as `python -m bugsmith.harness.child.worker --zygote` would: a session of its
        own, the pool's socket as stdin and stdout, its log as stderr, the run's mark and
        environment (what imports set stays, as in a process that made them), fresh random
        state, and a start-up clock that counts the imports a fresh interpreter makes."""
        os.setsid()
        os.dup2(channel, 0)
        os.dup2(channel, 1)
        os.dup2(log, 2)
        os.close(channel)
        os.close(log)
        if not leftovers.remark(spawn.mark):
            print("bugsmith preloader: cannot give the zygote its mark", file=sys.stderr, flush=True)
            return 1
        for name in (set(self.launched) | set(spawn.env)) - {leftovers.VARIABLE}:
            if spawn.env.get(name) == self.launched.get(name):
                continue
            if name in spawn.env:
                os.environ[name] = spawn.env[name]
            else:
                os.environ.pop(name, None)
        os.chdir(self.start.root)
        random.seed()
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed()
        from bugsmith.harness.child import worker

        return worker.serve(zygote=True, started=time.monotonic() - self.import_seconds,
                            preloaded=frozenset(sys.modules))

    def _stale(self) -> str | None:
        for file, seen in self.files.items():
            try:
                info = os.stat(file)
            except OSError:
                return f"{file} is gone"
            if (info.st_mtime_ns, info.st_size) != seen:
                return f"{file} changed"
        return None


class _Warnings:
    """Every warning raised while entered, seen whatever the filters say, without undoing the
    filters the imports install (warnings.catch_warnings would restore the list)."""

    ALWAYS = ("always", None, Warning, None, 0)

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __enter__(self) -> None:
        self._shown = warnings.showwarning
        warnings.showwarning = self._show
        cast("list[Any]", warnings.filters).insert(0, self.ALWAYS)
        warnings._filters_mutated()  # type: ignore[attr-defined]

    def __exit__(self, *exc: object) -> None:
        warnings.showwarning = self._shown
        if self.ALWAYS in warnings.filters:
            cast("list[Any]", warnings.filters).remove(self.ALWAYS)
        warnings._filters_mutated()  # type: ignore[attr-defined]

    def _show(self, message: Warning | str, *args: object, **kwargs: object) -> None:
        self.seen.append(str(message))


def _map_module_files() -> None:
    """Have inspect map every imported module's file now: coverage asks for the module of each
    frame on the stack whenever it makes its collector (`short_stack`, in each worker's first
    baseline chunk), and inspect then maps the file of every module imported so far, a realpath
    each, many of them with scientific libraries loaded: mapped here, no worker maps them again.
    A zygote forked from here maps only what it imports itself; the maps are the ones a fresh
    interpreter builds, in the same order."""
    inspect.getmodule(sys._getframe())  # a frame has no __module__: inspect maps the files


def _request(connection: socket.socket) -> tuple[Spawn, list[int]] | None:
    try:
        if peer(connection)[1] != os.getuid():
            return None
        connection.settimeout(REQUEST_SECONDS)
        buffer, fds = b"", []
        while not buffer.endswith(b"\n"):
            data, received, _, _ = socket.recv_fds(connection, 1 << 16, 2)
            fds.extend(received)
            if not data:  # a probe (harness.shared.preload.alive), or a run that went away
                for fd in fds:
                    os.close(fd)
                return None
            buffer += data
        return Spawn.from_dict(json.loads(buffer)), fds
    except (OSError, ValueError, KeyError):
        return None


def _send(connection: socket.socket, answer: ForkAnswer, *fds: int) -> None:
    try:
        socket.send_fds(connection, [encode(answer)], list(fds))
    except OSError:
        pass  # the run went away: the zygote it asked for finds its socket closed and ends


def _log(message: str) -> None:
    print(f"bugsmith preloader {os.getpid()} {time.strftime('%H:%M:%S')}: {message}", file=sys.stderr, flush=True)
