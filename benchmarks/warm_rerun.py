"""Warm re-runs of `bugsmith run`: cold, again with no edit, after a local renamed in one
function, after a semantic one-line edit there; the last must give a cold run's verdicts.

    python benchmarks/warm_rerun.py                    # a copy of the reference corpus
    python benchmarks/warm_rerun.py --project P --file F --function NAME --rename OLD NEW \
        --edit OLD NEW

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


def timed(label: str, project: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `bugsmith run` in `project`, printed with the load."""
    before = _children_cpu()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run"], cwd=project, capture_output=True,
                          text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):  # 1: survivors
        raise SystemExit(f"{label}: bugsmith run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    load, cpu = os.getloadavg()[0], _children_cpu() - before
    print(f"{label}: {wall:.1f} s wall, {cpu:.1f} CPU-s (load {load:.1f})", flush=True)
    return wall, cpu


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
