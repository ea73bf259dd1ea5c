"""Warm re-runs of `bugsmith run`: cold, again with no edit, after a local renamed in one
function, after a semantic one-line edit there; the last must give a cold run's verdicts.

    python benchmarks/warm_rerun.py                    # a copy of the reference corpus
    python benchmarks/warm_rerun.py --project P --file F --function NAME --rename OLD NEW \
        --edit OLD NEW
    python benchmarks/warm_rerun.py --sweep            # an edit in every function, one at a time
    python benchmarks/warm_rerun.py --sweep --watch    # the same edits, saved under one `bugsmith watch`

One function says little: what a warm run re-tests is what the edit invalidates (the tests
that ran the function, the mutants those tests killed or hung), and that differs from one
function to the next. `--sweep` edits, one after the other, every function of every mutated
file that holds a comparison it can turn around (`a < b` becomes `b > a`: the same meaning,
other code), re-runs after each edit, and prints the spread.

Each run is the CLI in its own process (`python -m bugsmith run`), timed by wall clock and by
the CPU seconds of it and everything it started (what a loaded machine stretches least).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bugsmith.harness.store import Store

REPO = Path(__file__).resolve().parent.parent
DEFAULT = ("reference/auc/auc.py", "roc_auc_score", ("fpr", "false_positive_rate"), ("/ 2)", "* 0.5)"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, help="a project with [tool.bugsmith] (default: the corpus)")
    parser.add_argument("--file", default=DEFAULT[0])
    parser.add_argument("--function", default=DEFAULT[1])
    parser.add_argument("--rename", nargs=2, default=DEFAULT[2], metavar=("OLD", "NEW"))
    parser.add_argument("--edit", nargs=2, default=DEFAULT[3], metavar=("OLD", "NEW"),
                        help="a text in the function to replace: an edit its tests still pass")
    parser.add_argument("--no-check", action="store_true", help="skip the cold run on the edited copy")
    parser.add_argument("--sweep", action="store_true",
                        help="after the cold run, a one-line edit in each function in turn, one warm run each")
    parser.add_argument("--watch", action="store_true",
                        help="with --sweep: one `bugsmith watch` takes every edit, timed from the save to its line")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bugsmith-warm-"))
    try:
        project = work / "project"
        if args.project:
            shutil.copytree(args.project, project, ignore=shutil.ignore_patterns(".bugsmith", ".git"))
        else:
            project.mkdir()
            shutil.copytree(REPO / "reference", project / "reference")
            shutil.copy(REPO / "pyproject.toml", project)
        target = project / args.file
        timed("cold", project)
        timed("warm re-run, no edit", project)
        if args.sweep and args.watch:
            watched_sweep(project)
        elif args.sweep:
            sweep(project)
        else:
            edit_function(target, args.function, *args.rename, every=True)
            timed("warm re-run after a one-line edit (a local renamed)", project)
            edit_function(target, args.function, *args.edit, every=False)
            timed("warm re-run after a one-line edit (semantic)", project)
        if not args.no_check:
            cold = work / "cold"
            shutil.copytree(project, cold, ignore=shutil.ignore_patterns(".bugsmith"))
            timed("cold, on the edited code", cold)
            warm, fresh = verdicts(project), verdicts(cold)
            differ = sorted(k for k in warm.keys() | fresh.keys() if warm.get(k) != fresh.get(k))
            print(f"verdicts: {len(warm)} after the warm runs, {len(fresh)} cold; {len(differ)} differ"
                  + (f": {differ[:5]}" if differ else ""))
            return 1 if differ else 0
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


_PRELOADED: dict[int, float] = {}  # CPU seconds of each preloader seen, as last read


def timed(label: str, project: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `bugsmith run` in `project`, printed with the load. The CPU
    seconds include what the project's preloader (harness.shared.preload) spent since the last run
    ended: its imports, and the zygote it forked with that zygote's workers (not this process's
    children); a preloader that ended meanwhile takes its last seconds with it."""
    before = _children_cpu()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run"], cwd=project, capture_output=True,
                          text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):  # 1: survivors
        raise SystemExit(f"{label}: bugsmith run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    background = _preloader_cpu(project)
    load, cpu = os.getloadavg()[0], _children_cpu() - before + background
    print(f"{label}: {wall:.1f} s wall, {cpu:.1f} CPU-s, {background:.1f} of them in the preloader (load {load:.1f})",
          flush=True)
    return wall, cpu


def _preloader_cpu(project: Path) -> float:
    """CPU seconds the project's preloaders spent since the last call (their own, and their
    reaped children's)."""
    spent = 0.0
    for pid in (int(name) for name in os.listdir("/proc") if name.isdigit()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            folder = os.readlink(f"/proc/{pid}/cwd")
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if b"bugsmith.harness.child.preloader" not in command or not folder.startswith(str(project)):
            continue
        total = sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        spent += total - _PRELOADED.get(pid, 0.0)
        _PRELOADED[pid] = total
    return spent


def sweep(project: Path) -> None:
    """One warm run after each edit `turned_comparisons` finds in the last run's sources, each
    on top of the ones before (as a person edits); the spread of their wall times."""
    store = Store.open_read_only(project / ".bugsmith" / "bugsmith.sqlite")
    try:
        files = sorted(store.last_run().sources)
    finally:
        store.close()
    walls: list[float] = []
    for file in files:
        path = project / file
        for function, line in turned_comparisons(path.read_text()):
            before = path.read_text()
            path.write_text(turn_comparison(before, line))
            try:
                wall, _ = timed(f"warm re-run after an edit in {file}::{function} (line {line})", project)
            except SystemExit as failed:  # the edit broke something after all: say so, undo it
                print(f"  skipped: {failed}", flush=True)
                path.write_text(before)
                continue
            walls.append(wall)
    if walls:
        walls.sort()
        under = sum(wall < 3.0 for wall in walls)
        print(f"{len(walls)} warm re-runs, one per edited function: median {statistics.median(walls):.1f} s,"
              f" 90th percentile {walls[int(0.9 * (len(walls) - 1))]:.1f} s, max {walls[-1]:.1f} s;"
              f" {under} of {len(walls)} under 3 s", flush=True)


def watched_sweep(project: Path) -> None:
    """The sweep's edits saved one after the other under one `bugsmith watch`, each timed from
    the save to the line that reports its round (the wait for a settled save included)."""
    watcher = subprocess.Popen([sys.executable, "-m", "bugsmith", "watch", "--no-report"], cwd=project,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    assert watcher.stdout is not None
    walls: list[float] = []
    try:
        print(f"watch, first round: {watcher.stdout.readline().strip()}", flush=True)
        for file, function, line in sweep_edits(project):
            path = project / file
            before = path.read_text()
            started = time.monotonic()
            path.write_text(turn_comparison(before, line))
            said = watcher.stdout.readline().strip()
            wall = time.monotonic() - started
            if "(watching on)" in said:  # the edit broke something after all: say so, undo it
                print(f"  skipped {file}::{function}: {said}", flush=True)
                path.write_text(before)
                watcher.stdout.readline()
                continue
            walls.append(wall)
            print(f"watch round after an edit in {file}::{function} (line {line}): {wall:.2f} s"
                  f" (load {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        if walls:
            ordered = sorted(walls)
            print(f"{len(ordered)} watch rounds, one per edited function: median {statistics.median(ordered):.2f} s,"
                  f" 90th percentile {ordered[int(0.9 * (len(ordered) - 1))]:.2f} s, max {ordered[-1]:.2f} s",
                  flush=True)
        _stop(watcher)


def _stop(watcher: subprocess.Popen[str]) -> None:
    """Ctrl-C to the watcher's process group, timed; if it has not ended within a minute, say so
    and kill the group (a watcher left behind is a finding, not a reason to lose the figures)."""
    started = time.monotonic()
    os.killpg(watcher.pid, signal.SIGINT)
    try:
        watcher.wait(timeout=60)
    except subprocess.TimeoutExpired:
        print("the watcher did not end within 60 s of Ctrl-C: killed", flush=True)
        os.killpg(watcher.pid, signal.SIGKILL)
        watcher.wait()
    else:
        print(f"the watcher ended {time.monotonic() - started:.1f} s after Ctrl-C", flush=True)


def sweep_edits(project: Path) -> list[tuple[str, str, int]]:
    """(file, function, line) of every edit the sweep makes, from the last run's sources."""
    store = Store.open_read_only(project / ".bugsmith" / "bugsmith.sqlite")
    try:
        files = sorted(store.last_run().sources)
    finally:
        store.close()
    return [(file, function, line) for file in files
            for function, line in turned_comparisons((project / file).read_text())]


_TURNED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_SYMBOL = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">="}


def turned_comparisons(source: str) -> list[tuple[str, int]]:
    """(function, line) of the first comparison in each function (methods too) that
    `turn_comparison` can turn around; nested functions count for themselves only."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            own = [n for statement in node.body for n in _own_nodes(statement)]
            for candidate in own:
                if isinstance(candidate, ast.Compare) and _turned(source, candidate) is not None:
                    found.append((node.name, candidate.lineno))
                    break
    return sorted(found, key=lambda entry: entry[1])


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """`node` and what it holds, not descending into nested functions, classes or lambdas."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
        return []
    return [node] + [n for child in ast.iter_child_nodes(node) for n in _own_nodes(child)]


def turn_comparison(source: str, line: int) -> str:
    """`source` with the first comparison that can be turned around on `line` turned around."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and node.lineno == line and (text := _turned(source, node)) is not None:
            lines = source.splitlines(keepends=True)
            encoded = lines[line - 1].encode()
            start, end = node.col_offset, node.end_col_offset or node.col_offset
            lines[line - 1] = (encoded[:start] + text.encode() + encoded[end:]).decode()
            return "".join(lines)
    raise ValueError(f"no comparison to turn around on line {line}")


def _turned(source: str, node: ast.Compare) -> str | None:
    """`b > a` for `a < b` (one line, one operator), if it parses back to that very swap."""
    if len(node.ops) != 1 or type(node.ops[0]) not in _TURNED or node.lineno != node.end_lineno:
        return None
    left, right = ast.get_source_segment(source, node.left), ast.get_source_segment(source, node.comparators[0])
    if left is None or right is None:
        return None
    turned = _TURNED[type(node.ops[0])]
    text = f"{right} {_SYMBOL[turned]} {left}"
    try:
        parsed = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    expected = ast.Compare(left=node.comparators[0], ops=[turned()], comparators=[node.left])
    return text if ast.dump(parsed) == ast.dump(expected) else None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def edit_function(path: Path, function: str, old: str, new: str, *, every: bool) -> None:
    """Replace `old` by `new` inside `function` only (every whole word, or its first text)."""
    source = path.read_text()
    node = next(n for n in ast.walk(ast.parse(source))
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function)
    lines = source.splitlines(keepends=True)
    first, last = node.lineno - 1, node.end_lineno or node.lineno
    body = "".join(lines[first:last])
    changed = re.sub(rf"\b{re.escape(old)}\b", new, body) if every else body.replace(old, new, 1)
    if changed == body:
        raise SystemExit(f"{old!r} is not in {function}")
    path.write_text("".join(lines[:first]) + changed + "".join(lines[last:]))


def verdicts(project: Path) -> dict[str, str]:
    store = Store.open_read_only(project / ".bugsmith" / "bugsmith.sqlite")
    try:
        result = store.last_run()
    finally:
        store.close()
    return {o.mutant_id: o.status.value for o in result.outcomes}


if __name__ == "__main__":
    sys.exit(main())
