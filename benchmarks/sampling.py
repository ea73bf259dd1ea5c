"""How well a sample's interval holds the full score (`bugsmith run --sample`, issue 41).

    python benchmarks/sampling.py                                  # the corpus, more-itertools, cachetools
    python benchmarks/sampling.py --target corpus --target isodate --fraction 20 --seeds 50

For each target: one full `bugsmith run` (its verdicts stay in the target's store), then, for
every seed, the sample `bugsmith run --sample F% --sample-seed S` takes (harness.sampling, the
same function) and the interval it reports, computed from the full run's verdicts: does it hold
the full score, and how wide is it. A sample run re-runs nothing the full run decided, so the
verdicts are the ones a sample run gets (a flaky test aside); the first two seeds are also run
through the CLI, and their printed estimates must equal the computed ones.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bugsmith.harness.outcome import RunResult
from bugsmith.harness.sampling import SampleSpec, estimate, stratified_sample
from bugsmith.harness.store import last_run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from targets import BIG_CODEBASES, LIBRARIES, SDIST_CACHE  # noqa: E402  (a benchmark script beside its helpers)

TARGETS = {**LIBRARIES, **BIG_CODEBASES}

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TARGETS = ("corpus", "more-itertools", "cachetools")


def staged(name: str, folder: Path) -> Path:
    """The project folder of `name`: a copy of the corpus, or a library's sdist with its table."""
    if name == "corpus":
        root = folder / "corpus"
        root.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD", "pyproject.toml", "reference"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        return root
    return TARGETS[name].stage(folder / name, SDIST_CACHE)


def bugsmith_run(root: Path, *extra: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--no-preload", "--json", *extra],
                          cwd=root, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"sampling: bugsmith run failed in {root}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def resampled(result: RunResult, percent: float, seeds: int) -> list[dict]:
    """The estimate of each seed's sample, from the full run's verdicts."""
    by_id = {o.mutant_id: o for o in result.outcomes}
    mutants = [m for m in result.mutants if m.id in by_id]
    size = SampleSpec(percent=percent).size(len(mutants))
    found = []
    for seed in range(seeds):
        sample = stratified_sample(mutants, size, seed)
        found.append(estimate([by_id[m.id] for m in sample], population=len(mutants), seed=seed).to_dict())
    return found


def measure(name: str, folder: Path, percent: float, seeds: int) -> dict:
    root = staged(name, folder)
    full = bugsmith_run(root)
    result = last_run(root)
    truth = result.score
    estimates = resampled(result, percent, seeds)
    covered = sum(e["low"] <= truth <= e["high"] for e in estimates)
    cli_agrees = all(
        bugsmith_run(root, "--sample", f"{percent:g}%", "--sample-seed", str(seed))["sample"] == estimates[seed]
        for seed in range(min(2, seeds)))
    halves = [(e["high"] - e["low"]) / 2 for e in estimates]
    return {"target": name, "mutants": full["mutants"], "score": round(truth, 2), "seeds": seeds,
            "covered": covered, "median_half_width": round(statistics.median(halves), 2),
            "max_half_width": round(max(halves), 2), "cli_agrees": cli_agrees,
            "sample_size": estimates[0]["sampled"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", dest="targets",
                        choices=("corpus", *sorted(TARGETS)), help="corpus or a library of benchmarks/targets.py")
    parser.add_argument("--fraction", type=float, default=10.0, help="the sample, in percent of the mutants")
    parser.add_argument("--seeds", type=int, default=30)
    args = parser.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; a {args.fraction:g}% sample,"
          f" {args.seeds} seeds")
    print(f"{'target':<16} {'mutants':>7} {'sample':>6} {'full score':>10} {'covered':>9} {'half-width':>16}  cli")
    with tempfile.TemporaryDirectory(prefix="bugsmith-sampling-") as folder:
        for name in args.targets or DEFAULT_TARGETS:
            row = measure(name, Path(folder), args.fraction, args.seeds)
            share = row["covered"] / row["seeds"]
            print(f"{row['target']:<16} {row['mutants']:>7} {row['sample_size']:>6} {row['score']:>9.2f}%"
                  f" {row['covered']:>3}/{row['seeds']:<3}{'' if share >= 0.93 else '!'}"
                  f" {row['median_half_width']:>6.2f} (max {row['max_half_width']:.2f})"
                  f"  {'same' if row['cli_agrees'] else 'DIFFERS'}")
            # How large a sample this target needs for +-3 points at its own score.
            p = row["score"] / 100
            needed = math.ceil(p * (1 - p) * (1.96 / 0.03) ** 2) if 0 < p < 1 else 1
            print(f"{'':<16} +-3 points at this score needs about {needed} counted mutants")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
