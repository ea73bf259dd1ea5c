"""The preloader: a process that outlives a run, with the suite's third-party imports done, from
which the next run's zygote is forked.

A warm run after a one-line edit re-runs a few tests, but its zygote (harness.shared.zygote)
first pays a fresh interpreter's imports: pytest, numpy, pandas, scikit-learn and whatever else
the suite imports, which for a suite of scientific code is most of such a run. A run that ended
well starts a preloader (`leave`, from what its pools' zygotes reported as they closed:
`depart`), `python -m bugsmith.harness.child.preloader`, which imports the modules the zygote
had imported from outside the project and waits on an abstract Unix socket. The next run's pool
asks it for the zygote as it starts (`ask_for_zygote`) and takes the answer when the zygote is
needed: the preloader forks, and the child goes on as a zygote started as an interpreter would
(harness.child.worker's `main`), its imports of the project and the collection of the tests
still its own. Like Gradle's daemon or Rails' Spring preloader, it ends by itself after
IDLE_SECONDS without a request, or when its project's folder is gone.

What a forked zygote shares with the preloader must be what a fresh one would get:
- The same interpreter, environment, project, bugsmith code, installed packages (the site
  folders' times) and inherited process attributes (ignored signals, limits, umask, CPUs,
  cgroup): all in the socket's name (`address`), so a change to any finds no preloader.
- The same third-party code: the preloader answers only while every file it imported is as it
  was (size and time); one that changed ends it.
- Nothing of the project, no pytest plugin (pytest rewrites a plugin's asserts as it imports it,
  and warns about one imported earlier), even through another module; no import that warns;
  no variable the suite's start-up sets (pytest-env, a conftest) that an import could have read
  before: the preloader ends instead (harness.child.preloading).
- What the imports themselves did stays: the variables they set, the warning filters they
  installed. Fresh random state: `random` and numpy's global generator are reseeded (a
  generator a library makes for itself at import is not: it draws the same in every zygote of
  one preloader, as it does in every worker of one run).
- A start-up time that counts those imports: a fresh interpreter's time limit is derived from it.

A zygote that cannot collect what one started afresh can is replaced by one (the preloader is
ended); one that imported more than its preloader held has that preloader replaced at the end
of the run. Used only where the tests are trusted (`bugsmith run`, never a sandboxed grading
run), and only when the run asks for it (`RunOptions.preload`). Both sides import this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import site
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bugsmith.harness.shared.protocol import encode
from bugsmith.harness.shared.zygote import ForkedProcess, ForkRefused, read_answer

IDLE_SECONDS = 900.0  # a preloader with no request for this long ends
# How long a run waits for a preloader's answer: one started by the last run may still be
# importing, and it is then nearer to ready than a zygote started now would be.
ANSWER_SECONDS = 30.0
# Shell bookkeeping that differs between two invocations of the same command; no import reads it.
VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
RETIRE_SECONDS = 2.0  # how long a run waits for a preloader it ended to close its socket
CONNECT_SECONDS = 2.0  # a preloader accepts at once, even while it imports
STARTING_SECONDS = 10.0  # the started interpreter forks the preloader and exits: seconds at most
PLACEHOLDER = "0" * 32  # the preloader's own run mark: no run's (uuid4 hex) starts with it


@dataclass(frozen=True, slots=True, kw_only=True)
class Spawn:
    """Fork a zygote marked `mark` (harness.shared.leftovers), with `env` as its whole environment; its
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
    plugins: tuple[str, ...] = ()  # top-level names of pytest plugins: never imported here
    environ: dict[str, str | None] = field(default_factory=dict)  # what the zygote's start-up set
    idle: float = IDLE_SECONDS

    def to_dict(self) -> dict[str, Any]:
        return {"address": self.address, "root": self.root, "origin": self.origin,
                "modules": list(self.modules), "plugins": list(self.plugins), "environ": self.environ,
                "idle": self.idle}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Start:
        return cls(address=data["address"], root=data["root"], origin=data["origin"],
                   modules=tuple(data["modules"]), plugins=tuple(data.get("plugins", ())),
                   environ=dict(data.get("environ", {})), idle=float(data["idle"]))


def address(root: str, origin: str, env: Mapping[str, str]) -> str:
    """The abstract socket name of the preloader for this interpreter, environment, project,
    bugsmith code, installed packages and process attributes: what a process started now would
    inherit. Any change gives another name (the old preloader idles out)."""
    kept = {name: value for name, value in env.items()
            if name not in VOLATILE and not name.startswith("BUGSMITH_PROCESS_MARK")}
    digest = hashlib.sha256(json.dumps(
        [sys.executable, sys.version, root, origin, sorted(kept.items()), _own_code(), _installed(),
         _inherited()],
    ).encode()).hexdigest()
    return f"\0bugsmith-preload-{os.getuid()}-{digest[:32]}"


def _installed() -> list[tuple[str, int]]:
    """The site folders' times: an install, an upgrade or a new `.pth` changes them."""
    folders = {*site.getsitepackages(), site.getusersitepackages()}
    found = []
    for folder in sorted(folders):
        try:
            found.append((folder, os.stat(folder).st_mtime_ns))
        except OSError:
            continue
    return found


def _inherited() -> list[Any]:
    """What a process inherits besides its environment: signals ignored (an exec keeps them
    ignored; the two Python ignores itself are reset by subprocess), limits, mask, CPUs, cgroup."""
    ignored = []
    for number in range(1, signal.NSIG):
        try:
            if signal.getsignal(number) is signal.SIG_IGN and number not in (signal.SIGPIPE, signal.SIGXFSZ):
                ignored.append(number)
        except (ValueError, OSError):
            continue
    limits = [resource.getrlimit(getattr(resource, name)) for name in sorted(dir(resource))
              if name.startswith("RLIMIT_")]
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            umask = next((line for line in status if line.startswith("Umask:")), "")
        with open("/proc/self/cgroup", encoding="utf-8") as cgroup:
            group = cgroup.read()
    except OSError:
        umask, group = "", ""
    return [ignored, limits, umask, group, sorted(os.sched_getaffinity(0))]


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


def peer(connection: socket.socket) -> tuple[int, int]:
    """The pid and user id of the process at the other end of a Unix socket."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", credentials)
    return pid, uid


class Asked:
    """A zygote asked of a preloader: its answer is read when the zygote is needed (a preloader
    the last run left may still be importing, while this run goes on with its own work)."""

    def __init__(self, control: socket.socket, ours: socket.socket, preloader: int) -> None:
        self._control = control
        self._ours: socket.socket | None = ours
        self.preloader = preloader  # its pid, to end it if the zygote it forks is no good
        self._lock = threading.Lock()  # the baseline's thread takes the answer, the run may cancel

    def zygote(self, wait: float = ANSWER_SECONDS) -> tuple[ForkedProcess, socket.socket] | None:
        """The forked zygote and the pool's end of its socket; None if the preloader could
        not fork one, or `cancel` came first (the pool starts an interpreter then)."""
        with self._lock:
            ours = self._ours
        if ours is None:
            return None
        try:
            answer, pidfds = read_answer(self._control, wait, "the preloader")
            if answer.error is not None or len(pidfds) != 1:
                for fd in pidfds:
                    os.close(fd)
                raise ForkRefused(answer.error or "no pidfd came with the answer")
            process = ForkedProcess(pidfds[0])
        except (OSError, ValueError, ForkRefused):
            self.cancel()
            return None
        with self._lock:
            if self._ours is None:  # cancelled meanwhile: the zygote finds its socket closed
                process.kill()
                return None
            self._ours = None
        self._control.close()
        return process, ours

    def cancel(self) -> None:
        """Not needed after all: a zygote forked meanwhile finds its socket closed and ends."""
        with self._lock:
            ours, self._ours = self._ours, None
        if ours is not None:
            ours.close()
        try:
            self._control.shutdown(socket.SHUT_RDWR)  # wakes a thread waiting for the answer
        except OSError:
            pass
        self._control.close()

    def retire(self) -> None:
        """End the preloader: the zygote it forked could not do what one started afresh did."""
        _terminated(self.preloader)


def _terminated(pid: int) -> bool:
    """SIGTERM `pid` if it is still a preloader (a pid is reused once its process is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"bugsmith.harness.child.preloader" not in cmdline.read():
                return False
        os.kill(pid, signal.SIGTERM)
    except (OSError, ProcessLookupError):
        return False
    return True


def ask_for_zygote(name: str, spawn: Spawn, log_path: Path) -> Asked | None:
    """Ask the preloader listening at `name` for a zygote; None if there is no such preloader."""
    try:
        control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    ours, theirs = socket.socketpair()
    try:
        control.settimeout(CONNECT_SECONDS)  # a full backlog blocks a connect
        control.connect(name)
        control.settimeout(None)
        pid, uid = peer(control)
        if uid != os.getuid():  # somebody else's process took the name
            raise ForkRefused("the preloader's socket belongs to another user")
        log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            socket.send_fds(control, [encode(spawn)], [theirs.fileno(), log])
        finally:
            os.close(log)
    except (OSError, ForkRefused):
        ours.close()
        control.close()
        return None
    finally:
        theirs.close()
    return Asked(control, ours, pid)


def alive(name: str) -> bool:
    """Whether a preloader of ours listens at `name`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(CONNECT_SECONDS)
            probe.connect(name)
            return peer(probe)[1] == os.getuid()
    except OSError:
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class Departure:
    """A preloader a closed pool would leave: started only once the run has ended well."""

    start: Start
    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str
    log_path: Path
    replaces: int = 0  # the pid of a running preloader that holds fewer modules: ended first


_DEPARTURES: dict[str, Departure] = {}  # by address; a later pool's (a widened one's) replaces
_DEPARTING = threading.Lock()
_LEFT: set[str] = set()  # the addresses of the preloaders this process started


def depart(departure: Departure) -> None:
    """Keep `departure` for `leave` (a pool closes, the run may still fail or go on)."""
    with _DEPARTING:
        _DEPARTURES[departure.start.address] = departure


def leave() -> None:
    """Start the preloaders the run's pools would leave, unless one already listens."""
    with _DEPARTING:
        departures = list(_DEPARTURES.values())
        _DEPARTURES.clear()
    for departure in departures:
        if departure.replaces:
            _retire(departure.replaces, departure.start.address)
        if not alive(departure.start.address) and start_preloader(departure.start, departure.argv, departure.env,
                                                                  departure.cwd, departure.log_path):
            _LEFT.add(departure.start.address)


def end_left() -> int:
    """End the preloaders this process left (`bugsmith watch` on its way out: it asked for them
    while it ran, and leaves nothing behind); how many were still there."""
    ended = 0
    for name in sorted(_LEFT):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(CONNECT_SECONDS)
                probe.connect(name)
                pid, uid = peer(probe)
        except OSError:
            continue
        if uid == os.getuid() and _terminated(pid):
            ended += 1
    _LEFT.clear()
    return ended


def _retire(pid: int, name: str) -> None:
    """End the preloader `pid` listening at `name`, and wait (a little) for its socket to close."""
    if not _terminated(pid):
        return
    deadline = time.monotonic() + RETIRE_SECONDS
    while alive(name) and time.monotonic() < deadline:
        time.sleep(0.01)


def stay() -> None:
    """Leave none: the run failed or was interrupted."""
    with _DEPARTING:
        _DEPARTURES.clear()


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
