"""Run a command where it can harm nothing: bubblewrap, a read-only view, no network, limits.

Untrusted code (a candidate's submission to grade, a candidate's tests to score) runs under
bubblewrap (`bwrap`) in namespaces of its own: it sees the system's programs and libraries,
this interpreter and its site-packages (with bugsmith's own package folders, or at least its
reference problems, covered by empty ones, so that the reference solutions and held-back
tests cannot be read), and the folders its `Sandbox` record names, all
read-only; a private /tmp; no network; its own process tree, which dies with it (a
process it leaves behind cannot outlive the sandbox). Limits on memory, processes, CPU
time and file size come from `prlimit`; the caller's clock is the real time limit.

As root, the sandbox drops to the `nobody` user (through `setpriv`), because the kernel
never enforces a process limit on root; as any other user, bubblewrap maps that user into
a user namespace and the process limit counts from what the user already runs.

`command()` builds the command line for any program: the grader's pytest runs and the
mutation workers of `bugsmith score` (`RunOptions.sandbox`) are wrapped the same way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from bugsmith.errors import BugsmithError

INSTALL_HINT = "install it with `apt-get install bubblewrap` (the package is `bubblewrap` on most systems)"
NOBODY = 65534  # the uid and gid a sandbox started by root runs as
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # merged-/usr symlinks, or folders
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
                 "/etc/alternatives")


class SandboxUnavailable(BugsmithError):
    """bubblewrap (or the util-linux tools next to it) is missing, so untrusted code cannot run safely."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Mount:
    """A host path the sandbox sees at `target`, read-only unless `writable`."""

    source: Path
    target: str
    writable: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    memory_mb: int = 4096  # address space of each process (numpy, pandas and sklearn need ~0.5 GB)
    processes: int = 64  # tasks (threads count) beyond what the sandbox's user already runs
    cpu_seconds: int = 3600  # CPU time of each process: a backstop behind the caller's clock
    file_mb: int = 256  # the largest file a process may write
    tmp_mb: int = 512  # the size of the sandbox's private /tmp


@dataclass(frozen=True, slots=True, kw_only=True)
class Sandbox:
    """What a sandboxed command may see and use.

    `mounts` come on top of the system folders and this interpreter (`python_mounts()`);
    `hidden` paths inside any of them are covered: a folder by an empty one, a file by
    /dev/null (which cannot be opened there);
    `env` is the whole environment. `isolated=False` is `--no-sandbox`: the command runs as
    it is, with the limits and the environment only, and sees the mounts' sources directly.
    """

    mounts: tuple[Mount, ...]
    workdir: str
    env: Mapping[str, str] = field(default_factory=dict)
    hidden: tuple[Path, ...] = ()
    limits: Limits = Limits()
    network: bool = False
    isolated: bool = True

    def inside(self, source: Path) -> str:
        """Where the sandboxed command sees `source` (one of the mounts' sources)."""
        for mount in self.mounts:
            if mount.source == source:
                return mount.target if self.isolated else str(source)
        raise ValueError(f"{source} is not mounted in this sandbox")


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """What to hand to `subprocess.Popen`: the command line, its environment and folder."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str


def require_bwrap() -> str:
    """The path of `bwrap`, or SandboxUnavailable with a one-line message that says how to install it."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(f"untrusted code (a submission to grade, a candidate's tests to score) runs in a"
                                 f" bubblewrap sandbox, and `bwrap` is not installed: {INSTALL_HINT}")
    for tool in ("prlimit", "setpriv"):
        if shutil.which(tool) is None:
            raise SandboxUnavailable(f"the sandbox needs `{tool}` from util-linux (`apt-get install util-linux`)")
    return found


def command(sandbox: Sandbox, argv: Sequence[str]) -> Launch:
    """The command line that runs `argv` in `sandbox` (under bubblewrap unless it is not isolated)."""
    limits = _limit_args(sandbox.limits)
    if not sandbox.isolated:
        return Launch(argv=(*limits, *argv), env=dict(sandbox.env), cwd=sandbox.workdir)
    args = [require_bwrap(), "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
            "--unshare-uts", "--unshare-cgroup-try"]
    if not sandbox.network:
        args.append("--unshare-net")
    as_root = os.geteuid() == 0
    # Root keeps no user namespace: the command drops to `nobody` through setpriv instead,
    # the only way the kernel enforces the process limit on it.
    args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if as_root else ["--unshare-user"]
    # The scratch folders first: bubblewrap mounts in order, so an interpreter or a work folder
    # that lives under /tmp (a venv made there) is bound over the empty /tmp, not hidden by it.
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm"]
    args += [*(["--size", str(sandbox.limits.tmp_mb * 2**20)] if _supports("--size") else []),
             "--perms", "1777", "--tmpfs", "/tmp"]
    args += _mount_args(sandbox)
    args += ["--clearenv"]
    for name, value in sorted(sandbox.env.items()):
        args += ["--setenv", name, value]
    args += ["--chdir", sandbox.workdir]
    if as_root:
        args += [_tool("setpriv"), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs", "--"]
    # bubblewrap itself needs only PATH; the command gets `sandbox.env` and nothing else.
    return Launch(argv=(*limits, *args, *argv), env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, cwd="/")


def python_mounts() -> tuple[Mount, ...]:
    """This interpreter and its site-packages, read-only at their own paths (never the cwd or a checkout)."""
    import site

    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  str(Path(sys.executable).resolve().parent.parent), *site.getsitepackages()]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        candidates.append(site.getusersitepackages())
    folders: list[Path] = []
    for candidate in sorted({Path(c).resolve() for c in candidates if c and os.path.isdir(c)},
                            key=lambda p: len(p.parts)):
        if not any(candidate.is_relative_to(f) for f in folders):
            folders.append(candidate)
    # The unresolved prefix too (a venv whose path goes through a link): python finds pyvenv.cfg there.
    links = [Path(p) for p in (sys.prefix, str(Path(sys.executable).parent.parent)) if Path(p).resolve() != Path(p)]
    return tuple(Mount(source=f, target=str(f)) for f in (*folders, *links))


def bugsmith_folders() -> tuple[Path, ...]:
    """bugsmith's own package folders (its reference solutions among them), to hide from a sandbox."""
    import bugsmith
    import bugsmith.harness
    import bugsmith.mutators
    import bugsmith.reference

    folders = sorted({Path(p).resolve() for module in (bugsmith, bugsmith.harness, bugsmith.mutators,
                                                       bugsmith.reference) for p in module.__path__},
                     key=lambda p: len(p.parts))
    # Installed, they nest (site-packages/bugsmith/reference): covering the outer one is enough.
    return tuple(f for i, f in enumerate(folders) if not any(f.is_relative_to(g) for g in folders[:i]))


def bugsmith_code() -> tuple[Mount, ...]:
    """bugsmith's own code without its reference problems, read-only at its own paths: what a
    sandboxed bugsmith helper (a `bugsmith score` worker) imports itself from.

    Installed, that code is in site-packages (`python_mounts()`) and nothing is added; from a
    checkout (an editable install), only its package folders are mounted, never the checkout.
    """
    import bugsmith
    import bugsmith.harness
    import bugsmith.mutators

    inside = python_mounts()
    folders = sorted({Path(p).resolve() for module in (bugsmith, bugsmith.harness, bugsmith.mutators)
                      for p in module.__path__})
    return tuple(Mount(source=f, target=str(f)) for f in folders
                 if not any(f.is_relative_to(m.source) for m in inside))


def reference_folders() -> tuple[Path, ...]:
    """The folders of bugsmith's reference problems (solutions and held-back tests), to hide."""
    import bugsmith.reference

    return tuple(sorted({Path(p).resolve() for p in bugsmith.reference.__path__}))


def _mount_args(sandbox: Sandbox) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for path in _SYSTEM_LINKS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in _SYSTEM_FILES:
        args += ["--ro-bind-try", path, path]
    made = {"/", "/usr", *_SYSTEM_LINKS, "/etc"}
    # A system interpreter lives under /usr, which is there already.
    mounts = sorted((*(m for m in python_mounts() if not m.source.is_relative_to("/usr")), *sandbox.mounts),
                    key=lambda m: len(Path(m.target).parts))
    bound: list[str] = ["/usr"]
    for mount in mounts:
        target = Path(mount.target)
        # bubblewrap makes missing parent folders private (0700); `nobody` must be able to pass them.
        for parent in reversed(target.parents):
            if str(parent) not in made and not any(parent.is_relative_to(b) for b in bound):
                args += ["--perms", "0755", "--dir", str(parent)]
                made.add(str(parent))
        args += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
        bound.append(mount.target)
        made.add(mount.target)
    for hidden in sandbox.hidden:
        for mount in (Mount(source=Path("/usr"), target="/usr"), *mounts):
            source = mount.source.resolve()
            if hidden.is_relative_to(source):
                inside = Path(mount.target) / hidden.relative_to(source)
                args += ["--tmpfs", str(inside)] if hidden.is_dir() else ["--ro-bind", "/dev/null", str(inside)]
    return args


def _limit_args(limits: Limits) -> list[str]:
    tasks = tasks_of(NOBODY if os.geteuid() == 0 else os.getuid())
    return [_tool("prlimit"), f"--as={limits.memory_mb * 2**20}", f"--nproc={tasks + limits.processes}",
            f"--cpu={limits.cpu_seconds}", f"--fsize={limits.file_mb * 2**20}", "--"]


def tasks_of(uid: int) -> int:
    """How many tasks (threads count) `uid` runs now: the process limit counts them all."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:  # the process ended meanwhile
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1").strip() or 1)
    return total


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SandboxUnavailable(f"the sandbox needs `{name}` from util-linux (`apt-get install util-linux`)")
    return found


@cache
def _supports(option: str) -> bool:
    """Whether this bubblewrap knows `option` (`--size` came with 0.7)."""
    done = subprocess.run([require_bwrap(), "--help"], capture_output=True, text=True, check=False, timeout=30)
    return option in done.stdout + done.stderr
