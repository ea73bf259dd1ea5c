"""`bugsmith watch`: judge the mutants again on every save, from a process that stays warm.

The process keeps what a run starts from (libcst and the mutators imported, the store open to
the last verdicts, a preloader holding the suite's imports for the next zygote), so a save costs
what the edit invalidates: the mutants of the functions it changed and those the tests it
touches may kill. A save is seen by polling the files' sizes and modification times (cheap, and
the same on every filesystem); a burst of writes (an editor's save-then-format) is taken once it
has been still for one poll. Each round tells what changed: mutants that survive now and did not
before, mutants killed again, and the score.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bugsmith.errors import BugsmithError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.outcome import RunResult, Status

UNDETECTED = (Status.SURVIVED, Status.NO_COVERAGE)
Snapshot = dict[str, tuple[int, int]]  # path -> (mtime_ns, size)


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """What one round found against the round before."""

    changed: tuple[str, ...]  # files saved since the last round (relative paths)
    seconds: float
    result: RunResult
    new_survivors: tuple[str, ...]  # mutant ids undetected now, detected (or absent) before
    killed_again: tuple[str, ...]  # mutant ids detected now that were undetected before
    mutants_before: int
    error: str = ""  # the round could not judge (the suite went red, a file does not parse): why

    def summary(self) -> str:
        if self.error:
            return f"{', '.join(self.changed) or 'start'}: {self.error} (watching on)"
        score = self.result.score
        parts = [f"{', '.join(self.changed) or 'start'}: {len(self.result.outcomes)} mutants judged in"
                 f" {self.seconds:.1f} s, score {'n/a' if score is None else f'{score:.1f}%'}"]
        if self.new_survivors:
            parts.append(f"{len(self.new_survivors)} new survivor(s): {', '.join(self.new_survivors[:10])}")
        if self.killed_again:
            parts.append(f"{len(self.killed_again)} killed again: {', '.join(self.killed_again[:10])}")
        if len(self.result.outcomes) != self.mutants_before and self.mutants_before:
            parts.append(f"{len(self.result.outcomes) - self.mutants_before:+d} mutants")
        return "; ".join(parts)


def snapshot(root: Path, folders: Sequence[str]) -> Snapshot:
    """The Python files under `folders` (relative to `root`), by size and modification time."""
    found: Snapshot = {}
    for folder in folders:
        base = root / folder
        paths = [base] if base.is_file() else base.rglob("*.py") if base.is_dir() else []
        for path in paths:
            if "/.bugsmith/" in path.as_posix() or "__pycache__" in path.parts:
                continue
            try:
                info = path.stat()
            except OSError:
                continue
            found[path.relative_to(root).as_posix()] = (info.st_mtime_ns, info.st_size)
    return found


def changed_files(before: Snapshot, after: Snapshot) -> tuple[str, ...]:
    return tuple(sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path)))


def compare(before: RunResult | None, after: RunResult) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The mutants undetected now that were not (new survivors), and the reverse (killed again)."""
    was = {o.mutant_id: o.status for o in before.outcomes} if before else {}
    now = {o.mutant_id: o.status for o in after.outcomes}
    new = tuple(sorted(m for m, s in now.items() if s in UNDETECTED and was.get(m, Status.KILLED) not in UNDETECTED))
    detected = (Status.KILLED, Status.TIMEOUT)
    again = tuple(sorted(m for m, s in now.items() if s in detected and was.get(m) in UNDETECTED))
    return (new, again) if before else ((), ())


def rounds(options: RunOptions, run: Callable[[RunOptions], RunResult], *, poll: float = 0.2,
           clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
           files: Callable[[], Snapshot] | None = None) -> Iterator[Change]:
    """A round at the start, then one after each save, for as long as the caller iterates."""
    look = files or (lambda: snapshot(options.root, (*options.paths, *options.tests)))
    seen, previous = look(), None
    changed: tuple[str, ...] = ()
    while True:
        started = clock()
        try:
            result = run(options)
        except BugsmithError as error:  # a save that breaks the suite is an ordinary moment of editing
            if previous is None:
                raise  # nothing judged yet: as `bugsmith run` would, stop
            yield Change(changed=changed, seconds=clock() - started, result=previous, new_survivors=(),
                         killed_again=(), mutants_before=len(previous.outcomes), error=str(error))
        else:
            new, again = compare(previous, result)
            yield Change(changed=changed, seconds=clock() - started, result=result, new_survivors=new,
                         killed_again=again, mutants_before=len(previous.outcomes) if previous else 0)
            previous = result
        changed, seen = _next_save(seen, look, poll, sleep)


def _next_save(seen: Snapshot, look: Callable[[], Snapshot], poll: float,
               sleep: Callable[[float], None]) -> tuple[tuple[str, ...], Snapshot]:
    """Wait until the files differ from `seen` and then stay still for one poll."""
    candidate = None
    while True:
        sleep(poll)
        now = look()
        if now == seen:
            candidate = None
        elif now == candidate:
            return changed_files(seen, now), now
        else:
            candidate = now
