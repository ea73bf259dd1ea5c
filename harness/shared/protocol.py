"""The messages between the coordinator and the processes that run tests: typed records, as JSON lines.

A job is one mutant with the tests to run and the time limit; a verdict is what happened,
measured where it happened. The coordinator turns verdicts into Outcomes (harness.verdict). A
job that does other work than run tests carries a task, and its verdict that work's findings
(harness.shared.tasks). Every record has one serialiser (`to_dict` / `from_dict`): nothing crosses a
process boundary as a bare string-keyed dict.

Both sides of the process boundary import this module: it imports no other part of the
harness than harness.shared.tasks.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import IO, Any, Protocol, TypeVar

from bugsmith.harness.shared.tasks import Findings, Task, findings_from_dict, task_from_dict

# Seconds a fresh interpreter may take to start and collect: a worker's child that must run its
# job in one asks for them (Note.extend), and the coordinator's backstop allows for them.
FRESH_IMPORT_ALLOWANCE = 30.0
# A test never runs longer than this many times its limit by the wall clock, however long it
# waited for a core on a loaded machine (harness.child.test_clock): what the coordinator's own
# patience allows for.
STRETCH = 5.0


class TestOutcome(enum.StrEnum):
    """What happened to one test. A run of a job's tests (TestResult) records PASSED or FAILED: a
    skip or an expected failure is not a failure. Grading a candidate's fix
    (harness.exercises.judge) records any of them."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # its setup or teardown failed, its file could not be collected, or its process died
    SKIPPED = "skipped"
    TIMEOUT = "timeout"
    NOT_RUN = "not run"


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    """One test phase that did not simply pass, or a whole test's pass (harness.child.recorder)."""

    __test__ = False  # not a pytest test class

    id: str
    outcome: TestOutcome  # PASSED or FAILED
    when: str
    exception: str | None = None
    message: str = ""
    in_source: bool = False  # the exception passed through the code under test
    duration: float = 0.0

    @property
    def failure_line(self) -> str:
        """The failure in one line, for an error message about a red baseline."""
        return f"{self.exception}: {self.message}".splitlines()[0][:200]

    def to_dict(self) -> dict[str, Any]:
        # Not asdict: this runs once per test of every mutant, and its values are all flat.
        return {field: getattr(self, field) for field in _TEST_RESULT_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TestResult:
        return cls(**{**data, "outcome": TestOutcome(data["outcome"])})


_TEST_RESULT_FIELDS = tuple(field.name for field in fields(TestResult))


@dataclass(frozen=True, slots=True, kw_only=True)
class Patch:
    """One mutated file to activate: its module, path, enclosing function and whole text."""

    module: str
    path: str  # absolute
    function: str | None
    source: str
    unit: str = ""  # the mutated top-level statement alone, at its lines (harness.units)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Patch:
        return cls(**data)


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    mutant_id: str
    module: str
    path: str  # absolute path of the mutated file
    function: str | None
    source: str  # the whole mutated file; "" runs the unmutated code (a control)
    tests: tuple[str, ...]  # node ids, fastest first
    timeout: float
    stop_on_failure: bool = True  # False: run every test, e.g. to validate an exercise
    limits: tuple[float, ...] = ()  # per-test time limits, in test order (else `timeout`)
    # Shorter per-test limits for the job's first run, in place of `limits` (harness.job_plan
    # PROBE_BASE); its confirmations (harness.executors.base) set `limits` and no probes.
    probes: tuple[float, ...] = ()
    extra: tuple[Patch, ...] = ()  # more mutated functions activated together (K bugs)
    task: Task | None = None  # other work than the tests: a baseline chunk, a triage probe
    unit: str = ""  # the mutated top-level statement alone, at its lines (harness.units)

    @classmethod
    def unmutated(cls, mutant_id: str, tests: tuple[str, ...], timeout: float) -> Job:
        """A job that runs every one of `tests` on the original code (a control run)."""
        return cls(mutant_id=mutant_id, module="", path="", function=None, source="",
                   tests=tests, timeout=timeout, stop_on_failure=False)

    @property
    def enforced(self) -> tuple[float, ...]:
        """The per-test limits this run of the job is held to, in test order (empty: `timeout`)."""
        return self.probes or self.limits

    @property
    def test_files(self) -> list[str]:
        """The files of its tests, each once, in the order of its tests: what pytest is given."""
        return list(dict.fromkeys(test.split("::", 1)[0] for test in self.tests))

    @property
    def patches(self) -> tuple[Patch, ...]:
        first = Patch(module=self.module, path=self.path, function=self.function, source=self.source,
                      unit=self.unit)
        return ((first,) if self.source else ()) + self.extra

    def to_dict(self) -> dict[str, Any]:
        return {**{field.name: getattr(self, field.name) for field in fields(self)},
                "extra": [patch.to_dict() for patch in self.extra],
                "task": None if self.task is None else self.task.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Job:
        task = data.get("task")
        return cls(**{**data, "tests": tuple(data["tests"]), "limits": tuple(data.get("limits", ())),
                      "probes": tuple(data.get("probes", ())),
                      "extra": tuple(Patch.from_dict(p) for p in data.get("extra", ())),
                      "task": None if task is None else task_from_dict(task)})


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """Raw facts from the process that ran a job."""

    mutant_id: str
    results: tuple[TestResult, ...] = ()  # in run order
    missing: tuple[str, ...] = ()  # selected tests the runner could not find
    error: str | None = None  # activation or machinery failure
    timed_out: bool = False
    running: str | None = None  # the test that was running when its time ran out
    died: str | None = None  # how the process ended without reporting, if it did
    elapsed: float = 0.0
    cpu: float | None = None  # CPU seconds the test process used, where the OS tells
    waited: float = 0.0  # of `elapsed`, seconds it was ready to run but had no core (a loaded machine)
    fresh_import: bool = False
    findings: Findings | None = None  # what the job's task found
    # Files the job created, changed or deleted in the project or its copy (absolute paths),
    # which its private view kept to itself (harness.child.private_view); and why it had no
    # private view, when it had none.
    wrote: tuple[str, ...] = ()
    shared_view: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**{field.name: getattr(self, field.name) for field in fields(self)},
                "results": [result.to_dict() for result in self.results],
                "findings": None if self.findings is None else self.findings.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Verdict:
        findings = data.get("findings")
        return cls(**{**data, "results": tuple(TestResult.from_dict(r) for r in data.get("results", ())),
                      "missing": tuple(data.get("missing", ())), "wrote": tuple(data.get("wrote", ())),
                      "findings": None if findings is None else findings_from_dict(findings)})


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerSetup:
    """What a process that runs tests needs to collect the suite."""

    root: str
    pytest_args: tuple[str, ...]
    test_paths: tuple[str, ...]
    sources: tuple[str, ...]  # absolute paths of the files under mutation
    memory_limit_mb: int
    # The user's project when `root` is a private copy of it (harness.executors.project_copy): imports
    # that resolve into it are served from the copy, and test tools keep their state there.
    origin: str = ""
    # An empty folder a job's private view mounts its scratch space on (harness.child.private_view):
    # each job then reads the project, its copy and the temporary folder as synced and writes only
    # into a view of its own. Empty: the jobs share the files they run in.
    scratch: str = ""

    @property
    def project(self) -> str:
        """The user's project root, whether the tests run in it or in a copy of it."""
        return self.origin or self.root

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkerSetup:
        return cls(**{**data, "pytest_args": tuple(data["pytest_args"]),
                      "test_paths": tuple(data["test_paths"]), "sources": tuple(data["sources"])})


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready:
    """A worker's first message: the tests it collected, or why it could not collect them."""

    tests: tuple[str, ...] = ()  # node ids, in collection order
    files: tuple[str, ...] = ()  # each test's file, relative to the root
    error: str | None = None
    # A zygote's: the modules a preloader may import for the next run (harness.shared.preload), and
    # the top-level names of the pytest plugins it must not import.
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    environ: dict[str, str | None] = field(default_factory=dict)  # what its start-up set (None: removed)
    outgrown: bool = False  # forked by a preloader, it imported more that one could hold

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ready:
        return cls(tests=tuple(data.get("tests", ())), files=tuple(data.get("files", ())),
                   error=data.get("error"), modules=tuple(data.get("modules", ())),
                   plugins=tuple(data.get("plugins", ())), environ=dict(data.get("environ", {})),
                   outgrown=bool(data.get("outgrown", False)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """A message ahead of a job's verdict from the process that runs its tests: a test's result as
    soon as it ends (so that it survives a later crash), more time for a fresh import, or the test
    that starts now (so that a watchdog's kill can name it)."""

    result: TestResult | None = None
    extend: float = 0.0
    running: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"result": None if self.result is None else self.result.to_dict(),
                "extend": self.extend, "running": self.running}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Note:
        result = data.get("result")
        return cls(result=None if result is None else TestResult.from_dict(result),
                   extend=data.get("extend", 0.0), running=data.get("running"))


def child_message(data: Mapping[str, Any]) -> Verdict | Note:
    """A line from the process that runs a job's tests: the Verdict (it names the mutant) or a Note."""
    return Verdict.from_dict(data) if "mutant_id" in data else Note.from_dict(data)


class Message(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


M = TypeVar("M")


def encode(message: Message) -> bytes:
    """One JSON line."""
    return json.dumps(message.to_dict()).encode() + b"\n"


def send(stream: IO[bytes], message: Message) -> None:
    stream.write(encode(message))
    stream.flush()


# A job is a line of tens of kilobytes (its mutated file, twice): read from an unbuffered stream,
# readline makes one system call per byte, where a buffer makes one per JOB_BUFFER bytes.
# Every process the coordinator starts reads through a buffer of this size
# (harness.child.session.protocol_streams); only a stream that also carries descriptors (the
# zygote's) stays unbuffered.
JOB_BUFFER = 1 << 16


def receive(stream: IO[bytes], decode: Callable[[dict[str, Any]], M]) -> M | None:
    """The next message, read with the record's own `from_dict`; None at the end of the stream."""
    line = stream.readline()
    if not line:
        return None
    return decode(json.loads(line))
