"""How long a pack of exercises takes to build, from a cold store and again warm, and where the
time goes (issue 38: a hard pack of one exercise on each of three problems in under 5 minutes
on 2 cores at rest).

    python benchmarks/exercise_build.py --problem scheduler --problem rolling_features --problem target_encoding
    python benchmarks/exercise_build.py --difficulty medium --problem auc --problem kv_cache --seed 3

The corpus (pyproject.toml and reference/) is copied to a temporary folder, so its store starts
empty; the build runs in this process under cProfile, and the stages are read from the profile:
the mutants' first runs against the visible tests, the full validations (alone and in groups),
the findability measures (coverage and the repair search) and the handouts. A second build
with the same options on the same store shows what the cache leaves. `--plain` times both
builds without the profiler, whose overhead on libcst's deep call chains is large: the figure
to hold against issue 38's five minutes.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import tempfile
import time
from pathlib import Path

from bugsmith.harness.exercises import ExerciseOptions, build_exercises

REPO = Path(__file__).resolve().parent.parent
# (what the line says, the function whose cumulative time it is: file suffix, function name)
STAGES = (
    ("first runs against the visible tests", "assemble/selection.py", "_with_symptom"),
    ("full validations (alone and in groups)", "assemble/selection.py", "_validate"),
    ("findability: coverage and the repair search", "measure/levels.py", "_findability"),
    ("handouts (clues dropped, variants)", "measure/levels.py", "handout"),
    ("workers started and stopped", "assemble/selection.py", "_session"),
)


def corpus_copy(into: Path) -> Path:
    """The corpus as the checkout has it, without its store."""
    root = into / "corpus"
    root.mkdir()
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "reference", root / "reference",
                    ignore=shutil.ignore_patterns("__pycache__", ".bugsmith", ".pytest_cache", ".hypothesis"))
    return root


def timed_build(options: ExerciseOptions, root: Path, jobs: int,
                profiled: bool = True) -> tuple[float, pstats.Stats | None, int]:
    profile = cProfile.Profile() if profiled else None
    started = time.perf_counter()
    if profile:
        profile.enable()
    built = build_exercises(options, root=root, jobs=jobs)
    if profile:
        profile.disable()
    return time.perf_counter() - started, pstats.Stats(profile) if profile else None, len(built)


def stage_seconds(stats: pstats.Stats) -> list[tuple[str, float]]:
    """The cumulative seconds of each stage's function (a stage called inside another counts in both)."""
    table = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (cc, nc, tt, ct, callers)}
    found = []
    for label, suffix, name in STAGES:
        seconds = sum(row[3] for (file, _, function), row in table.items()
                      if function == name and file.endswith(suffix))
        found.append((label, seconds))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", action="append", dest="problems", required=True,
                        help="a problem of the corpus (the issue's pack: scheduler, rolling_features, target_encoding)")
    parser.add_argument("--difficulty", default="hard", choices=("easy", "medium", "hard"))
    parser.add_argument("--count", type=int, help="exercises (default: one per problem)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plain", action="store_true",
                        help="time the builds without the profiler (its overhead on libcst's deep calls is large),"
                             " and print no stages")
    args = parser.parse_args(argv)
    problems = tuple(args.problems)
    options = ExerciseOptions(problems=problems, count=args.count or len(problems), seed=args.seed,
                              difficulty=args.difficulty)
    print(f"load before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bugsmith-build-") as folder:
        root = corpus_copy(Path(folder))
        for label in ("cold store", "warm store"):
            seconds, stats, count = timed_build(options, root, args.jobs, profiled=not args.plain)
            print(f"{label}: {count} {args.difficulty} exercises of {', '.join(problems)} (seed {args.seed},"
                  f" {args.jobs} jobs) in {seconds:.0f} s{'' if stats else ', not profiled'}")
            for stage, spent in stage_seconds(stats) if stats else ():
                print(f"  {stage:<46} {spent:7.1f} s")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
