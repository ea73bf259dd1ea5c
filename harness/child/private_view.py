"""A job's private view of the project, its copy and the temporary folder.

Two jobs that run at once in one copy of the project share its files: a suite whose fixture
deletes and re-creates a folder around every test (python-box's `test/tmp`) then deletes the
files of the test running beside it, and a file one mutant's test leaves behind is still there
for the next mutant. So each job runs in a mount namespace of its own, where an overlay lies
over the project (its copy is inside it) and over the temporary folder: the job reads the files
as they were when the run synced them and writes into a scratch tmpfs that nobody else sees and
that goes with the namespace when the job's last process ends. The paths do not change, so whatever the suite
computed from `__file__` or the working directory before the fork still points at the job's
own files.

A process that is not root enters a user namespace first, with its own user and group ids
mapped to themselves, so that the tests see the same ids. Where the platform refuses (no user
namespaces, no overlayfs, a path overlayfs cannot name), `enter` says why and the job runs in
the shared view, as it did before.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, replace
from typing import Any

from bugsmith.harness.shared.protocol import Verdict, WorkerSetup
from bugsmith.harness.shared.tool_state import STATE_DIR

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000
# Characters overlayfs' mount options cannot carry in a path without escapes of their own.
_UNSAFE = frozenset(",:\\\n=")


@dataclass(frozen=True, slots=True)
class View:
    """The overlays a job runs under: each folder it covers, the upper layer that holds the job's
    writes, and a descriptor of the folder as it was (the lower layer, seen past the overlay)."""

    layers: tuple[tuple[str, str, int], ...]  # (folder as the job sees it, upper layer, lower's fd)

    def written(self, folder: str, limit: int = 50) -> tuple[str, ...]:
        """What the job created, changed or deleted under `folder`, relative to it (at most `limit`)."""
        return tuple(path for _, path in self.changes(folder, limit))

    def changes(self, folder: str, limit: int = 50) -> list[tuple[str, str]]:
        """(`created`, `changed` or `removed`, path relative to `folder`) of each file the job wrote
        under `folder`, at most `limit`: the files of the upper layer that covers it, told apart
        by the lower."""
        layer = next((layer for layer in self.layers if _within(folder, layer[0])), None)
        if layer is None:
            return []
        top_folder, upper, lower = layer
        inner = os.path.relpath(folder, top_folder)
        start = upper if inner == "." else os.path.join(upper, inner)
        found: list[tuple[str, str]] = []
        for top, dirs, files in os.walk(start):
            relative = os.path.relpath(top, start)
            for name in sorted(files) + [d for d in sorted(dirs) if _is_whiteout(os.path.join(top, d))]:
                path = name if relative == "." else os.path.join(relative, name)
                if _is_whiteout(os.path.join(top, name)):
                    found.append(("removed", path))
                else:
                    below = path if inner == "." else os.path.join(inner, path)
                    found.append(("changed" if _exists(below, lower) else "created", path))
                if len(found) >= limit:
                    return found
        return found


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def _exists(path: str, folder_fd: int) -> bool:
    try:
        os.stat(path, dir_fd=folder_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _is_whiteout(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == 0


@functools.cache
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _call(name: str, *args: Any) -> None:
    libc = _libc()
    if libc is None:
        raise OSError(f"{name}: not on Linux")
    if getattr(libc, name)(*args) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")


def _mount(source: str, target: str, kind: str | None, flags: int, options: str | None) -> None:
    _call("mount", source.encode(), target.encode(), kind.encode() if kind else None, flags,
          options.encode() if options else None)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _own_namespace() -> bool:
    """Enter a new mount namespace; a user namespace first where this process is not root.
    Returns whether overlayfs needs `userxattr` (it keeps its marks in user xattrs there)."""
    if os.geteuid() == 0:
        _call("unshare", CLONE_NEWNS)
        return False
    uid, gid = os.geteuid(), os.getegid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNS)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
    return True


def enter(folders: tuple[str, ...], scratch: str, keep: tuple[str, ...] = ()) -> View | str:
    """Lay a fresh overlay over each of `folders` (absolute, existing) in a mount namespace of
    this process's own, with their writes in a tmpfs mounted on `scratch` (an empty folder);
    the reason, instead, where that cannot be done. The folders of `keep` that exist stay the
    host's, writable through, wherever they lie (the test tools' state the baseline records).
    Call in a single-threaded process (right after a fork) that has not yet opened files under
    `folders` it means to see through the view."""
    if unsafe := [folder for folder in (*folders, scratch) if _UNSAFE & set(folder)]:
        return f"overlayfs cannot name the path {unsafe[0]!r}"
    cwd = os.getcwd()
    # The outermost folders only: one overlay covers what lies inside it, and overlayfs stacks
    # at most two deep (the host's root may be an overlay already).
    ordered = sorted({folder for folder in folders
                      if not any(other != folder and _within(folder, other) for other in folders)})
    try:
        user = _own_namespace()
        _mount("none", "/", None, MS_REC | MS_PRIVATE, None)  # nothing of ours reaches the host's view
        _mount("bugsmith-scratch", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700")
        # Held open: the scratch folder may lie under a folder about to be covered, and the
        # layers' folders are named through this descriptor, which no later mount hides.
        held = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
        kept = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in keep if os.path.isdir(path)}
        lowers = {folder: os.open(folder, os.O_PATH | os.O_DIRECTORY) for folder in ordered}
        layers = []
        for number, folder in enumerate(ordered):
            os.mkdir(f"{number}-upper", dir_fd=held)
            os.mkdir(f"{number}-work", dir_fd=held)
            base = f"/proc/self/fd/{held}/{number}"
            options = f"lowerdir={folder},upperdir={base}-upper,workdir={base}-work" + (",userxattr" if user else "")
            _mount("bugsmith-view", folder, "overlay", 0, options)
            layers.append((folder, f"{base}-upper", lowers[folder]))
        for path, fd in kept.items():
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC, None)
            os.close(fd)
    except OSError as error:
        return f"no private view of the project's files ({error.strerror or error})"
    os.chdir(cwd)  # the working directory was the folder under the overlay: look again through it
    return View(layers=tuple(layers))


def enter_for(setup: WorkerSetup) -> View | str | None:
    """The private view of a job of `setup`'s: over the project, its copy and the temporary
    folder, with the test tools' state kept the host's; None where the setup asks for none."""
    if not setup.scratch:
        return None
    state = os.path.join(setup.project, STATE_DIR)
    os.makedirs(state, exist_ok=True)  # kept only if it exists: the baseline's first chunk may make it
    return enter((setup.project, setup.root, tempfile.gettempdir()), setup.scratch, keep=(state,))


def refused(setup: WorkerSetup) -> str | None:
    """Why a job of `setup`'s could get no private view on this machine, tried in a throwaway
    child (a process cannot leave a user namespace it entered, so a job never enters one that
    then refuses its mounts); None where a view is to be had or none is asked for."""
    if not setup.scratch:
        return None
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the throwaway child
        os.close(reader)
        view = enter_for(setup)
        os.write(writer, view.encode() if isinstance(view, str) else b"")
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as answer:
        reason = answer.read().decode()
    os.waitpid(pid, 0)
    return reason or None


def kept(verdict: Verdict, view: View | str | None, setup: WorkerSetup) -> Verdict:
    """`verdict` with what the job's view kept from the project (its copy is inside it) as
    `created /abs/path`, ...; or, with no view, why it had none."""
    if isinstance(view, str):
        return replace(verdict, shared_view=view)
    if view is None:
        return verdict
    return replace(verdict, wrote=tuple(f"{verb} {os.path.join(setup.project, path)}"
                                        for verb, path in view.changes(setup.project)))
