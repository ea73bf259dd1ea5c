"""`bugsmith triage --write PATH`: the verified tests of a triage, in one file a user can review.

compose (imports at the top, merged; one test per survivor under a comment naming its mutant, the
place and the edit) -> check in a private copy of the project (`python -m
bugsmith.harness.child.isolated` under pytest, as `--isolation subprocess` runs mutants: the
whole file on the original, each test on its own mutant served from memory) -> keep the tests
that pass on the original and fail on their mutant -> write. Nothing runs in the user's tree;
the only file written there is PATH, which the user named.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bugsmith.errors import ConfigError, HarnessError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.executors.project_copy import ProjectCopy
from bugsmith.harness.executors.subprocess_pool import SubprocessPool
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.shared.protocol import Job, TestOutcome, Verdict, WorkerSetup
from bugsmith.harness.store import last_run
from bugsmith.harness.triage.classify import suite_setup
from bugsmith.harness.triage.copy_paths import names_the_copy, relocated
from bugsmith.harness.triage.finding import Finding
from bugsmith.mutators.mutant import Mutant

TEST_SECONDS = 10.0  # one written test, on the original or on its mutant
_LINE_LENGTH = 88  # ruff's default, which the written file's imports are laid out for
_HEADER = '''"""Tests written by `bugsmith triage --write`.

Each test passed on the original code and failed on the mutant named in the
comment above it when it was written: it checks a behaviour the suite left
unchecked. Review them before you keep them: a test pins what the code does
today, which is not always what it should do.
"""
'''


@dataclass(frozen=True, slots=True, kw_only=True)
class Drafted:
    """One survivor's verified test, with the facts its comment names."""

    mutant: Mutant
    source: str  # the drafted test module: its imports and one test function


@dataclass(frozen=True, slots=True, kw_only=True)
class WrittenTests:
    """What `--write` wrote: the file, the survivors whose tests are in it, and the others, with why."""

    path: Path
    written: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]  # (mutant id, why it was left out)

    def summary(self) -> str:
        reasons: dict[str, int] = {}
        for _, why in self.left_out:
            reasons[why] = reasons.get(why, 0) + 1
        left = "; ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda item: -item[1]))
        return (f"wrote {len(self.written)} test(s) to {self.path}"
                + (f"; left out {len(self.left_out)}: {left}" if self.left_out else ""))


def refuse_overwrite(path: Path, force: bool) -> None:
    """A file the user already has at PATH is theirs: replaced only with `--force`."""
    if path.exists() and not force:
        raise ConfigError(f"{path} already exists: choose another path, or pass --force to replace it")
    if path.exists() and not path.is_file():
        raise ConfigError(f"{path} is not a file")


def write_tests(options: RunOptions, findings: Sequence[Finding], path: Path, *, force: bool = False) -> WrittenTests:
    """Check the findings' verified tests together and write those that hold into `path`."""
    path = path.resolve()
    refuse_overwrite(path, force)
    last = last_run(options.root)
    mutants = {m.id: m for m in last.mutants}
    root = options.root.resolve()
    left_out: list[tuple[str, str]] = []
    drafted: list[Drafted] = []
    depth = _depth(path, root)
    for finding in findings:
        if not (finding.verified and finding.suggested_test) or finding.mutant_id not in mutants:
            continue
        source = finding.suggested_test
        if names_the_copy(source, root) and depth is None:
            left_out.append((finding.mutant_id, "name a file of the project, and the file is outside it"))
            continue
        if names_the_copy(source, root):
            source = relocated(source, root, depth or 0)
        drafted.append(Drafted(mutant=mutants[finding.mutant_id], source=source))
    kept, clashes = _mergeable(drafted)
    left_out += [(d.mutant.id, "import a name another test imports from elsewhere") for d in clashes]
    kept, failed = _checked(options, last, kept, path)
    left_out += failed
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(compose(kept, root))
    return WrittenTests(path=path, written=tuple(d.mutant.id for d in kept), left_out=tuple(left_out))


def _depth(path: Path, root: Path) -> int | None:
    """How many folders below the project's root `path` is; None outside it (or in `.bugsmith/`)."""
    if not path.is_relative_to(root) or path.relative_to(root).parts[:1] == (".bugsmith",):
        return None
    return len(path.relative_to(root).parts) - 1


def compose(drafted: Sequence[Drafted], root: Path | None = None) -> str:
    """One test module: the header, every import once, then each test under its mutant's comment.

    The imports are laid out as isort (and ruff's `I` rules) would: the standard library, other
    packages, then the project's own modules (those found under `root` or `root/src`)."""
    plain: dict[str, str] = {}  # "import numpy as np" -> "numpy"
    froms: dict[str, dict[str, None]] = {}
    constants: dict[str, None] = {}  # copy_paths' PROJECT_ROOT
    bodies = []
    for draft in drafted:
        tree = ast.parse(draft.source)
        for node in tree.body:
            if isinstance(node, ast.Assign):
                constants[ast.unparse(node)] = None
            elif isinstance(node, ast.Import):
                plain.update({ast.unparse(ast.Import(names=[alias])): alias.name for alias in node.names})
            elif isinstance(node, ast.ImportFrom):
                names = froms.setdefault(node.module or "", {})
                names.update({ast.unparse(alias): None for alias in node.names})
            elif isinstance(node, ast.FunctionDef):
                bodies.append(f"{comment(draft.mutant)}\n{ast.get_source_segment(draft.source, node)}\n")
    sections: list[list[str]] = [[], [], []]
    for line, module in sorted(plain.items(), key=lambda item: (item[1].lower(), item[0])):
        sections[_section(module, root)].append(line)
    for module, names in sorted(froms.items(), key=lambda item: item[0].lower()):
        sections[_section(module, root)].append(_from_import(module, sorted(names, key=_name_order)))
    imports = "\n\n".join("\n".join(section) for section in sections if section)
    defined = "".join(f"\n{line}" for line in constants) + "\n" * bool(constants)
    return _HEADER + "\n" + imports + "\n" + defined + "\n\n" + "\n\n".join(bodies)


def _from_import(module: str, names: list[str]) -> str:
    """One `from` import, wrapped one name a line as isort wraps it past ruff's default 88 columns."""
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= _LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"    {name},\n" for name in names) + ")"


def _section(module: str, root: Path | None) -> int:
    """0 the standard library, 1 another package, 2 the project's own module."""
    if module.partition(".")[0] in sys.stdlib_module_names:
        return 0
    for base in (root, root / "src") if root is not None else ():
        place = base.joinpath(*module.split("."))
        if place.is_dir() or place.with_suffix(".py").is_file():
            return 2
    return 1


def _name_order(name: str) -> tuple[int, str, str]:
    """isort's order of imported names: CONSTANTS, then Classes, then the rest, each case-blind."""
    bare = name.partition(" as ")[0]
    rank = 0 if bare.isupper() and len(bare) > 1 else 1 if bare[:1].isupper() else 2
    return rank, bare.lower(), name


def comment(mutant: Mutant) -> str:
    """`# mutant ab12cd34, box/box_list.py:51 (beyond/wrong-variable): `*args` -> `*kwargs``."""

    def shown(text: str) -> str:
        text = " ".join(text.split())
        return f"`{text if len(text) <= 60 else text[:57] + '...'}`" if text else "(deleted)"

    return (f"# mutant {mutant.id}, {mutant.file}:{mutant.span.line} ({mutant.operator}):"
            f" {shown(mutant.original)} -> {shown(mutant.mutated)}")


def _bound_names(source: str) -> dict[str, str]:
    """Each name a drafted test's imports bind, with what it is bound to."""
    bound = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            origin = f"{node.module}." if isinstance(node, ast.ImportFrom) else ""
            for alias in node.names:
                bound[alias.asname or alias.name.partition(".")[0]] = origin + alias.name
        elif isinstance(node, ast.FunctionDef):
            bound[node.name] = f"test of {source!r}"
        elif isinstance(node, ast.Assign):
            bound.update({ast.unparse(target): ast.unparse(node.value) for target in node.targets})
    return bound


def _mergeable(drafted: Sequence[Drafted]) -> tuple[list[Drafted], list[Drafted]]:
    """The tests that can share one module, and those whose names would shadow another's."""
    names: dict[str, str] = {}
    kept, clashes = [], []
    for draft in drafted:
        bound = _bound_names(draft.source)
        if any(names.get(name, target) != target for name, target in bound.items()):
            clashes.append(draft)
            continue
        names.update(bound)
        kept.append(draft)
    return kept, clashes


def _checked(options: RunOptions, last: RunResult, drafted: list[Drafted],
             path: Path) -> tuple[list[Drafted], list[tuple[str, str]]]:
    """The tests that pass together on the original and each fail on its own mutant."""
    left_out: list[tuple[str, str]] = []
    if not drafted:
        return [], left_out
    root = options.root.resolve()
    with ProjectCopy.open(root) as copy:
        setup = copy.relocation.setup(suite_setup(options, last))
        relative = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
        if relative.parts[:1] == (".bugsmith",):
            relative = Path(path.name)  # the copy does not hold bugsmith's own folder
        target = Path(copy.folder) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        pool = SubprocessPool(setup, max(1, options.jobs))
        for _ in range(3):  # a test that failed beside the others is dropped, and the rest run again
            target.write_text(compose(drafted, root))
            node = {d.mutant.id: f"{relative.as_posix()}::{_test_function(d.source)}" for d in drafted}
            passing = _passing(pool, list(node.values()))
            failing = [d for d in drafted if node[d.mutant.id] not in passing]
            if not failing:
                break
            left_out += [(d.mutant.id, "fail on the original beside the others") for d in failing]
            drafted = [d for d in drafted if node[d.mutant.id] in passing]
        else:
            return [], left_out + [(d.mutant.id, "fail on the original beside the others") for d in drafted]
        caught = _caught(pool, setup, drafted, node, last)
    left_out += [(d.mutant.id, caught[d.mutant.id]) for d in drafted if caught[d.mutant.id]]
    return [d for d in drafted if not caught[d.mutant.id]], left_out


def _test_function(source: str) -> str:
    return next(node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef))


def _passing(pool: SubprocessPool, tests: list[str]) -> set[str]:
    """The tests that passed, run together on the original code."""
    verdicts: list[Verdict] = []
    job = Job.unmutated("written-tests", tuple(tests), TEST_SECONDS)
    pool.run([job], lambda _, verdict: verdicts.append(verdict))
    for verdict in verdicts:
        if verdict.error or verdict.died or verdict.missing:
            problem = verdict.error or verdict.died or f"pytest did not collect {', '.join(verdict.missing)[:200]}"
            raise HarnessError(f"the written tests could not be run in a copy of the project: {problem}")
    results = [r for verdict in verdicts for r in verdict.results]
    failed = {r.id for r in results if r.outcome is not TestOutcome.PASSED}
    return {r.id for r in results if r.outcome is TestOutcome.PASSED} - failed


def _caught(pool: SubprocessPool, setup: WorkerSetup, drafted: list[Drafted], node: dict[str, str],
            last: RunResult) -> dict[str, str]:
    """For each test, "" when it fails on its own mutant, else why it does not count."""
    jobs = []
    for draft in drafted:
        mutant = draft.mutant
        jobs.append(Job(mutant_id=mutant.id, module=mutant.module, path=str(Path(setup.root) / mutant.file),
                        function=mutant.function, source=mutant.apply(last.sources[mutant.file]),
                        tests=(node[mutant.id],), timeout=TEST_SECONDS))
    found: dict[str, str] = {}
    pool.run(jobs, lambda job, verdict: found.__setitem__(job.mutant_id, _why_not_caught(verdict)))
    return {d.mutant.id: found.get(d.mutant.id, "could not be run on their mutant") for d in drafted}


def _why_not_caught(verdict: Verdict) -> str:
    if verdict.timed_out:
        return "hang on their mutant instead of failing"
    if any(r.outcome is not TestOutcome.PASSED for r in verdict.results):
        return ""
    if verdict.error or verdict.died or verdict.missing:
        return "could not be run on their mutant"
    return "pass on their mutant too"


