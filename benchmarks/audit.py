"""Verdict audit: does plain pytest agree with what bugsmith said of each mutant?

    python benchmarks/audit.py                                  # every library of targets.LIBRARIES
    python benchmarks/audit.py --library inflection --library isodate --per-status 20
    python benchmarks/audit.py --project ../mylib --paths mylib/core.py --tests tests

For each library it stages two identical copies of the project (the pinned sdist, or the given
folder, with a `[tool.bugsmith]` table written into the copy): bugsmith runs in one, through its
library API; the other stays pristine. It samples up to N verdicts of every status (seeded), and
re-checks each in a fresh copy of the pristine one with the mutant's diff applied by `patch` and
`python -m pytest` run in a new process with the project's test selection (recheck.py). It prints
a table per library (status x agree/disagree) and the overall disagreement rate, and writes a JSON
with every check and every disagreement. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from recheck import PASSED, Check, Project, Sample, baseline, check
from targets import LIBRARIES, REPO, write_table

from bugsmith import harness
from bugsmith.errors import BugsmithError
from bugsmith.harness.config import resolve

STATUSES = ("killed", "survived", "no coverage", "timeout", "error")
_SCRATCH = ("__pycache__", ".bugsmith", ".pytest_cache", ".hypothesis")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", action="append", choices=sorted(LIBRARIES),
                        help="a pinned library of benchmarks/targets.py (repeatable; default: all)")
    parser.add_argument("--project", type=Path, help="audit this folder instead")
    parser.add_argument("--paths", nargs="+", default=(), help="with --project: files to mutate "
                        "(written into the copy's [tool.bugsmith] table if it has none)")
    parser.add_argument("--tests", nargs="+", default=(), help="with --project: test paths")
    parser.add_argument("--pytest-arg", action="append", default=[], dest="pytest_args",
                        help="with --project: an argument for pytest (repeatable)")
    parser.add_argument("--per-status", type=int, default=15, help="verdicts sampled per status")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=2, help="bugsmith workers and pytest re-checks")
    parser.add_argument("--work", type=Path, default=REPO / "benchmarks" / ".cache" / "audit",
                        help="sdist cache and staged copies (kept for inspection)")
    parser.add_argument("--json", type=Path, help="write every check here (default: WORK/audit.json)")
    parser.add_argument("--merge", type=Path, nargs="+", help="only print the tables of earlier "
                        "runs' JSON files together (libraries audited one at a time)")
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.project:
        audits = [audit_project(args, work)]
    else:
        audits = [audit_library(name, args, work) for name in args.library or sorted(LIBRARIES)]
    checks = [c for a in audits for c in a["checks"]]
    disagreements = [c for c in checks if not c["agree"]]
    say(f"\n== overall: {len(checks)} verdicts re-checked over {len(audits)} project(s), "
        f"{len(disagreements)} disagreement(s) ({_rate(len(disagreements), len(checks))}) ==")
    say(_table({status: [c for c in checks if c["status"] == status] for status in STATUSES}))
    out = args.json or work / "audit.json"
    out.write_text(json.dumps({"seed": args.seed, "per_status": args.per_status,
                               "projects": [{k: v for k, v in a.items() if k != "checks"}
                                            for a in audits],
                               "disagreements": disagreements, "checks": checks},
                              indent=2), encoding="utf-8")
    say(f"every check and disagreement: {out}")
    return 1 if disagreements else 0


def merge(files: list[Path]) -> int:
    """Per-project and overall tables from the JSON files of earlier runs."""
    checks: list[dict[str, object]] = []
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        for project in data["projects"]:
            mine = [c for c in data["checks"] if c["project"] == project["project"]]
            checks += mine
            bad = [c for c in mine if not c["agree"]]
            say(f"\n== {project['project']}: {len(mine)} verdicts re-checked, {len(bad)} "
                f"disagreement(s) ({_rate(len(bad), len(mine))}); bugsmith: "
                + ", ".join(f"{k} {v}" for k, v in project.get("statuses", {}).items()) + " ==")
            say(_table({s: [c for c in mine if c["status"] == s] for s in STATUSES}))
    bad = [c for c in checks if not c["agree"]]
    say(f"\n== overall: {len(checks)} verdicts, {len(bad)} disagreement(s) "
        f"({_rate(len(bad), len(checks))}) ==")
    say(_table({s: [c for c in checks if c["status"] == s] for s in STATUSES}))
    for c in bad:
        say(f"  DISAGREE {c['project']} {c['mutant_id']} {c['file']}:{c['line']}: bugsmith "
            f"{c['status']!r}, pytest {c['pytest']!r} {c['first_failure']}")
    return 1 if bad else 0


def audit_library(name: str, args: argparse.Namespace, work: Path) -> dict[str, object]:
    library = LIBRARIES[name]
    folder = _clean(work / name)
    library.stage(folder / "pristine", work / "cache")
    library.stage(folder / "run", work / "cache")
    return audit(f"{name} {library.version}", folder, args)


def audit_project(args: argparse.Namespace, work: Path) -> dict[str, object]:
    source = args.project.resolve()
    folder = _clean(work / f"project-{source.name}")
    for copy in ("pristine", "run"):
        shutil.copytree(source, folder / copy, symlinks=True,
                        ignore=shutil.ignore_patterns(*_SCRATCH, ".git", ".venv*", ".tox"))
        if args.paths:
            write_table(folder / copy, tuple(args.paths), tuple(args.tests),
                        tuple(args.pytest_args))
    return audit(source.name, folder, args)


def audit(label: str, folder: Path, args: argparse.Namespace) -> dict[str, object]:
    """bugsmith on folder/run, plain pytest on copies of folder/pristine, compared."""
    say(f"\n== {label}: {_load()} ==")
    options = resolve(folder / "run", jobs=args.jobs)
    started = time.monotonic()
    try:
        result = harness.run(options)
    except BugsmithError as error:  # a refused baseline gives no verdict to audit: say so, go on
        say(f"bugsmith refused to run: {error}")
        return {"project": label, "refused": str(error), "checks": []}
    seconds = time.monotonic() - started
    counts = Counter(outcome.status.value for outcome in result.outcomes)
    say(f"bugsmith: {len(result.outcomes)} mutants in {seconds:.0f} s: "
        + ", ".join(f"{status} {counts[status]}" for status in (*STATUSES, "equivalent")
                    if counts[status]))
    changed = _changed_files(folder / "pristine", folder / "run")
    if changed:
        say(f"WARNING: the run changed the project copy: {', '.join(changed[:10])}")
    first, limit = baseline(folder / "pristine", options.tests, options.pytest_args,
                            folder / "scratch")
    if first.outcome != PASSED:
        raise SystemExit(f"{label}: plain pytest does not pass on the pristine copy "
                         f"({first.outcome}):\n{first.tail}")
    say(f"plain pytest: {first.seconds:.1f} s on the pristine copy; hang limit {limit:.0f} s; "
        f"tests {list(options.tests)}, pytest args {list(options.pytest_args)}")
    samples = sample(result, args.per_status, args.seed)
    project = Project(pristine=folder / "pristine", tests=options.tests,
                      pytest_args=options.pytest_args, limit=limit)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        checks = list(pool.map(lambda s: check(project, s, folder / "scratch"), samples))
    shutil.rmtree(folder / "scratch", ignore_errors=True)
    records = [_record(label, c) for c in checks]
    bad = [r for r in records if not r["agree"]]
    say(f"re-checked {len(records)} verdicts, {len(bad)} disagreement(s) "
        f"({_rate(len(bad), len(records))}):")
    say(_table({status: [r for r in records if r["status"] == status] for status in STATUSES}))
    for r in bad:
        say(f"  DISAGREE {r['mutant_id']} {r['file']}:{r['line']} {r['operator']}: bugsmith "
            f"{r['status']!r} ({r['detail'][:100]}), pytest {r['pytest']!r} {r['first_failure']}")
    return {"project": label, "mutants": len(result.outcomes), "statuses": dict(counts),
            "bugsmith_seconds": round(seconds, 1), "baseline_seconds": first.seconds,
            "limit": limit, "changed_files": changed, "checks": records}


def sample(result: object, per_status: int, seed: int) -> list[Sample]:
    """Up to `per_status` verdicts of each status, drawn with a seeded generator from the
    verdicts sorted by mutant id (so the same run gives the same sample)."""
    mutants = {m.id: m for m in result.mutants}  # type: ignore[attr-defined]
    chosen: list[Sample] = []
    rng = random.Random(seed)
    for status in STATUSES:
        pool = sorted((o for o in result.outcomes if o.status.value == status),  # type: ignore[attr-defined]
                      key=lambda o: o.mutant_id)
        for outcome in rng.sample(pool, min(per_status, len(pool))):
            mutant = mutants[outcome.mutant_id]
            chosen.append(Sample(mutant_id=mutant.id, file=mutant.file, line=mutant.span.line,
                                 operator=mutant.operator, diff=mutant.diff, status=status,
                                 detail=outcome.detail, killed_by=outcome.killed_by))
    return chosen


def _record(label: str, c: Check) -> dict[str, object]:
    last = c.runs[-1]
    return {"project": label, **asdict(c.sample), "agree": c.agree, "flaky": c.flaky,
            "pytest": last.outcome, "exit_code": last.exit_code,
            "first_failure": last.first_failure, "pytest_seconds": [r.seconds for r in c.runs],
            "pytest_tail": "" if c.agree else last.tail}


def _table(by_status: dict[str, list[dict[str, object]]]) -> str:
    lines = [f"  {'status':12} {'sampled':>7} {'agree':>6} {'disagree':>8} {'flaky':>5}"]
    for status, records in by_status.items():
        agree = sum(bool(r["agree"]) for r in records)
        flaky = sum(bool(r["flaky"]) for r in records)
        lines.append(f"  {status:12} {len(records):7d} {agree:6d} {len(records) - agree:8d} "
                     f"{flaky:5d}")
    total = [r for records in by_status.values() for r in records]
    agree = sum(bool(r["agree"]) for r in total)
    lines.append(f"  {'all':12} {len(total):7d} {agree:6d} {len(total) - agree:8d} "
                 f"{sum(bool(r['flaky']) for r in total):5d}")
    return "\n".join(lines)


def _changed_files(pristine: Path, run: Path) -> list[str]:
    """Files the bugsmith run added, removed or changed in its copy (bugsmith's own state and
    caches aside): a mutant must never write into the project."""
    changed: list[str] = []

    def walk(compared: filecmp.dircmp[str], prefix: str) -> None:
        for name in (*compared.left_only, *compared.right_only, *compared.diff_files):
            if name not in _SCRATCH:
                changed.append(prefix + name)
        for name, sub in compared.subdirs.items():
            if name not in _SCRATCH:
                walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(pristine, run, ignore=list(_SCRATCH)), "")
    return sorted(changed)


def _clean(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def _rate(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
