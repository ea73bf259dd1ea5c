"""What a zygote may leave to the preloader (harness.preload), and the preloader itself: import
that, then fork a zygote per request.

A module is preloaded when the zygote had imported it from outside the project and its copy,
and it is not part of pytest, bugsmith or a pytest plugin (pytest marks a plugin's modules for
assertion rewriting as it loads them, and warns about one imported before). The preloader
imports them in the zygote's order, and gives up (ends, and the runs start their zygotes as
interpreters) if an import warns or raises something other than an ImportError, lands inside
the project, or leaves a second thread behind (a fork would copy a lock another thread holds).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import random
import select
import signal
import socket
import sys
import time
import types
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from bugsmith.harness import leftovers
from bugsmith.harness.child import reaper
from bugsmith.harness.preload import Spawn, Start, peer_uid
from bugsmith.harness.protocol import WorkerSetup, encode
from bugsmith.harness.zygote import Hatched

IMPORT_SECONDS = 120  # a preloader whose imports take longer is stuck: SIGALRM ends it
REQUEST_SECONDS = 5.0  # how long a connection may take to send its request
REAP_EVERY = 1.0
# Imported by every worker before it reads its setup, or bugsmith's own: nothing to gain.
NEVER = frozenset({"__main__", "bugsmith", "pytest", "_pytest", "pluggy", "coverage", "py"})


def preloadable(setup: WorkerSetup, config: pytest.Config) -> tuple[str, ...]:
    """The modules this process (a zygote that has collected) imported that a preloader may
    import for the next run's zygote, in the order they were imported."""
    inside = tuple({os.path.join(os.path.realpath(folder), "") for folder in (setup.root, setup.project)}
                   | {os.path.join(folder, "") for folder in (setup.root, setup.project)})
    plugins = set(NEVER)
    plugins.update(name.partition(".")[0] for name in getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", ()))
    plugins.update(plugin.__name__.partition(".")[0] for plugin in config.pluginmanager.get_plugins()
                   if isinstance(plugin, types.ModuleType))
    names = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if (name.partition(".")[0] in plugins or not isinstance(file, str) or not os.path.isabs(file)
                or file.startswith(inside) or getattr(module, "__name__", None) != name):
            continue
        names.append(name)
    return tuple(names)


class Unusable(Exception):
    """This preloader cannot stand for a fresh interpreter: it ends."""


class Preloader:
    def __init__(self, start: Start) -> None:
        self.start = start
        self.files: dict[str, tuple[int, int]] = {}  # every imported module's file: (mtime, size)
        self.children: set[int] = set()

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
        signal.alarm(IMPORT_SECONDS)
        os.chdir(self.start.root)
        sys.path.insert(0, self.start.root)  # as the zygote's, so names resolve as they did there
        import bugsmith.harness.child.worker  # noqa: F401 - pytest, coverage: what every zygote imports

        inside = tuple(os.path.join(folder, "") for folder in (self.start.root, self.start.origin) if folder)
        for name in self.start.modules:
            if name in sys.modules:
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    importlib.import_module(name)
                except ImportError as error:  # uninstalled since: the zygote will see it too
                    _log(f"skipped {name}: {error}")
                    continue
                except Exception as error:  # noqa: BLE001 - any other failure is the preloader's end
                    raise Unusable(f"importing {name} raised {type(error).__name__}: {error}") from None
            if caught:
                raise Unusable(f"importing {name} warned: {caught[0].message}")
            file = getattr(sys.modules.get(name), "__file__", None) or ""
            if file.startswith(inside):
                raise Unusable(f"{name} resolved inside the project: {file}")
        signal.alarm(0)
        if len(os.listdir("/proc/self/task")) != 1:
            raise Unusable("an import left a thread running")
        sys.path.remove(self.start.root)
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and file not in self.files:
                try:
                    info = os.stat(file)
                except OSError:
                    continue
                self.files[file] = (info.st_mtime_ns, info.st_size)
        gc.freeze()  # as the zygote does: each fork then copies fewer pages

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
                outcome = self._answer(connection, listener)
            if outcome is not None:
                return outcome
            deadline = time.monotonic() + self.start.idle

    def _answer(self, connection: socket.socket, listener: socket.socket) -> Callable[[], int] | None:
        """Fork a zygote for the request on `connection`: in the zygote, the zygote to run; here,
        None to go on, or the end when the imports went stale."""
        request = _request(connection)
        if request is None:
            return None
        spawn, fds = request
        stale = self._stale()
        if stale is not None or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            _send(connection, Hatched(error=stale or "a request came without its descriptors"))
            if stale is None:
                return None
            _log(f"ends: {stale}")
            return lambda: 0
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the zygote
            listener.close()
            return lambda: _become_zygote(spawn, fds[0], fds[1], self.start.root)
        for fd in fds:
            os.close(fd)
        self.children.add(pid)
        _log(f"forked zygote {pid}")
        pidfd = os.pidfd_open(pid)
        try:
            _send(connection, Hatched(pid=pid), pidfd)
        finally:
            os.close(pidfd)
        return None

    def _stale(self) -> str | None:
        for file, seen in self.files.items():
            try:
                info = os.stat(file)
            except OSError:
                return f"{file} is gone"
            if (info.st_mtime_ns, info.st_size) != seen:
                return f"{file} changed"
        return None


def _request(connection: socket.socket) -> tuple[Spawn, list[int]] | None:
    try:
        if peer_uid(connection) != os.getuid():
            return None
        connection.settimeout(REQUEST_SECONDS)
        buffer, fds = b"", []
        while not buffer.endswith(b"\n"):
            data, received, _, _ = socket.recv_fds(connection, 1 << 16, 2)
            fds.extend(received)
            if not data:  # a probe (harness.preload.alive), or a run that went away
                for fd in fds:
                    os.close(fd)
                return None
            buffer += data
        return Spawn.from_dict(json.loads(buffer)), fds
    except (OSError, ValueError, KeyError):
        return None


def _send(connection: socket.socket, answer: Hatched, *fds: int) -> None:
    try:
        socket.send_fds(connection, [encode(answer)], list(fds))
    except OSError:
        pass  # the run went away: the zygote it asked for finds its socket closed and ends


def _become_zygote(spawn: Spawn, channel: int, log: int, root: str) -> int:  # pragma: no cover - the zygote
    """Go on as `python -m bugsmith.harness.child.worker --zygote` would: a session of its own,
    the pool's socket as stdin and stdout, its log as stderr, the run's mark and environment,
    fresh random state, a start-up clock from now."""
    os.setsid()
    os.dup2(channel, 0)
    os.dup2(channel, 1)
    os.dup2(log, 2)
    os.close(channel)
    os.close(log)
    if not leftovers.remark(spawn.mark):
        print("bugsmith preloader: cannot give the zygote its mark", file=sys.stderr, flush=True)
        return 1
    for name in set(os.environ) - set(spawn.env) - {leftovers.VARIABLE}:
        del os.environ[name]
    os.environ.update({name: value for name, value in spawn.env.items() if name != leftovers.VARIABLE})
    os.chdir(root)
    random.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
    from bugsmith.harness.child import worker
    from bugsmith.harness.zygote import FLAG

    worker.STARTED = time.monotonic()
    sys.argv = [str(Path(worker.__file__)), FLAG]
    return worker.main()


def _log(message: str) -> None:
    print(f"bugsmith preloader {os.getpid()} {time.strftime('%H:%M:%S')}: {message}", file=sys.stderr, flush=True)
