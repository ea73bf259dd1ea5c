"""The preloader: a process that outlives a run, with the suite's third-party imports done, from
which the next run's zygote is forked.

A warm run after a one-line edit re-runs a few tests, but its zygote (harness.zygote) first pays
a fresh interpreter's imports: pytest, numpy, pandas, scikit-learn and whatever else the suite
imports, seconds on a real project (the reference corpus' auc: 3.6 s of a 6.5 s run, 1.8 s of it
scikit-learn). At the end of a run the fork pool starts a preloader
(`python -m bugsmith.harness.child.preloader`) that imports the modules the run's zygote had
imported from outside the project, and waits on an abstract Unix socket. The next run's pool
asks it for the zygote (`hatch_zygote`): the preloader forks, and the child goes on as a zygote
started as an interpreter would (harness.child.worker's `main`), its imports of the project and
the collection of the tests still its own. Like Gradle's daemon or Rails' Spring preloader, it
ends by itself after IDLE_SECONDS without a request, or when its project's folder is gone.

What a forked zygote shares with the preloader must be what a fresh one would get:
- The same interpreter, environment, project and bugsmith code: all in the socket's name
  (`address`), so a change to any of them finds no preloader and starts another.
- The same third-party code: the preloader answers a request only while every file it imported
  is as it was (size and time); one that changed ends it.
- Nothing of the project: modules under the project or its copy are never preloaded, nor
  pytest plugins (pytest rewrites their asserts as it imports them: imported earlier, they
  would warn, `-W error` would fail) nor a module whose import warned.
- Fresh random state: the child reseeds `random` and numpy's global generator, as a new
  interpreter seeds them.

Used only where the tests are trusted (`bugsmith run`, not a sandboxed grading run), and only
when the run asks for it (`RunOptions.preload`). Both sides import this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import socket
import struct
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bugsmith.harness.protocol import encode
from bugsmith.harness.zygote import CannotHatch, ForkedProcess, Hatched

IDLE_SECONDS = 900.0  # a preloader with no request for this long ends
# How long a run waits for a preloader's answer: one started by the last run may still be
# importing, and it is then nearer to ready than a zygote started now would be.
ANSWER_SECONDS = 30.0
# Shell bookkeeping that differs between two invocations of the same command; no import reads it.
VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
STARTING_SECONDS = 10.0  # the started interpreter forks the preloader and exits: seconds at most
PLACEHOLDER = "0" * 32  # the preloader's own run mark: no run's (uuid4 hex) starts with it


@dataclass(frozen=True, slots=True, kw_only=True)
class Spawn:
    """Fork a zygote marked `mark` (harness.leftovers), with `env` as its whole environment; its
    socket to the pool and its log come with the request as descriptors, in that order."""

    mark: str
    env: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"mark": self.mark, "env": self.env}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Spawn:
        return cls(mark=data["mark"], env=dict(data["env"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class Start:
    """What a new preloader is told on its standard input: where to listen, what to import."""

    address: str
    root: str  # the folder the tests run in (the project, or its copy)
    origin: str  # the user's project when `root` is a copy of it
    modules: tuple[str, ...]  # in the order the last zygote imported them
    idle: float = IDLE_SECONDS

    def to_dict(self) -> dict[str, Any]:
        return {"address": self.address, "root": self.root, "origin": self.origin,
                "modules": list(self.modules), "idle": self.idle}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Start:
        return cls(address=data["address"], root=data["root"], origin=data["origin"],
                   modules=tuple(data["modules"]), idle=float(data["idle"]))


def address(root: str, origin: str, env: Mapping[str, str]) -> str:
    """The abstract socket name of the preloader for this interpreter, environment, project and
    bugsmith code: any change gives another name (the old preloader idles out)."""
    kept = {name: value for name, value in env.items()
            if name not in VOLATILE and not name.startswith("BUGSMITH_PROCESS_MARK")}
    digest = hashlib.sha256(json.dumps(
        [sys.executable, sys.version, root, origin, sorted(kept.items()), _own_code()],
    ).encode()).hexdigest()
    return f"\0bugsmith-preload-{os.getuid()}-{digest[:32]}"


def _own_code() -> list[tuple[str, int, int]]:
    """bugsmith's harness as it is on disk: a preloader imported it once, and an upgrade or an
    edit must not meet the old code."""
    here = Path(__file__).resolve().parent
    found = []
    for path in sorted(here.rglob("*.py")):
        try:
            info = path.stat()
        except OSError:
            continue
        found.append((str(path), info.st_mtime_ns, info.st_size))
    return found


def peer_uid(connection: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[1]


class Asked:
    """A zygote asked of a preloader: its answer is read when the zygote is needed (a preloader
    the last run left may still be importing, while this run goes on with its own work)."""

    def __init__(self, control: socket.socket, ours: socket.socket) -> None:
        self._control = control
        self._ours: socket.socket | None = ours

    def zygote(self, wait: float = ANSWER_SECONDS) -> tuple[ForkedProcess, socket.socket] | None:
        """The forked zygote and the pool's end of its socket; None if the preloader could
        not fork one (the pool starts an interpreter then)."""
        ours, self._ours = self._ours, None
        if ours is None:
            return None
        try:
            answer, pidfds = _answer(self._control, wait)
            if answer.error is not None or len(pidfds) != 1:
                for fd in pidfds:
                    os.close(fd)
                raise CannotHatch(answer.error or "no pidfd came with the answer")
            process = ForkedProcess(pidfds[0])
        except (OSError, ValueError, CannotHatch):
            ours.close()
            return None
        finally:
            self._control.close()
        return process, ours

    def cancel(self) -> None:
        """Not needed after all: a zygote forked meanwhile finds its socket closed and ends."""
        if self._ours is not None:
            self._ours.close()
            self._ours = None
        try:
            self._control.shutdown(socket.SHUT_RDWR)  # wakes a thread waiting for the answer
        except OSError:
            pass
        self._control.close()


def ask_for_zygote(name: str, spawn: Spawn, log_path: Path) -> Asked | None:
    """Ask the preloader listening at `name` for a zygote; None if there is no such preloader."""
    try:
        control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    ours, theirs = socket.socketpair()
    try:
        control.connect(name)
        if peer_uid(control) != os.getuid():  # somebody else's process took the name
            raise CannotHatch("the preloader's socket belongs to another user")
        log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            socket.send_fds(control, [encode(spawn)], [theirs.fileno(), log])
        finally:
            os.close(log)
    except (OSError, CannotHatch):
        ours.close()
        control.close()
        return None
    finally:
        theirs.close()
    return Asked(control, ours)


def alive(name: str) -> bool:
    """Whether a preloader of ours listens at `name`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(name)
            return peer_uid(probe) == os.getuid()
    except OSError:
        return False


def _answer(control: socket.socket, wait: float) -> tuple[Hatched, list[int]]:
    buffer, fds = b"", []
    while not buffer.endswith(b"\n"):
        if not select.select([control], [], [], wait)[0]:
            raise CannotHatch(f"the preloader did not answer within {wait:.0f} s")
        data, received, _, _ = socket.recv_fds(control, 1 << 16, 1)
        fds.extend(received)
        if not data:
            for fd in fds:
                os.close(fd)
            raise CannotHatch("the preloader is gone")
        buffer += data
    return Hatched.from_dict(json.loads(buffer)), fds


def start_preloader(start: Start, argv: tuple[str, ...], env: Mapping[str, str], cwd: str, log_path: Path) -> bool:
    """Start a preloader (`argv`: `python -P -m bugsmith.harness.child.preloader`, with the
    environment a zygote gets); returns once it is on its own, before it imports anything.
    Whether it started."""
    try:
        with open(log_path, "ab") as log:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
                                       cwd=cwd, env=dict(env), start_new_session=True)
        process.communicate(json.dumps(start.to_dict()).encode(), timeout=STARTING_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return False
    except OSError:
        return False
    return process.returncode == 0
