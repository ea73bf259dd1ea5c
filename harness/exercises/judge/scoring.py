"""`bugsmith score`: the mutation score of a candidate's tests against a problem's code.

The candidate's tests are outside the corpus or project, so they run in a throwaway project:
the problem's code, what its tests need (the corpus's hypothesis profile; a project's
conftest.py files, helpers and pytest configuration), their tests under `tests/`, and a
`[tool.bugsmith]` table. The run's baseline proves their tests pass on the original code
before any mutant runs.

The candidate's tests are untrusted code. Every process that runs them (the mutation
workers, triage's recording and probes) is a bubblewrap sandbox (`RunOptions.sandbox`) that
sees, read-only, the throwaway project (without bugsmith's store in it), the interpreter with
its libraries and bugsmith's own code; not the instructor's files, the checkout, bugsmith's
reference problems or the network; and every process it starts dies with it. A suite that
fails when nothing is wrong gets no score: on the baseline, on the control runs, and on
controls disguised as mutants (`disguised_controls`).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bugsmith.harness import config
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import make_state_folder
from bugsmith.harness.executors.table import local_executor
from bugsmith.harness.exercises.judge.behaviours import code_map, statement_lines
from bugsmith.harness.exercises.judge.disguised_controls import DisguisedControls
from bugsmith.harness.exercises.judge.lessons import Lesson, Survivor, lessons
from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.catalogue import problem_named
from bugsmith.harness.exercises.sources.layout import code_files
from bugsmith.harness.exercises.sources.problems import CONFTEST, PACKAGE_INIT, REFERENCE, Problem
from bugsmith.harness.exercises.sources.pytest_config import toml_table
from bugsmith.harness.outcome import Status, mutation_score
from bugsmith.harness.shared.protocol import WorkerSetup
from bugsmith.harness.shared.sandbox import Limits, Mount, Sandbox, bugsmith_code, reference_folders, require_bwrap
from bugsmith.harness.shared.tasks import Classification
from bugsmith.harness.store import Store

_PYPROJECT = """\
[tool.bugsmith]
paths = ["reference"]
tests = ["tests"]
exclude = ["**/strategies.py"]
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteScore:
    """How many of a problem's mutants the candidate's tests detect, overall and per family."""

    problem: str
    score: float | None
    tests: int
    per_family: dict[str, tuple[int, int]]  # family -> (detected, counted)
    survivors: tuple[Survivor, ...]
    duration: float
    sandboxed: bool = True
    controls: int = 0  # unmutated runs disguised as mutants, all passed (disguised_controls)
    lessons: tuple[Lesson, ...] = ()  # the survivors grouped by the behaviour they reveal
    unrun: dict[str, tuple[int, ...]] = field(default_factory=dict)  # file -> statement lines no test runs
    counts: dict[str, int] = field(default_factory=dict)  # status -> mutants

    def to_dict(self) -> dict[str, Any]:
        """The `bugsmith score --json` record (its shape is in the README, `bugsmith score`)."""
        return {"problem": self.problem, "score": self.score, "tests": self.tests, "counts": dict(self.counts),
                "per_family": {f: {"detected": d, "counted": c} for f, (d, c) in self.per_family.items()},
                "lessons": [lesson.to_dict() for lesson in self.lessons],
                "unrun": {file: list(lines) for file, lines in self.unrun.items()},
                "mutants": [s.to_dict() for s in self.survivors], "duration": self.duration,
                "sandboxed": self.sandboxed, "controls": self.controls}


SCHEMA_FILE = "suite-score.schema.json"


def score_schema() -> dict[str, Any]:
    """The JSON schema of `SuiteScore.to_dict()`, the output of `bugsmith score --json`."""
    from importlib import resources

    return json.loads(resources.files("bugsmith.harness.exercises").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def score_tests(problem: str, tests: Path, *, root: Path | None = None, families: tuple[str, ...] = (),
                jobs: int | None = None, progress: Callable | None = None,
                triage: bool = True, sandbox: bool = True) -> SuiteScore:
    """Run the problem's mutants against `tests` (a file or folder of pytest tests).

    With `triage`, each survivor also says which input shows the bug and what assertion was
    missing (harness.triage), so the candidate learns why their tests missed it. `sandbox=False`
    runs the tests unconfined, with the caller's rights: only for tests you trust.
    """
    from bugsmith import harness
    root = (root or config.builtin_root()).resolve()
    spec = problem_named(root, problem)
    if not tests.exists():
        raise ExerciseError(f"no such file or directory: {tests}")
    if sandbox:  # before anything runs: never a silent fallback to unconfined tests
        require_bwrap()
    with tempfile.TemporaryDirectory(prefix="bugsmith-score-") as scratch:
        project = Path(scratch)
        if spec.source == REFERENCE:
            _build_project(project, root, problem, tests)
        else:
            _build_from_project(project, spec, tests)
        options = config.resolve(project, families=families, jobs=jobs)
        if sandbox:
            options = replace(options, isolation="fork", sandbox=_sandbox(project, options))
        planted: list[DisguisedControls] = []

        def executor(setup: WorkerSetup, run_options: config.RunOptions) -> DisguisedControls:
            planted.append(DisguisedControls(local_executor(setup, run_options)))
            return planted[-1]

        result = harness.run(options, progress=progress, executor_factory=executor)
        findings = _triage(options, result) if triage else {}
        ran = _lines_run(options)
    by_id = {m.id: m for m in result.mutants}
    tallies: dict[str, list] = defaultdict(list)
    survivors = []
    for outcome in result.outcomes:
        mutant = by_id[outcome.mutant_id]
        tallies[mutant.family.value].append(outcome)
        if outcome.status in (Status.SURVIVED, Status.NO_COVERAGE):
            finding = findings.get(mutant.id)
            survivors.append(Survivor(
                mutant_id=mutant.id, operator=mutant.operator, family=mutant.family.value,
                location=f"{mutant.file}:{mutant.span.line}", diff=mutant.diff,
                explanation=mutant.explanation,
                classification=_classification(finding, outcome.status),
                witness=finding.witness if finding else "",
                suggested_test=finding.suggested_test if finding and finding.verified else "",
                covered=outcome.status is Status.SURVIVED))
    taught = _lessons(spec, result, survivors, ran)
    by_lesson = {i: lesson.key for lesson in taught for i in lesson.mutants}
    survivors = [replace(s, lesson=by_lesson.get(s.mutant_id, "")) for s in survivors]
    per_family = {}
    for family, outcomes in sorted(tallies.items()):
        counted = [o for o in outcomes if o.status not in (Status.EQUIVALENT, Status.ERROR)]
        per_family[family] = (sum(o.status in (Status.KILLED, Status.TIMEOUT) for o in counted), len(counted))
    return SuiteScore(problem=problem, score=mutation_score(result.outcomes), tests=len(result.tests),
                      per_family=per_family, survivors=tuple(sorted(survivors, key=lambda s: s.location)),
                      duration=round(result.duration, 2), sandboxed=sandbox,
                      controls=sum(p.planted for p in planted), lessons=taught, unrun=_unrun(result, ran),
                      counts={status.value: n for status, n in result.counts().items() if n})


def _unrun(result, ran: dict[str, set[int]]) -> dict[str, tuple[int, ...]]:
    if not ran:  # no coverage recorded: say nothing rather than call every line unrun
        return {}
    unrun = {file: tuple(sorted(statement_lines(text) - ran.get(file, set())))
             for file, text in sorted(result.sources.items())}
    return {file: lines for file, lines in unrun.items() if lines}


def _classification(finding, status: Status) -> str:
    """Triage's class; for a bug no test runs, only a found witness says more than that."""
    if finding is None:
        return ""
    if status is Status.NO_COVERAGE and finding.classification is not Classification.UNDERTESTED:
        return ""
    return finding.classification.value


def _lines_run(options: config.RunOptions) -> dict[str, set[int]]:
    """The lines the candidate's tests run: the coverage of the run's baseline, the only one in
    this throwaway project's store."""
    store = Store.open_read_only(options.store_path)
    try:
        stored = store.baselines()
    finally:
        store.close()
    ran: dict[str, set[int]] = defaultdict(set)
    for data in stored:
        for file, lines in Baseline.from_dict(data).lines.items():
            ran[file] |= set(lines)
    return ran


def _lessons(spec: Problem, result, survivors: list[Survivor], ran: dict[str, set[int]]) -> tuple[Lesson, ...]:
    """The survivors grouped by behaviour, named from the code and the problem statement."""
    files = code_files(spec)
    packages = {path: text for path, text in files.items() if path.endswith("__init__.py")}
    statement = files.get(spec.statement, "") if spec.statement else ""
    if not statement and spec.statement:
        try:
            statement = spec.read(spec.statement)
        except ExerciseError:
            statement = ""
    return lessons(survivors, code_map(result.sources, packages), statement, ran)


def _sandbox(project: Path, options: config.RunOptions) -> Sandbox:
    """What the workers see: the project read-only (its `.bugsmith` store covered), the
    interpreter, bugsmith's code, a private /tmp for the tools' caches; nothing else."""
    make_state_folder(project / config.STORE_DIR)  # it must exist to be covered
    for path in (project, *project.rglob("*")):  # readable by `nobody`, whom the sandbox runs as under root
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp",
           "TMPDIR": "/tmp", "LANG": "C.UTF-8", "HYPOTHESIS_STORAGE_DIRECTORY": "/tmp/.hypothesis"}
    # A worker holds the suite's libraries (~1-2 GB of address space) and caps each mutant at
    # `memory_limit_mb` more itself (harness.child.session.limit_memory), under this ceiling.
    limits = Limits(memory_mb=options.memory_limit_mb + 4096)
    return Sandbox(mounts=(Mount(source=project, target=str(project)), *bugsmith_code()), workdir=str(project),
                   env=env, hidden=(project / config.STORE_DIR, *reference_folders()), limits=limits)


def _triage(options, result) -> dict:
    from bugsmith.harness.triage.classify import TriageOptions, triage

    if not any(o.status in (Status.SURVIVED, Status.NO_COVERAGE) for o in result.outcomes):
        return {}
    settings = TriageOptions(public_only=True, uncovered=True)
    return {finding.mutant_id: finding for finding in triage(options, settings=settings).findings}


def _build_project(project: Path, root: Path, problem: str, tests: Path) -> None:
    _write(project, code_files(root, problem))
    strategies = root / "reference" / problem / "strategies.py"
    if strategies.is_file():  # candidates may reuse the corpus's input generators
        shutil.copy(strategies, project / "reference" / problem / "strategies.py")
    (project / "reference" / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    # At the root, so that the hypothesis profile applies to tests under tests/ too.
    shutil.copy(root / CONFTEST, project / "conftest.py")
    (project / "pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
    _copy_tests(tests, project / "tests")


def _build_from_project(scratch: Path, problem: Problem, tests: Path) -> None:
    """The problem's package, what its tests need, its pytest configuration, and `tests` under tests/."""
    _write(scratch, code_files(problem))
    _write(scratch, {path: problem.read(path) for path in problem.support})
    table = config.from_table(problem.root, config.read_table(problem.root / "pyproject.toml") or {})
    bugsmith = toml_table("tool.bugsmith", {
        "paths": list(problem.mutate), "tests": ["tests"], "exclude": list(table.exclude),
        "pytest-args": list(table.pytest_args)})
    glue = dict(problem.grader_glue)
    # The exercise's pyproject.toml holds only the pytest table: bugsmith's own goes after it.
    glue["pyproject.toml"] = glue.get("pyproject.toml", "") + bugsmith
    _write(scratch, glue)
    _copy_tests(tests, scratch / "tests")


def _write(folder: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")


def _copy_tests(tests: Path, target: Path) -> None:
    if tests.is_dir():
        shutil.copytree(tests, target, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"),
                        dirs_exist_ok=True)
    else:
        target.mkdir(exist_ok=True)
        shutil.copy(tests, target / tests.name)
