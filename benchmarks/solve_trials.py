"""Blind solve trials: summarise them, check issue 38's bars, fit a time limit's minutes on them.

    python benchmarks/solve_trials.py                    # benchmarks/solve-trials/trials.jsonl, the fit's trials
    python benchmarks/solve_trials.py --all              # tables and checks over every trial, earlier builders too
    python benchmarks/solve_trials.py --write-fit        # and write the fit that packs' time limits read
    python benchmarks/solve_trials.py --attempt FOLDER   # test_runs and wall_seconds of a solved candidate folder
    python benchmarks/solve_trials.py --built-from REV   # tables and checks over what builders since REV made

Each line of the data is one trial (trial.schema.json beside it): an exercise as a pack built it
and what a solver who saw only its candidate folder did. The fit is least squares of
`minutes = a + b * score` over the trials marked `in_fit`, where a trial's minutes are the
solver's estimate for a mid-level engineer (the score counts further bugs, their interaction and
masking already, so the fitted line adds nothing per bug: `measure.difficulty.minutes_for`). It is written to
harness/exercises/measure/minutes_fit.json only from 6 trials up and with a positive slope.
Exit status: 0; 1 the fit was refused; 2 the data or a folder cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
from jsonschema.exceptions import best_match

from bugsmith.harness.exercises.measure.difficulty import (
    FIT_FILE,
    LEVEL_NAMES,
    MinutesFit,
    minutes_for,
)

REPO = Path(__file__).resolve().parents[1]
TRIALS = REPO / "benchmarks" / "solve-trials" / "trials.jsonl"
SCHEMA = REPO / "benchmarks" / "solve-trials" / "trial.schema.json"
FIT_PATH = REPO / "harness" / "exercises" / "measure" / FIT_FILE
FEWEST_TO_FIT = 6
FIRST_RIGHT_BAR = 0.5  # "usually not solved at the first hypothesis": a share under a half
HARD_OVER_EASY = 3
PROBLEMS_WANTED = 4
UPPER_DECILE = 1.2816  # the 90th percentile of a standard normal


class TrialDataError(Exception):
    """A line of the data, or a folder's attempt log, that cannot be read; the message is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Trial:
    """One line of trials.jsonl, with the schema's fields."""

    trial: str
    date: str
    bugsmith_commit: str
    problem: str
    level: str
    seed: int
    bugs: int
    score: int
    factors: dict[str, int]
    suggested_minutes: int
    solver: str
    steps: int
    test_runs: int
    hypotheses: int
    first_hypothesis_right: bool
    solved: bool
    wall_seconds: float
    mid_level_minutes: float
    in_fit: bool
    notes: str



@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """The figures of a table row."""

    trials: int
    solved: int
    steps: float
    test_runs: float
    wall_seconds: float
    minutes: float
    first_right: float  # share right at the first hypothesis


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    name: str
    passed: bool
    figures: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Fit:
    """Least squares of minutes on score over the in-fit trials, and how well score ranks the effort."""

    n: int
    a: float
    b: float
    residual_sd: float | None  # sqrt(SSR / (n - 2)); None below 3 trials
    rho_steps: float | None  # Spearman's rho of score and steps; None when either is constant
    rho_minutes: float | None
    data_digest: str
    residuals: tuple[float, ...] = field(repr=False)


def load_trials(path: Path, schema_path: Path = SCHEMA) -> list[Trial]:
    """Every trial of `path`, each line checked against the schema; ids must be unique."""
    validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text(encoding="utf-8")))
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise TrialDataError(f"{path}: cannot be read: {error.strerror or error}") from None
    trials: list[Trial] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise TrialDataError(f"{path}:{number}: not JSON: {error.msg} (column {error.colno})") from None
        problem = best_match(validator.iter_errors(data))
        if problem is not None:
            where = problem.json_path if problem.path else "the record"
            raise TrialDataError(f"{path}:{number}: {where}: {problem.message}")
        if data["trial"] in seen:
            raise TrialDataError(f"{path}:{number}: trial {data['trial']!r} is already line {seen[data['trial']]}")
        seen[data["trial"]] = number
        trials.append(Trial(**data))
    return trials


def group(trials: Sequence[Trial]) -> Group:
    return Group(trials=len(trials), solved=sum(t.solved for t in trials),
                 steps=statistics.median(t.steps for t in trials),
                 test_runs=statistics.median(t.test_runs for t in trials),
                 wall_seconds=statistics.median(t.wall_seconds for t in trials),
                 minutes=statistics.median(t.mid_level_minutes for t in trials),
                 first_right=sum(t.first_hypothesis_right for t in trials) / len(trials))


def by(trials: Sequence[Trial], key: Callable[[Trial], tuple[str, ...]]) -> dict[tuple[str, ...], Group]:
    """The figures of each group of trials, in level order then by name."""
    keys = sorted({key(t) for t in trials}, key=lambda k: (LEVEL_NAMES.index(k[-1]), k))
    return {k: group([t for t in trials if key(t) == k]) for k in keys}


def table(rows: dict[tuple[str, ...], Group], heads: Sequence[str]) -> list[str]:
    """Rows as fixed-width text lines, under a line of heads."""
    cells = [[*heads, "trials", "solved", "med steps", "med runs", "med wall s", "med min", "1st right"]]
    cells += [[*k, str(g.trials), str(g.solved), f"{g.steps:g}", f"{g.test_runs:g}", f"{g.wall_seconds:g}",
               f"{g.minutes:g}", f"{g.first_right:.2f}"] for k, g in rows.items()]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return ["  ".join(c.ljust(w) if i < len(heads) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
            for row in cells]


def checks(trials: Sequence[Trial]) -> list[Check]:
    """Issue 38's bars for the measured effort, each with the figures it was judged on."""
    levels = {k[0]: g for k, g in by(trials, lambda t: (t.level,)).items()}
    missing = [name for name in LEVEL_NAMES if name not in levels]
    found: list[Check] = []
    for what, figure in (("steps", lambda g: g.steps), ("minutes", lambda g: g.minutes)):
        name = f"easy < medium < hard in median {what}"
        if missing:
            found.append(Check(name=name, passed=False, figures=f"no trials at {', '.join(missing)}"))
            continue
        values = [figure(levels[n]) for n in LEVEL_NAMES]
        found.append(Check(name=name, passed=values[0] < values[1] < values[2],
                           figures=", ".join(f"{n} {v:g}" for n, v in zip(LEVEL_NAMES, values))))
    name = f"hard median steps >= {HARD_OVER_EASY} x easy median steps"
    if "easy" in levels and "hard" in levels:
        hard, easy = levels["hard"].steps, levels["easy"].steps
        found.append(Check(name=name, passed=hard >= HARD_OVER_EASY * easy,
                           figures=f"hard {hard:g} against {HARD_OVER_EASY} x {easy:g} = {HARD_OVER_EASY * easy:g}"))
    else:
        found.append(Check(name=name, passed=False, figures="no trials at easy or hard"))
    name = f"hard usually not solved at the first hypothesis (share < {FIRST_RIGHT_BAR:g})"
    if "hard" in levels:
        right = sum(t.first_hypothesis_right for t in trials if t.level == "hard")
        share = levels["hard"].first_right
        found.append(Check(name=name, passed=share < FIRST_RIGHT_BAR,
                           figures=f"{right} of {levels['hard'].trials} right at the first ({share:.2f})"))
    else:
        found.append(Check(name=name, passed=False, figures="no trials at hard"))
    everywhere = sorted(p for p in {t.problem for t in trials}
                        if {t.level for t in trials if t.problem == p} == set(LEVEL_NAMES))
    found.append(Check(name=f"at least {PROBLEMS_WANTED} problems tried at every level",
                       passed=len(everywhere) >= PROBLEMS_WANTED,
                       figures=f"{len(everywhere)}: {', '.join(everywhere) or 'none'}"))
    return found


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties given the mean of the ranks they span."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    _, first, counts = np.unique(array[order], return_index=True, return_counts=True)
    out = np.empty(len(array))
    out[order] = np.repeat(first + (counts + 1) / 2, counts)
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's on the ranks; None when either side is constant."""
    rx, ry = ranks(x), ranks(y)
    if len(rx) < 2 or rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def digest(trials: Sequence[Trial]) -> str:
    """A sha256 of the trials (canonical JSON, in file order): ties a written fit to its data."""
    text = "\n".join(json.dumps(asdict(t), sort_keys=True, separators=(",", ":")) for t in trials)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def fit(trials: Sequence[Trial]) -> Fit | None:
    """The least-squares line of minutes on score over the in-fit trials; None below 2 of them
    or when they all share one score."""
    used = [t for t in trials if t.in_fit]
    scores = np.array([t.score for t in used], dtype=float)
    minutes = np.array([t.mid_level_minutes for t in used], dtype=float)
    if len(used) < 2 or np.ptp(scores) == 0:
        return None
    b, a = np.polyfit(scores, minutes, 1)
    residuals = minutes - (a + b * scores)
    spread = float(np.sqrt((residuals ** 2).sum() / (len(used) - 2))) if len(used) > 2 else None
    return Fit(n=len(used), a=round(float(a), 3), b=round(float(b), 3), residual_sd=spread,
               rho_steps=spearman(scores, [t.steps for t in used]), rho_minutes=spearman(scores, minutes),
               data_digest=digest(used), residuals=tuple(float(r) for r in residuals))


def refusal(found: Fit | None, in_fit: int) -> str | None:
    """Why this fit must not replace the shipped one, or None."""
    if in_fit < FEWEST_TO_FIT:
        return f"not writing the fit: {in_fit} in-fit trials, at least {FEWEST_TO_FIT} needed"
    if found is None:
        return "not writing the fit: every in-fit trial has the same score, so no slope can be fitted"
    if found.b <= 0:
        return f"not writing the fit: its slope is {found.b:g} minutes per point, and a harder exercise must get more"
    return None


def margin(found: Fit) -> float:
    """Minutes a limit adds to the fitted line, so that about 9 in 10 exercises are done within
    it: the 90th percentile of a normal spread of the residuals (0 below 3 trials)."""
    return round(UPPER_DECILE * (found.residual_sd or 0.0), 3)


def fit_record(found: Fit) -> dict[str, Any]:
    """What minutes_fit.json holds: the shape the code reads (a, b, n, source) and the figures behind it."""
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 3)

    return {"a": found.a, "b": found.b, "n": found.n, "per_further_bug": 0.0, "margin": margin(found),
            "source": f"fitted on {found.n} blind solve trials (benchmarks/solve-trials/trials.jsonl, in_fit)",
            "residual_sd": rounded(found.residual_sd), "rho_steps": rounded(found.rho_steps),
            "rho_minutes": rounded(found.rho_minutes), "data_digest": found.data_digest}


def attempt_figures(folder: Path) -> tuple[int, float]:
    """test_runs and wall_seconds of a candidate folder: its .attempt/runs.jsonl lines, first to last."""
    log = folder / ".attempt" / "runs.jsonl"
    try:
        epochs = [float(json.loads(line)["epoch"]) for line in log.read_text(encoding="utf-8").splitlines()
                  if line.strip()]
    except OSError as error:
        raise TrialDataError(f"{log}: cannot be read: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise TrialDataError(f"{log}: not a log of test runs ({error})") from None
    return len(epochs), round(max(epochs) - min(epochs), 1) if epochs else 0.0


def _print_fit(found: Fit | None, in_fit: int) -> None:
    print(f"\nFit of minutes = a + b * score on the in-fit trials ({in_fit}):")
    if found is None:
        print("  none: fewer than 2 in-fit trials, or all of one score")
        return
    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    print(f"  n {found.n}, a {found.a:g}, b {found.b:g} minutes per point; residual sd {shown(found.residual_sd)}"
          f" minutes (largest miss {max(map(abs, found.residuals)):.1f})")
    print(f"  Spearman's rho: score and steps {shown(found.rho_steps)}, score and minutes {shown(found.rho_minutes)}")
    fitted = MinutesFit(a=found.a, b=found.b, n=found.n, source="", margin=margin(found))
    print(f"  a limit adds {fitted.margin:g} minutes to the line (9 in 10 estimates within it)")
    print("  time limits, score 1-10: " + ", ".join(str(minutes_for(fitted, s, 1)) for s in range(1, 11)))


def report(trials: Sequence[Trial], *, every: bool) -> None:
    """The tables and checks, over the in-fit trials or every trial."""
    shown = list(trials) if every else [t for t in trials if t.in_fit]
    print(f"{len(trials)} trials; {sum(t.in_fit for t in trials)} in the fit"
          f" ({'tables over every trial' if every else 'tables over those; --all for every trial'})")
    if not shown:
        print("no trials to tabulate")
    else:
        print("\nBy level:")
        print("\n".join(table(by(shown, lambda t: (t.level,)), ["level"])))
        print("\nBy problem and level:")
        print("\n".join(table(by(shown, lambda t: (t.problem, t.level)), ["problem", "level"])))
    print("\nIssue 38's checks:")
    for check in checks(shown):
        print(f"  {'PASS' if check.passed else 'FAIL'}  {check.name}: {check.figures}")


def built_from(trials: Sequence[Trial], commit: str) -> list[Trial]:
    """The trials whose exercises a builder made that has `commit` in its history: the effect of a
    change is read on those, not pooled with every earlier builder's. A builder git does not know
    (an early trial's "unknown") is not counted."""
    def git(*args: str) -> int:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=False).returncode

    if git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}") != 0:
        raise TrialDataError(f"--built-from {commit}: not a commit of this repository")
    builders = {t.bugsmith_commit: git("merge-base", "--is-ancestor", commit, t.bugsmith_commit) == 0
                for t in trials}
    return [t for t in trials if builders[t.bugsmith_commit]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=TRIALS, help="the trials, one JSON object a line")
    parser.add_argument("--all", action="store_true", help="tables and checks over every trial, not only in_fit")
    parser.add_argument("--write-fit", action="store_true", help=f"write the fit to {FIT_PATH.relative_to(REPO)}")
    parser.add_argument("--fit-file", type=Path, default=FIT_PATH, help="where --write-fit writes")
    parser.add_argument("--attempt", type=Path, metavar="FOLDER",
                        help="print test_runs and wall_seconds of a solved candidate folder, and stop")
    parser.add_argument("--built-from", metavar="COMMIT",
                        help="tables and checks over the trials whose builder has COMMIT in its history")
    args = parser.parse_args(argv)
    try:
        if args.attempt:
            runs, wall = attempt_figures(args.attempt)
            print(json.dumps({"test_runs": runs, "wall_seconds": wall}))
            return 0
        trials = load_trials(args.data)
    except TrialDataError as error:
        print(f"solve_trials: {error}", file=sys.stderr)
        return 2
    if args.built_from:
        try:
            report(built_from(trials, args.built_from), every=args.all)
        except TrialDataError as error:
            print(f"solve_trials: {error}", file=sys.stderr)
            return 2
        return 0
    report(trials, every=args.all)
    in_fit = sum(t.in_fit for t in trials)
    found = fit(trials)
    _print_fit(found, in_fit)
    if not args.write_fit:
        return 0
    why_not = refusal(found, in_fit)
    if why_not or found is None:
        print(f"solve_trials: {why_not}; {args.fit_file} left unchanged", file=sys.stderr)
        return 1
    args.fit_file.write_text(json.dumps(fit_record(found), indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.fit_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
