"""Speed of bugsmith against mutmut 3.8.1 on the same module and the same tests, in one run.

    python benchmarks/compare_mutmut.py                   # every target, 2 jobs
    python benchmarks/compare_mutmut.py --target auc --corpus --json out.json
    python benchmarks/compare_mutmut.py --target packaging --recheck 0 --no-classic
    python benchmarks/compare_mutmut.py --json after.json --against before.json   # verdicts that changed

For each target it stages a fresh copy (a package and its tests, configured for both tools),
runs bugsmith cold on it twice (the `classic` family, which matches mutmut's operators, then
every family), then `mutmut run` from benchmarks/.venv-mutmut, and prints mutants per second
of each tool, their ratio, bugsmith's phases and its per-mutant overhead beyond the floor
(the sum over killed mutants of the cheapest killing test's baseline time), the share of
mutants in code run at import and their median cost. Then it re-checks a sample of each tool's
verdicts with plain pytest (recheck.py) and counts those each tool got wrong, and times a warm
`bugsmith run` after a one-line edit (warm_rerun.py). `--corpus` also times bugsmith alone on
the whole reference corpus. `--against` names the mutants whose verdict differs from an earlier
run's `--json` figures (a speed-up must change none). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from audit import sample
from bugsmith_side import BugsmithResult, import_time_rule, run_bugsmith, stored_run
from mutmut_side import MUTMUT_VERSION, MutmutResult, mutmut_executable, mutmut_samples, run_mutmut
from recheck import Check, Project, Sample, baseline, check
from targets import REPO, TARGETS, Target
from warm_rerun import edit_function, timed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", choices=sorted(TARGETS),
                        help="target to measure (repeatable; default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for both tools")
    parser.add_argument("--corpus", action="store_true",
                        help="also time bugsmith alone on the whole reference corpus")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--keep", action="store_true", help="keep the staged copies and logs")
    parser.add_argument("--recheck", type=int, default=5, metavar="N",
                        help="verdicts of each status and tool re-checked with plain pytest (0: none)")
    parser.add_argument("--seed", type=int, default=14, help="for the re-check's sample")
    parser.add_argument("--no-classic", action="store_true",
                        help="skip bugsmith's classic-only run (every family only)")
    parser.add_argument("--against", type=Path, metavar="JSON",
                        help="a --json file of an earlier run: print which verdicts of each target differ")
    args = parser.parse_args(argv)
    earlier = _earlier(args.against)
    mutmut_executable()  # create the environment before any clock starts
    work = Path(tempfile.mkdtemp(prefix="bugsmith-bench-"))
    figures: dict[str, object] = {"jobs": args.jobs, "mutmut": MUTMUT_VERSION,
                                  "bugsmith_commit": _commit()}
    say(f"bugsmith at commit {figures['bugsmith_commit']} plus the working tree; "
        f"mutmut {MUTMUT_VERSION}; python {sys.version.split()[0]}")
    try:
        for name in args.target or sorted(TARGETS):
            figures[name] = measure(TARGETS[name], work, args)
            if earlier is not None:
                compare_verdicts(earlier, figures, name)
        if args.corpus:
            figures["corpus"] = measure_corpus(work, args.jobs)
    finally:
        if args.keep:
            say(f"\nstaged copies and logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


def measure(target: Target, work: Path, args: argparse.Namespace) -> dict[str, object]:
    folder = target.build(work / target.name)
    jobs = args.jobs
    say(f"\n== {target.name}: {target.description}; {jobs} jobs; {_load()} ==")
    runs: tuple[BugsmithResult, ...] = () if args.no_classic else (
        run_bugsmith(folder, jobs, ("classic",), "bugsmith classic"),)
    runs += (run_bugsmith(folder, jobs, (), "bugsmith all families"),)
    ours = sample(stored_run(folder), args.recheck, args.seed)  # before the warm run replaces it
    mutmut = run_mutmut(folder, jobs, work / f"{target.name}-mutmut.log")
    report(mutmut, *runs)
    figures: dict[str, object] = {"mutmut": asdict(mutmut),
                                  **{_key(run.label): asdict(run) for run in runs}}
    if args.recheck:
        theirs = mutmut_samples(folder, target.modules, args.recheck, args.seed)
        figures["recheck"] = recheck_both(target, folder, work, {
            f"mutmut {MUTMUT_VERSION}": theirs, "bugsmith all families": ours}, jobs)
    figures["warm"] = warm_edit(target, folder)
    return figures


def _earlier(path: Path | None) -> dict[str, Any] | None:
    """The figures of an earlier run (`--json`), read before anything is measured."""
    if path is None:
        return None
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        raise SystemExit(f"--against {path}: not a figures file this benchmark wrote ({error})") from None


def compare_verdicts(earlier: dict[str, Any], figures: dict[str, Any], name: str) -> None:
    """Print how many of the target's mutants (every family) changed verdict since `earlier`.
    Mutant ids name the file, site and rewrite, so the same code gives the same ids."""
    before = earlier.get(name, {}).get("bugsmith_all", {}).get("verdicts")
    now = figures[name]["bugsmith_all"]["verdicts"]
    if not before:
        say(f"verdicts against {earlier.get('bugsmith_commit')}: none recorded for {name} there")
        return
    common = sorted(set(before) & set(now))
    differ = [m for m in common if before[m] != now[m]]
    say(f"verdicts against {earlier.get('bugsmith_commit')}: {len(differ)} of {len(common)} differ"
        f" ({len(set(now) - set(before))} mutants new, {len(set(before) - set(now))} gone)")
    for mutant in differ[:5]:
        say(f"    {mutant}: {before[mutant]} -> {now[mutant]}")
    figures[name]["verdicts_differ"] = differ


def _key(label: str) -> str:
    return "bugsmith_classic" if "classic" in label else "bugsmith_all"


def recheck_both(target: Target, folder: Path, work: Path, samples: dict[str, list[Sample]],
                 jobs: int) -> dict[str, object]:
    """Each tool's sampled verdicts re-run under plain pytest on a pristine copy; prints and
    returns, per tool, how many it got wrong by status and how many of those are in code run
    at import (where mutmut never runs a mutant, so its "survived" there is unchecked)."""
    pristine = target.build(work / f"{target.name}-pristine")
    scratch = work / f"{target.name}-scratch"
    first, limit = baseline(pristine, (target.tests,), target.pytest_args, scratch)
    say(f"re-check with plain pytest: {first.seconds:.1f} s ({first.outcome}) on a pristine copy, "
        f"hang limit {limit:.0f} s; {_load()}")
    project = Project(pristine=pristine, tests=(target.tests,), pytest_args=target.pytest_args,
                      limit=limit)
    at_import = import_time_rule(pristine, target.modules)
    figures: dict[str, object] = {}
    for tool, chosen in samples.items():
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            checks = list(pool.map(lambda s: check(project, s, scratch), chosen))
        figures[tool] = _wrong(tool, checks, at_import)
    shutil.rmtree(scratch, ignore_errors=True)
    return figures


def _wrong(tool: str, checks: list[Check], rule: Callable[[str, int], bool]) -> dict[str, object]:
    sampled = Counter(c.sample.status for c in checks)
    bad = [c for c in checks if not c.agree]
    wrong = Counter(c.sample.status for c in bad)
    imported = sum(rule(c.sample.file, c.sample.line) for c in bad)
    say(f"  {tool}: {len(checks)} verdicts sampled ({_counts(dict(sampled))}): {len(bad)} wrong"
        + (f" ({_counts(dict(wrong))}; {imported} in code run at import)" if bad else ""))
    for c in bad:
        say(f"    WRONG {c.sample.mutant_id} {c.sample.file}:{c.sample.line}: {c.sample.status!r}, "
            f"pytest {c.runs[-1].outcome!r} {c.runs[-1].first_failure}")
    return {"sampled": dict(sampled), "wrong": dict(wrong), "wrong_at_import": imported,
            "wrong_ids": [c.sample.mutant_id for c in bad]}


def warm_edit(target: Target, folder: Path) -> dict[str, float]:
    """`bugsmith run` (the CLI, every family) in `folder` after the all-families run stored
    there, once the target's one-line edit is made."""
    edit = target.edit
    edit_function(folder / edit.file, edit.function, edit.old, edit.new, every=False)
    wall, cpu = timed(f"bugsmith warm re-run after a one-line edit in {edit.function} "
                      f"({edit.old!r} -> {edit.new!r})", folder)
    return {"wall": wall, "cpu": cpu}


def measure_corpus(work: Path, jobs: int) -> dict[str, object]:
    """bugsmith alone, every family, on a copy of reference/ (the store stays out of the repo)."""
    folder = work / "corpus"
    shutil.copytree(REPO / "reference", folder / "reference",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "pyproject.toml").write_text(
        '[tool.bugsmith]\npaths = ["reference"]\ntests = ["reference"]\n'
        'exclude = ["**/strategies.py"]\n', encoding="utf-8")
    say(f"\n== corpus: the whole reference corpus, bugsmith only, every family; {jobs} jobs; "
        f"{_load()} ==")
    every = run_bugsmith(folder, jobs, (), "bugsmith all families")
    say(_header())
    say(_row(every.label, every))
    _phases(every)
    return {"bugsmith_all": asdict(every)}


def report(mutmut: MutmutResult, *runs: BugsmithResult) -> None:
    say(_header())
    say(_row(f"mutmut {MUTMUT_VERSION}", mutmut))
    for result in runs:
        say(_row(result.label, result))
    say("(run: mutants whose tests ran; cpu s: user + system of every process; run/s: over the "
        "mutant phase only, mutmut's from the rate it prints; median: one killed or survived "
        "mutant, as each tool records it)")
    for result in runs:
        whole = (result.mutants / result.wall) / (mutmut.mutants / mutmut.wall)
        cpu = (result.mutants / result.cpu) / (mutmut.mutants / mutmut.cpu)
        phase = (f", {(result.executed / result.mutant_phase) / mutmut.own_rate:.1f}x in the "
                 "mutant phase" if result.mutant_phase and mutmut.own_rate else "")
        median = (f", {mutmut.median_mutant / result.median_mutant:.1f}x per median mutant"
                  if result.median_mutant else "")
        say(f"ratio {result.label} / mutmut: {whole:.1f}x mutants/s over the whole run "
            f"({cpu:.1f}x mutants per cpu-second){phase}{median}")
    setup = mutmut.wall - (mutmut.mutant_phase or 0.0)
    say(f"mutmut: statuses {_counts(mutmut.statuses)}; {setup:.1f} s before its mutant phase "
        "(copy, generate, stats run, clean run, forced-fail run)")
    for result in runs:
        _phases(result)


def _phases(result: BugsmithResult) -> None:
    say(f"{result.label}: statuses {_counts(result.statuses)}; families {_counts(result.by_family)}")
    say(f"  phases: workers spawned {result.startup:.2f} s; their import and collection, then the "
        f"baseline under coverage, beside mutant generation, ended {result.baseline:.2f} s after; "
        f"control {result.control:.2f} s, mutants {result.mutant_phase:.2f} s, "
        f"planning + store + the rest {result.other:.2f} s (of {result.wall:.2f} s)")
    say(f"  floor (cheapest killing test over killed mutants) {result.floor:.3f} s; "
        f"every test the mutants ran {result.tests_time:.3f} s")
    whole = result.overhead(result.wall, result.floor, result.mutants)
    phase = result.overhead(result.mutant_phase, result.floor, result.executed)
    timeouts = result.statuses.get("timeout", 0)
    clean = result.overhead(result.mutant_phase, result.tests_time + result.timeout_seconds,
                            result.executed - timeouts)
    # Tests' times are their baseline's, under coverage, and some mutants run while the
    # baseline drains (harness.speculation): where the tests are most of the run, the
    # differences below fall under zero and say nothing.
    beyond = (f"{clean * 1000:.1f} ms" if clean >= 0 else
              "not measurable (the tests' baseline seconds exceed the mutant phase's)")
    say(f"  overhead per mutant = (wall x {result.jobs} - floor) / mutants: {whole * 1000:.0f} ms "
        f"over the whole run, {phase * 1000:.1f} ms over the mutant phase; "
        f"{beyond} without the {timeouts} timeouts ({result.timeout_seconds:.1f} s) "
        "and beyond every test run")
    per_cpu = (result.cpu - result.tests_time) / result.mutants if result.mutants else 0.0
    if per_cpu >= 0:
        say(f"  cpu per mutant beyond every test run, whole run included: {per_cpu * 1000:.0f} ms")
    if result.at_import:
        run = result.executed - result.statuses.get("timeout", 0) - result.statuses.get("error", 0)
        ratio = result.import_median / result.function_median if result.function_median else 0.0
        say(f"  code run at import: {result.at_import} of {run} killed or survived mutants "
            f"({100 * result.at_import / max(run, 1):.0f} %), median {result.import_median * 1000:.0f} ms "
            f"against {result.function_median * 1000:.0f} ms for the others ({ratio:.1f}x)")


def _header() -> str:
    return (f"{'tool':22} {'mutants':>7} {'run':>5} {'wall s':>7} {'cpu s':>7} {'mutants/s':>9} "
            f"{'run/s':>6} {'median ms':>9} {'timeouts s':>10}")


def _row(label: str, result: MutmutResult | BugsmithResult) -> str:
    phase = result.mutant_phase
    phase_rate = f"{result.executed / phase:6.2f}" if phase else f"{'-':>6}"
    return (f"{label:22} {result.mutants:7d} {result.executed:5d} {result.wall:7.1f} "
            f"{result.cpu:7.1f} {result.mutants / result.wall:9.2f} {phase_rate} "
            f"{result.median_mutant * 1000:9.1f} {result.timeout_seconds:10.1f}")


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in sorted(counts.items(), key=lambda kv: -kv[1]))


def _commit() -> str:
    # rev-parse only reads; it never touches the index others are using.
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                           text=True, check=False)
    return found.stdout.strip() or "unknown"


def _load() -> str:
    # The machine is shared: a load above the core count stretches every figure.
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
