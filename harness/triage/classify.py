"""`triage(options) -> TriageResult`: classify the survivors of the last run, as a library call.

record the suite's calls to the survivors' functions (fresh interpreter) -> one probe job per
survivor in the fork-server pool (replay, then search) -> two check jobs per drafted test
(original must pass, mutant must fail) -> Findings, stored as the `triage` extras.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bugsmith.errors import BugsmithError, UnknownMutantError
from bugsmith.harness.config import RunOptions
from bugsmith.harness.executors.table import open_executor
from bugsmith.harness.mutation_run.progress import Progress
from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.shared.interpreter import target_key
from bugsmith.harness.shared.protocol import Job, Verdict, WorkerSetup
from bugsmith.harness.shared.tasks import (
    CALL_SECONDS,
    Budget,
    Checked,
    CheckTask,
    Classification,
    Probed,
    ProbeTask,
    RecordedCall,
)
from bugsmith.harness.store import Store, hold
from bugsmith.harness.triage.equivalence import equivalence_argument
from bugsmith.harness.triage.finding import KIND, Finding, stored_findings
from bugsmith.harness.triage.reach import public_callers
from bugsmith.harness.triage.recording import record_calls
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source

STARTUP_SECONDS = 15.0  # a child imports hypothesis and the problem's strategies
CHECK_SECONDS = 10.0
THROUGH_CALLS = 12  # recorded calls of each public caller sent with a probe


@dataclass(frozen=True, slots=True, kw_only=True)
class TriageOptions:
    """Budgets per survivor: the search time and examples, and the recording's memory."""

    search_seconds: float = 5.0
    max_examples: int = 1000
    recording: Budget = field(default_factory=Budget)
    # `bugsmith score`: witnesses and drafted tests only through the public API, and the
    # mutants no test runs triaged too (they are a weak suite's most important lessons).
    public_only: bool = False
    uncovered: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TriageResult:
    findings: tuple[Finding, ...]
    seconds: float  # wall time of the whole triage, recording included
    recording_seconds: float

    def counts(self) -> dict[str, int]:
        counts = {c.value: 0 for c in Classification}
        for finding in self.findings:
            counts[finding.classification.value] += 1
        return counts

    @property
    def verified_share(self) -> float | None:
        """Share of the triaged survivors that got a verified suggested test."""
        return sum(f.verified for f in self.findings) / len(self.findings) if self.findings else None


def triage(options: RunOptions, mutant_ids: Sequence[str] = (), *,
           settings: TriageOptions = TriageOptions(),
           progress: Callable[[Progress], None] | None = None) -> TriageResult:
    """Triage the survivors of the last run in `options.root` (only `mutant_ids` if given)."""
    started = time.monotonic()
    # Triage writes its findings into the store: never beside a run (or another triage) on it.
    with hold(options.store_path.parent):
        return _triage(options, mutant_ids, settings, progress, started)


def _triage(options: RunOptions, mutant_ids: Sequence[str], settings: TriageOptions,
            progress: Callable[[Progress], None] | None, started: float) -> TriageResult:
    store = Store.open(options.store_path)
    try:
        last = store.last_run()
        survivors = _survivors(last, mutant_ids, uncovered=settings.uncovered)
        setup = suite_setup(options, last)
        recording_started = time.monotonic()
        targets = {(_path(options, m), callee(m, last.sources[m.file])) for m in survivors if m.function}
        # The public functions that reach each survivor's function: a private helper is shown
        # through them, and so is a function no test calls (harness.triage.reach).
        targets |= {(_path(options, m), name) for m in survivors if m.function for name in _callers(last, m)}
        recorded = record_calls(setup, targets, settings.recording, options.sandbox) if survivors else {}
        recording_seconds = time.monotonic() - recording_started
        findings = _probe_all(options, setup, last, survivors, recorded, settings, progress, started)
        for finding in findings:
            store.put_extra(KIND, finding.mutant_id, finding.to_dict())
    finally:
        store.close()
    return TriageResult(findings=tuple(findings), seconds=time.monotonic() - started,
                        recording_seconds=recording_seconds)


def _survivors(last: RunResult, wanted: Sequence[str], *, uncovered: bool = False) -> list[Mutant]:
    missed = (Status.SURVIVED, Status.NO_COVERAGE) if uncovered else (Status.SURVIVED,)
    survived = {o.mutant_id for o in last.outcomes if o.status in missed}
    mutants = {m.id: m for m in last.mutants}
    for mutant_id in wanted:
        if mutant_id not in mutants:
            raise UnknownMutantError(f"no mutant with id {mutant_id!r} in the last run")
        if mutant_id not in survived:
            raise BugsmithError(f"mutant {mutant_id} did not survive the last run: nothing to triage")
    return [mutants[i] for i in (wanted or sorted(survived)) if i in mutants]


def suite_setup(options: RunOptions, last: RunResult) -> WorkerSetup:
    """The last run's tests, on the files it mutated, which must not have changed since."""
    root = options.root.resolve()
    for file, text in last.sources.items():
        path = root / file
        if not path.is_file() or read_source(path) != text:
            raise BugsmithError(f"{file} changed since the last run: run `bugsmith run` again first")
    return WorkerSetup(
        root=str(root), pytest_args=tuple(last.options.get("pytest_args", options.pytest_args)),
        test_paths=tuple(last.options.get("tests", options.tests)),
        sources=tuple(str(root / file) for file in last.sources), memory_limit_mb=options.memory_limit_mb,
    )


def _path(options: RunOptions, mutant: Mutant) -> str:
    return str(options.root.resolve() / mutant.file)


def _key(options: RunOptions, last: RunResult, mutant: Mutant) -> str:
    return target_key((_path(options, mutant), callee(mutant, last.sources[mutant.file])))


def callee(mutant: Mutant, source: str) -> str:
    """The function whose calls show the survivor: the innermost def around its site.

    `mutant.function` is the outermost one (the code the run swaps); for a site inside a nested
    function, a decorator's `wrapper` above all, the outer one runs once at import and its calls
    show nothing: triage records, replays and swaps the nested function, whose live objects
    (one wrapper per decorated function) are the ones the suite calls.
    """
    if mutant.function is None:
        return ""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return mutant.function
    found = _nested(tree, "", mutant.span.line, mutant.span.end_line)
    return found if found and found.startswith(mutant.function) else mutant.function


def _nested(node: ast.AST, prefix: str, first: int, last: int) -> str:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
                child.lineno <= first and last <= (child.end_lineno or child.lineno)):
            name = prefix + child.name
            inner = f"{name}.<locals>." if not isinstance(child, ast.ClassDef) else f"{name}."
            found = _nested(child, inner, first, last)
            return found or (name if not isinstance(child, ast.ClassDef) else "")
        if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
            if (found := _nested(child, prefix, first, last)):
                return found
    return ""


def _probe_all(options: RunOptions, setup: WorkerSetup, last: RunResult, survivors: list[Mutant],
               recorded: dict[str, tuple[RecordedCall, ...]], settings: TriageOptions,
               progress: Callable[[Progress], None] | None, started: float) -> list[Finding]:
    if not survivors:
        return []
    probes = [_probe_job(options, last, m, recorded.get(_key(options, last, m), ()), settings,
                         _through(options, last, m, recorded)) for m in survivors]
    found: dict[str, Probed] = {}
    counts: dict[str, int] = {}

    def on_probe(job: Job, verdict: Verdict) -> None:
        found[job.mutant_id] = _probed(verdict)
        kind = found[job.mutant_id].classification.value
        counts[kind] = counts.get(kind, 0) + 1
        if progress:
            progress(Progress(done=len(found), total=len(probes), counts=dict(counts),
                              elapsed=time.monotonic() - started, stage="triage"))

    # Always the fork pool, whatever the run's isolation: a probe swaps the survivor's code in and
    # out of live functions, which only a fork-server worker's child holds.
    workers = replace(options, jobs=max(1, min(options.jobs, len(probes))))
    with open_executor("fork", setup, workers) as pool:
        pool.run(probes, on_probe)
        checks = [job for m in survivors for job in _check_jobs(options, last, m, found[m.id])]
        checked: dict[str, Checked] = {}
        checks_started, done = time.monotonic(), [0]

        def on_check(job: Job, verdict: Verdict) -> None:
            _keep_checked(checked, job, verdict)
            done[0] += 1
            if progress:
                progress(Progress(done=done[0], total=len(checks), counts={},
                                  elapsed=time.monotonic() - checks_started, stage="checks"))

        pool.run(checks, on_check)
    return [_finding(m, found[m.id], checked, last.sources[m.file]) for m in survivors]


def _callers(last: RunResult, mutant: Mutant) -> tuple[str, ...]:
    return public_callers(last.sources[mutant.file], callee(mutant, last.sources[mutant.file]))


def _through(options: RunOptions, last: RunResult, mutant: Mutant,
             recorded: dict[str, tuple[RecordedCall, ...]]) -> tuple[RecordedCall, ...]:
    """The suite's calls of the survivor's public callers, each labelled with the caller it went to."""
    path = _path(options, mutant)
    return tuple(replace(call, callee=f"{mutant.module}:{name}") for name in _callers(last, mutant)
                 for call in recorded.get(target_key((path, name)), ())[:THROUGH_CALLS])


def _probe_job(options: RunOptions, last: RunResult, mutant: Mutant, calls: Sequence[RecordedCall],
               settings: TriageOptions, through: tuple[RecordedCall, ...] = ()) -> Job:
    replay = min(len(calls) * 2 * CALL_SECONDS, 60.0)
    function = callee(mutant, last.sources[mutant.file]) or None
    task = ProbeTask(mutant_id=mutant.id, operator=mutant.operator, module=mutant.module,
                     function=function or "", calls=tuple(calls),
                     search_seconds=settings.search_seconds, max_examples=settings.max_examples,
                     public_only=settings.public_only, through=through)
    return Job(mutant_id=mutant.id, module=mutant.module, path=_path(options, mutant),
               function=function, source=mutant.apply(last.sources[mutant.file]), tests=(),
               timeout=settings.search_seconds + replay + 2 * CALL_SECONDS + STARTUP_SECONDS, task=task)


def _check_jobs(options: RunOptions, last: RunResult, mutant: Mutant, found: Probed) -> list[Job]:
    """The drafted test on the original code and on the mutant, each in its own child."""
    if not found.suggested_test:
        return []
    task = CheckTask(source=found.suggested_test, name=found.test_name, seconds=CHECK_SECONDS)
    original = Job(mutant_id=f"{mutant.id}:original", module="", path="", function=None, source="",
                   tests=(), timeout=CHECK_SECONDS + STARTUP_SECONDS, task=task)
    mutated = Job(mutant_id=f"{mutant.id}:mutant", module=mutant.module, path=_path(options, mutant),
                  function=callee(mutant, last.sources[mutant.file]) or None,
                  source=mutant.apply(last.sources[mutant.file]), tests=(), timeout=CHECK_SECONDS + STARTUP_SECONDS,
                  task=task)
    return [original, mutated]


def _probed(verdict: Verdict) -> Probed:
    if isinstance(verdict.findings, Probed):
        return verdict.findings
    if verdict.timed_out:
        return Probed(error=f"the triage child ran over its limit ({verdict.elapsed:.0f} s)")
    return Probed(error=verdict.died or verdict.error or "the triage child reported nothing")


def _keep_checked(checked: dict[str, Checked], job: Job, verdict: Verdict) -> None:
    """A check's findings; a check that reported none is left out (`_verified` says "no verdict")."""
    if isinstance(verdict.findings, Checked):
        checked[job.mutant_id] = verdict.findings


def _finding(mutant: Mutant, found: Probed, checked: dict[str, Checked], source: str) -> Finding:
    if found.error:
        return Finding(mutant_id=mutant.id, classification=Classification.NOT_TRIAGED, note=found.error)
    verified, note = _verified(mutant, found, checked)
    equivalent = found.classification is Classification.POSSIBLY_EQUIVALENT
    return Finding(
        mutant_id=mutant.id, classification=found.classification, call=found.call,
        expected=found.expected, actual=found.actual, why=found.why, test=found.test, tried=found.tried,
        suggested_test=found.suggested_test, verified=verified, note=found.not_written or note,
        seconds=found.seconds, argument=equivalence_argument(source, mutant) if equivalent else "",
    )


def _verified(mutant: Mutant, found: Probed, checked: dict[str, Checked]) -> tuple[bool, str]:
    """Whether the drafted test passed on the original and failed on the mutant, else why not."""
    if not found.suggested_test:
        return False, ""
    original = checked.get(f"{mutant.id}:original")
    mutated = checked.get(f"{mutant.id}:mutant")
    if original is None or not original.passed:
        why = original.error if original is not None else "no verdict"
        return False, f"the drafted test fails on the original code: {why}"
    if mutated is not None and mutated.passed is None:
        return False, f"the drafted test could not run on the mutant: {mutated.error}"
    if mutated is None or mutated.passed:
        return False, "the drafted test passes on the mutant too: " + (
            (mutated.error if mutated else "") or "its assertions do not see the difference")
    return True, ""


def load_findings(root: Path) -> dict[str, Finding]:
    """Stored findings of a project, read-only; empty when there is no store or no triage."""
    path = root / ".bugsmith" / "bugsmith.sqlite"
    if not path.is_file():
        return {}
    store = Store.open_read_only(path)
    try:
        return stored_findings(store.extras(KIND))
    finally:
        store.close()
