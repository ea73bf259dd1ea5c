"""Noise: how many mutants bugsmith makes on a file against mutmut 3.8.1, counted, not run.

    python benchmarks/noise.py                              # every file below, both tools
    python benchmarks/noise.py --audit-cache DIR --json out.json --by-operator

The issue's bound is "on the same file, at most 2x the mutants mutmut 3.8.1 makes". Nothing is
run: mutmut's count is the number of mutant names its own generator (`mutate_file_contents`,
what `mutmut run` writes under mutants/ before any test) makes of the file, from
benchmarks/.venv-mutmut; bugsmith's is `bugsmith mutants`' (the engine, every family). Files:
the benchmark targets of compare_mutmut.py (auc, toolz's itertoolz and dicttoolz), the modules
of the five audit libraries (their sdists, from `--audit-cache` or downloaded into
benchmarks/.cache) and every module of every reference problem. A few seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from mutmut_side import MUTMUT_VERSION, count_mutmut_mutants
from targets import LIBRARIES, REPO, SDIST_CACHE, TOOLZ_VERSION, fetch_sdist

from bugsmith.harness.exercises.sources.catalogue import reference_names
from bugsmith.mutators.engine import enumerate_mutants
from bugsmith.mutators.registry import select

BOUND = 2.0
REVIEWED = Path(__file__).resolve().parent / "survivors-reviewed.toml"
CORPUS_EQUIVALENTS = REPO / "reference" / "equivalent-mutants.toml"


@dataclass(frozen=True, slots=True, kw_only=True)
class FileCount:
    group: str  # where the file comes from: a target, a library, the corpus
    file: str  # shown relative to its group's root
    mutmut: int
    bugsmith: int
    by_operator: dict[str, int]

    @property
    def ratio(self) -> float:
        return self.bugsmith / self.mutmut if self.mutmut else float("inf")


def files_to_count(audit_cache: Path) -> list[tuple[str, Path, Path]]:
    """(group, root, file) of every file the bound is measured on."""
    found: list[tuple[str, Path, Path]] = [("auc", REPO, REPO / "reference" / "auc" / "auc.py")]
    toolz = fetch_sdist("toolz", TOOLZ_VERSION)
    found += [("toolz", toolz, toolz / "toolz" / name) for name in ("itertoolz.py", "dicttoolz.py")]
    for library in LIBRARIES.values():
        sdist = fetch_sdist(library.name, library.version, audit_cache)
        found += [(library.name, sdist, sdist / path) for path in library.paths]
    for problem in (REPO / "reference" / name for name in reference_names(REPO)):
        # reference/auc/auc.py is the auc target itself: counted once.
        found += [("corpus", REPO, path) for path in sorted(problem.glob("*.py"))
                  if path.name not in ("__init__.py", "strategies.py") and problem.name != "auc"]
    return found


def count(audit_cache: Path) -> list[FileCount]:
    files = files_to_count(audit_cache)
    mutmut = count_mutmut_mutants([path for _, _, path in files])
    mutators = select()
    counts = []
    for group, root, path in files:
        found = enumerate_mutants([path], root=root, mutators=mutators)
        counts.append(FileCount(
            group=group, file=path.relative_to(root).as_posix(), mutmut=mutmut[str(path)],
            bugsmith=len(found.mutants),
            by_operator=dict(Counter(m.operator for m in found.mutants).most_common())))
    return counts


def render(counts: list[FileCount], by_operator: bool) -> list[str]:
    lines = [f"{'group':16} {'file':46} {'mutmut':>7} {'bugsmith':>8} {'ratio':>6}"]
    for row in counts:
        flag = "  OVER 2x" if row.ratio > BOUND else ""
        lines.append(f"{row.group:16} {row.file:46} {row.mutmut:7d} {row.bugsmith:8d} "
                     f"{row.ratio:5.2f}x{flag}")
        if by_operator:
            lines.append("    " + ", ".join(f"{op} {n}" for op, n in row.by_operator.items()))
    total_m = sum(r.mutmut for r in counts)
    total_b = sum(r.bugsmith for r in counts)
    worst = max(counts, key=lambda r: r.ratio)
    over = [r for r in counts if r.ratio > BOUND]
    lines.append(f"{'all':16} {f'{len(counts)} files':46} {total_m:7d} {total_b:8d} "
                 f"{total_b / total_m:5.2f}x")
    lines.append(f"highest ratio {worst.ratio:.2f}x ({worst.group} {worst.file}); "
                 f"{len(over)} file(s) over the {BOUND:g}x bound")
    return lines


def equivalent_share(counts: list[FileCount]) -> list[str]:
    """How many survivors turned out equivalent: the audit's sampled survivors, reviewed by hand
    (survivors-reviewed.toml), and the corpus's, every one reviewed (equivalent-mutants.toml)."""
    reviewed = tomllib.loads(REVIEWED.read_text(encoding="utf-8"))["survivor"]
    lines = ["survivors that turned out equivalent (reviewed by hand):"]
    libraries: dict[str, list[dict[str, object]]] = {}
    families: dict[str, list[dict[str, object]]] = {}
    for entry in reviewed:
        libraries.setdefault(str(entry["library"]), []).append(entry)
        families.setdefault(f"family {str(entry['operator']).split('/')[0]}", []).append(entry)
    groups = {**libraries, **dict(sorted(families.items())), "all five libraries": reviewed}
    for label, entries in groups.items():
        same = sum(bool(e["equivalent"]) for e in entries)
        lines.append(f"  audit, {label:22} {same:3d} of {len(entries):3d} sampled survivors "
                     f"({100 * same / len(entries):5.1f} %)")
    listed = tomllib.loads(CORPUS_EQUIVALENTS.read_text(encoding="utf-8"))["mutant"]
    corpus = sum(r.bugsmith for r in counts if r.group == "corpus" or r.group == "auc")
    lines.append(f"  corpus: {len(listed)} reviewed equivalents of {corpus} mutants "
                 f"({100 * len(listed) / corpus:.1f} %); at a 100 % score they are all its "
                 "survivors, every other survivor having been killed by a stronger test")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audit-cache", type=Path, default=SDIST_CACHE,
                        help="folder holding (or to hold) the audit libraries' sdists")
    parser.add_argument("--by-operator", action="store_true",
                        help="also print bugsmith's mutants per operator on each file")
    parser.add_argument("--json", type=Path, help="also write every count to this file")
    args = parser.parse_args(argv)
    counts = count(args.audit_cache)
    one, five, _ = os.getloadavg()
    say(f"mutants per file, counted without running: mutmut {MUTMUT_VERSION} (its generator) "
        f"and bugsmith (every family); load {one:.1f}/{five:.1f}")
    for line in (*render(counts, args.by_operator), *equivalent_share(counts)):
        say(line)
    if args.json:
        args.json.write_text(json.dumps([asdict(c) | {"ratio": c.ratio} for c in counts], indent=2),
                             encoding="utf-8")
    return 0 if all(c.ratio <= BOUND for c in counts) else 1


def say(line: str) -> None:
    sys.stdout.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
