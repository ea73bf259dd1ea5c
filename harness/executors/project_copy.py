"""The private copy of a project that mutants run in, and snapshots that tell a tree's changes.

A mutant is the project's code made wrong: `if workdir is not None` flipped can make a cleanup
delete files of the working folder. So no test of a mutant runs in the user's tree: the
executors run in a copy under `.bugsmith/tree/` (harness.executors.in_copy), kept in step with the
project by `sync`, which copies only the files whose size or modification time differ (the
copy keeps the originals' times) and removes what the project no longer has, or what a test
left behind. A copy, not hard links or reflinks' shared pages: a test that rewrites a file in
place would write through a hard link into the user's file.

The copy sits inside the project so that pytest's upward search for its configuration
(`pytest.ini`, `pyproject.toml`, a parent's `tox.ini`) finds what it finds from the project
itself, and test ids, rootdir and conftests stay the same. What is left out: version control,
bugsmith's own folder, virtual environments, caches. Files over LARGE_FILE bytes (data sets)
are symbolic links to the originals instead of copies: a test that writes to one would reach
the user's file, which the run's check of the tree after the run then reports.

A snapshot is a tree's names, sizes and modification times: cheap enough to take before and
after every run, and it sees a deleted, created or rewritten file. It leaves out what is neither
a file, a folder nor a link (a named pipe, a socket, a device): those are not copied, and a
test that needs one fails in the baseline.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup

SKIPPED = frozenset({
    ".git", ".hg", ".svn", ".bugsmith", "__pycache__", ".tox", ".nox", ".venv",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".benchmarks", "node_modules",
})
LARGE_FILE = 64 * 2**20  # bytes: larger files are linked, not copied
COPY_DIR = Path(".bugsmith") / "tree"
# Where each job's private view mounts its own scratch space (harness.child.private_view): one
# empty folder serves every job and every copy, as a mount in a namespace is seen by no other.
SCRATCH_DIR = Path(".bugsmith") / "scratch"

Entry = tuple[str, int, int]  # kind ("f" file, "d" folder, "l" link), size, mtime in ns (0 for folders)
Snapshot = dict[str, Entry]  # path relative to the tree's root, with "/" -> its entry


def _skipped(entry: os.DirEntry[str]) -> bool:
    return entry.name in SKIPPED or os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))


def _walk(root: str, relative: str = "") -> Iterator[tuple[str, Entry]]:
    try:
        entries = list(os.scandir(os.path.join(root, relative) if relative else root))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    for entry in entries:
        name = f"{relative}/{entry.name}" if relative else entry.name
        try:
            if entry.is_symlink():
                yield name, ("l", 0, 0)
            elif entry.is_dir():
                if _skipped(entry):
                    continue
                yield name, ("d", 0, 0)
                yield from _walk(root, name)
            else:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode):  # not a FIFO, socket or device: no copy can hold one
                    yield name, ("f", info.st_size, info.st_mtime_ns)
        except OSError:
            continue  # deleted while we looked


def snapshot(root: Path) -> Snapshot:
    """Every file, folder and link under `root` but the SKIPPED folders and virtual environments."""
    return dict(_walk(str(root)))


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs, one line per path: "deleted x", "created y", "changed z"."""
    lines = [f"deleted {path}" for path in sorted(before.keys() - after.keys())]
    lines += [f"created {path}" for path in sorted(after.keys() - before.keys())]
    lines += [f"changed {path}" for path in sorted(before.keys() & after.keys()) if before[path] != after[path]]
    return lines


def sync(source: Path, copy: Path) -> Snapshot:
    """Make `copy` hold what `source` holds (but its SKIPPED folders); return `source`'s snapshot."""
    wanted = snapshot(source)
    copy.mkdir(parents=True, exist_ok=True)
    present = snapshot(copy)
    for path in sorted(present.keys() - wanted.keys(), reverse=True):  # children before parents
        _remove(copy / path)
    for path, entry in wanted.items():
        _place(source / path, copy / path, entry, present.get(path), str(source))
    return wanted


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _link(source: Path, origin: str) -> str:
    """What the copy's link to `source`'s target says: the same, unless a relative link leads out
    of the project (the copy is deeper, so the same words would lead elsewhere)."""
    link = os.readlink(source)
    if os.path.isabs(link):
        return link
    target = os.path.normpath(os.path.join(source.parent, link))
    return link if _inside(target, origin) else target


def _place(source: Path, target: Path, entry: Entry, present: Entry | None, origin: str) -> None:
    kind, size, _ = entry
    if kind == "d":
        if present is not None and present[0] != "d":
            _remove(target)
        target.mkdir(exist_ok=True)
        return
    if kind == "l" or size > LARGE_FILE:
        link = _link(source, origin) if kind == "l" else str(source)
        if present is not None and present[0] == "l" and os.readlink(target) == link:
            return
        _remove(target)
        target.symlink_to(link)
        return
    if present == entry:
        return
    if present is not None:
        _remove(target)  # a test may have made it read-only, or a folder of it
    shutil.copy2(source, target, follow_symlinks=False)  # with its modification time: see `sync`


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


@dataclass(frozen=True, slots=True, kw_only=True)
class Relocation:
    """Paths of the project (`origin`) and of its copy (`root`), both absolute and resolved."""

    origin: str
    root: str
    scratch: str = ""  # an empty folder for the jobs' private views; "" for none

    def into_copy(self, path: str) -> str:
        if _inside(path, self.origin) and not _inside(path, self.root):  # the copy is in the project
            return self.root + path[len(self.origin):]
        return path

    def home(self, path: str) -> str:
        return self.origin + path[len(self.root):] if _inside(path, self.root) else path

    def setup(self, setup: WorkerSetup) -> WorkerSetup:
        """The setup of workers that run in the copy; `origin` tells them where the project is."""
        return replace(setup, root=self.root, origin=self.origin, scratch=self.scratch,
                       sources=tuple(self.into_copy(path) for path in setup.sources))

    def job(self, job: Job) -> Job:
        return self._job(job, self.into_copy)

    def job_home(self, job: Job) -> Job:
        return self._job(job, self.home)

    @staticmethod
    def _job(job: Job, move: Callable[[str], str]) -> Job:
        extra = tuple(replace(patch, path=move(patch.path)) for patch in job.extra)
        return replace(job, path=move(job.path) if job.path else job.path, extra=extra)

    def verdict_home(self, verdict: Verdict) -> Verdict:
        """The verdict with the copy's paths in its messages named as the project's."""
        if self.root not in repr(verdict):
            return verdict
        results = tuple(replace(result, message=self._text(result.message) or "") for result in verdict.results)
        return replace(verdict, results=results, error=self._text(verdict.error), died=self._text(verdict.died))

    def _text(self, text: str | None) -> str | None:
        return text.replace(self.root, self.origin) if text else text


class ProjectCopy:
    """The copy of one project, in step with it, and locked while an executor uses it.

    A second executor on the same project at once (a triage pool beside a run's, two runs)
    gets a copy of its own, `tree-<pid>`, removed when it closes.
    """

    def __init__(self, origin: Path, folder: Path, lock: IO[bytes], private: bool) -> None:
        self.origin = origin
        self.folder = folder
        scratch = origin / SCRATCH_DIR
        scratch.mkdir(parents=True, exist_ok=True)
        # BUGSMITH_PRIVATE_VIEW=0: the jobs share the copy's files, as they did before private views.
        shared = os.environ.get("BUGSMITH_PRIVATE_VIEW") == "0"
        self.relocation = Relocation(origin=str(origin), root=str(folder), scratch="" if shared else str(scratch))
        self._lock = lock
        self._private = private
        sync(origin, folder)
        self.snapshot = snapshot(folder)  # as synced: what tests then change shows against it

    @classmethod
    def open(cls, origin: Path) -> ProjectCopy:
        origin = origin.resolve()
        shared = origin / COPY_DIR
        shared.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(shared.parent)
        own = shared.with_name(f"tree-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        for folder, private in ((shared, False), (own, True)):
            lock = open(folder.with_name(folder.name + ".lock"), "wb")  # noqa: SIM115 - held until close
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if private else fcntl.LOCK_NB))
            except BlockingIOError:
                lock.close()
                continue
            return cls(origin, folder, lock, private)
        raise AssertionError("unreachable: the private copy's lock is never held by another")

    def __enter__(self) -> ProjectCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._private:
            shutil.rmtree(self.folder, ignore_errors=True)
            Path(self._lock.name).unlink(missing_ok=True)
        self._lock.close()


def _remove_abandoned(folder: Path) -> None:
    """Remove the private copies of processes that ended without removing theirs (killed)."""
    for copy in folder.glob("tree-*-*"):
        pid = copy.name.split("-")[1]
        if copy.is_dir() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(copy, ignore_errors=True)
            copy.with_name(copy.name + ".lock").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
