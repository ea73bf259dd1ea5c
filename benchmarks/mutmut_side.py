"""mutmut 3.8.1 in its own virtual environment: install it once, run it, read its verdicts."""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from clock import cpu_seconds
from recheck import Sample

MUTMUT_VERSION = "3.8.1"
VENV = Path(__file__).resolve().parent / ".venv-mutmut"

# mutmut 3.8.1's `stats.status_by_exit_code`, copied because mutmut is not importable from the
# interpreter that runs this script; an unknown code is "suspicious", as in mutmut.
_STATUS_BY_EXIT_CODE = {
    1: "killed", 3: "killed", 0: "survived", 5: "no tests", 2: "interrupted", None: "not checked",
    33: "no tests", 34: "skipped", 35: "suspicious", 36: "timeout", 37: "caught by type check",
    -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout", -11: "segfault", -9: "segfault",
}
_NOT_RUN = {"no tests", "skipped", "not checked", "caught by type check"}


@dataclass(frozen=True, slots=True, kw_only=True)
class MutmutResult:
    mutants: int
    statuses: dict[str, int]
    wall: float  # seconds for the whole `mutmut run`: copy, generate, stats, clean run, mutants
    cpu: float  # user + system seconds of every process it ran
    own_rate: float | None  # mutmut's printed "mutations/second" (its mutant phase only)
    median_mutant: float  # median of mutmut's own per-mutant durations, killed or survived
    timeout_seconds: float  # mutmut's recorded time on mutants that timed out

    @property
    def mutant_phase(self) -> float | None:
        """Seconds of the mutant phase, from the rate mutmut prints (tried / elapsed)."""
        return self.executed / self.own_rate if self.own_rate else None

    @property
    def executed(self) -> int:
        return sum(n for status, n in self.statuses.items() if status not in _NOT_RUN)


def mutmut_executable() -> Path:
    """mutmut from benchmarks/.venv-mutmut, creating the environment on first use.

    The environment sees the system site-packages so that the targets' own dependencies
    (numpy, scikit-learn, hypothesis) import there too; mutmut and its pins win over them.
    """
    executable = VENV / "bin" / "mutmut"
    python = VENV / "bin" / "python"
    if not executable.exists() or _installed_version(python) != MUTMUT_VERSION:
        venv.EnvBuilder(system_site_packages=True, with_pip=True, clear=True).create(VENV)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", f"mutmut=={MUTMUT_VERSION}", "pytest"],
            check=True, stdout=subprocess.DEVNULL,
        )
    return executable


def _installed_version(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('mutmut'))"],
        capture_output=True, text=True, check=False,
    )
    return probe.stdout.strip() or None


def bench_env() -> dict[str, str]:
    """The environment both tools run under: one thread per numeric library, as bugsmith's
    workers set for themselves, so neither tool gets more than its `jobs` cores."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("VIRTUAL_ENV")}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               NUMEXPR_NUM_THREADS="1",
               # bugsmith's workers set this, and the reference suites' conftest then skips
               # hypothesis shrinking; mutmut's runs must see the same suite.
               BUGSMITH_MUTANT_RUN="1")
    return env


def run_mutmut(folder: Path, jobs: int, log: Path) -> MutmutResult:
    """`mutmut run --max-children jobs` in `folder`, timed, and its verdicts from mutants/*.meta."""
    executable = mutmut_executable()
    env = bench_env()
    env["PATH"] = f"{executable.parent}{os.pathsep}{env.get('PATH', '')}"
    cpu_before = cpu_seconds()
    started = time.monotonic()
    with open(log, "wb") as out:
        completed = subprocess.run(
            [str(executable), "run", "--max-children", str(jobs)],
            cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT, check=False,
        )
    wall = time.monotonic() - started
    cpu = cpu_seconds() - cpu_before
    text = log.read_text(encoding="utf-8", errors="replace")
    if completed.returncode != 0:
        tail = "\n".join(text.strip().splitlines()[-15:])
        raise RuntimeError(f"mutmut exited with {completed.returncode}; see {log}:\n{tail}")
    verdicts = _read_meta(folder / "mutants")
    rate = re.findall(r"([\d.]+) mutations/second", text)
    return MutmutResult(
        mutants=len(verdicts),
        statuses=dict(Counter(status for status, _ in verdicts)),
        wall=wall,
        cpu=cpu,
        own_rate=float(rate[-1]) if rate else None,
        median_mutant=_median([d for status, d in verdicts if status in ("killed", "survived")]),
        timeout_seconds=sum(d for status, d in verdicts if status == "timeout"),
    )


# Run by mutmut's own interpreter: the mutant names its generator makes of each file, which is
# what `mutmut run` writes under mutants/ before it runs a test (every line, no coverage filter).
_COUNT = """
import json, sys
from mutmut.mutation.file_mutation import mutate_file_contents
counts = {}
for path in json.load(sys.stdin):
    with open(path, encoding="utf-8") as source:
        counts[path] = len(mutate_file_contents(path, source.read()).mutant_names)
json.dump(counts, sys.stdout)
"""


def count_mutmut_mutants(paths: list[Path]) -> dict[str, int]:
    """How many mutants mutmut makes of each file (keyed by `str(path)`), without running tests."""
    python = mutmut_executable().parent / "python"
    with tempfile.TemporaryDirectory(prefix="bugsmith-mutmut-count-") as folder:
        # mutmut reads its configuration (pragma patterns) from the working directory's
        # pyproject.toml and stops without one; the default configuration is what we want.
        Path(folder, "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["."]\n',
                                                  encoding="utf-8")
        done = subprocess.run([str(python), "-c", _COUNT],
                              input=json.dumps([str(p.resolve()) for p in paths]), cwd=folder,
                              capture_output=True, text=True, check=False, env=bench_env())
    if done.returncode != 0:
        raise RuntimeError(f"mutmut's generator failed: {done.stderr.strip()[-2000:]}")
    by_resolved: dict[str, int] = json.loads(done.stdout)
    return {str(p): by_resolved[str(p.resolve())] for p in paths}


def _read_meta(mutants: Path) -> list[tuple[str, float]]:
    """(status, seconds) of every mutant, from the .meta files mutmut writes per source file."""
    verdicts: list[tuple[str, float]] = []
    for meta in sorted(mutants.rglob("*.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        durations = data.get("durations_by_key", {})
        for key, code in data["exit_code_by_key"].items():
            verdicts.append((_STATUS_BY_EXIT_CODE.get(code, "suspicious"), durations.get(key, 0.0)))
    if not verdicts:
        raise RuntimeError(f"mutmut wrote no verdicts under {mutants}")
    return verdicts


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


if __name__ == "__main__":  # pragma: no cover - a manual check of the environment
    sys.stdout.write(f"{mutmut_executable()}\n")


# mutmut's statuses against bugsmith's names for the same claim (what plain pytest must do).
_AS_BUGSMITH = {"killed": "killed", "survived": "survived", "timeout": "timeout",
                "no tests": "no coverage"}


def mutmut_samples(folder: Path, modules: tuple[str, ...], per_status: int, seed: int) -> list[Sample]:
    """Up to `per_status` of mutmut's verdicts of each status (seeded, from the keys sorted),
    each with the whole-file diff that `mutmut apply` makes of it, after a `mutmut run` in
    `folder`. The module files are restored after each."""
    by_key = _statuses_by_key(folder / "mutants")
    rng = random.Random(seed)
    chosen: list[Sample] = []
    for theirs, ours in _AS_BUGSMITH.items():
        pool = sorted(key for key, status in by_key.items() if status == theirs)
        chosen += [_applied(folder, modules, key, ours)
                   for key in rng.sample(pool, min(per_status, len(pool)))]
    return chosen


def _statuses_by_key(mutants: Path) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for meta in sorted(mutants.rglob("*.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        statuses.update((key, _STATUS_BY_EXIT_CODE.get(code, "suspicious"))
                        for key, code in data["exit_code_by_key"].items())
    return statuses


def _applied(folder: Path, modules: tuple[str, ...], key: str, status: str) -> Sample:
    """The mutant `key` as a diff of its source file. Not `mutmut apply`: mutmut 3.8.1 puts the
    mutant in place of the first function or method of that name in the file, whatever its
    class (`SpecifierSet.filter`'s mutant replaced `BaseSpecifier.filter` in packaging), so a
    re-check of a method whose name repeats ran another mutant than the one mutmut judged."""
    file = _module_of(folder, modules, key)
    before = (folder / file).read_text(encoding="utf-8")
    after = apply_mutant(before, (folder / "mutants" / file).read_text(encoding="utf-8"), key)
    diff = "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        fromfile=f"a/{file}", tofile=f"b/{file}"))
    pairs = zip(before.splitlines(), after.splitlines(), strict=False)
    line = next((number for number, (old, new) in enumerate(pairs, 1) if old != new), 0)
    return Sample(mutant_id=key, file=file, line=line, operator="", diff=diff, status=status,
                  detail="", killed_by=())


def _module_of(folder: Path, modules: tuple[str, ...], key: str) -> str:
    """The module file whose .meta lists `key` (mutmut writes one .meta per source file)."""
    for module in modules:
        meta = folder / "mutants" / f"{module}.meta"
        if meta.exists() and key in json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]:
            return module
    raise LookupError(f"no .meta under {folder / 'mutants'} lists mutant {key}")


def apply_mutant(original: str, mutated_module: str, key: str) -> str:
    """`original` with the function that mutant `key` mutates replaced by the mutant's body, read
    from `mutated_module` (mutmut's copy under mutants/, which holds every mutant as a function
    `x_function__mutmut_N` at the top level or a method `xǁClassǁmethod__mutmut_N` of its class).
    The place is found by class and name, so a method whose name repeats in the file is the
    right one."""
    generated = key.rpartition(".")[2]
    mangled = generated.partition("__mutmut_")[0]
    if mangled.startswith("xǁ"):  # xǁClassǁmethod
        class_name, _, name = mangled[2:].partition("ǁ")
    else:
        class_name, name = None, mangled.removeprefix("x_")

    def find(module: cst.Module, function: str) -> cst.FunctionDef:
        body = module.body
        if class_name is not None:
            owner = next((node for node in body
                          if isinstance(node, cst.ClassDef) and node.name.value == class_name), None)
            body = owner.body.body if owner and isinstance(owner.body, cst.IndentedBlock) else ()
        found = next((node for node in body
                      if isinstance(node, cst.FunctionDef) and node.name.value == function), None)
        if found is None:
            raise LookupError(f"no {function} in {class_name or 'the module'} for mutant {key}")
        return found

    module = cst.parse_module(original)
    mutant = find(cst.parse_module(mutated_module), generated)
    return module.deep_replace(find(module, name), mutant.with_changes(name=cst.Name(name))).code
