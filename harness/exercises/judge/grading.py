"""Grade a candidate's fix: the tests and the reference's outputs, with a verdict their code cannot forge.

The submission is untrusted and may be written to cheat. Its code files are read as text
(never through a link, `submission`) into a work folder of the grader's, with the pack's
tests; every process that runs its code is a bubblewrap sandbox (`harness.shared.sandbox`) that
sees that folder read-only, and nothing of the instructor's pack, the checkout or
bugsmith's reference solutions. The verdict is decided here, in a process the submission's
code never ran in, from three pieces of evidence:

1. The tests, one sandboxed pytest process per file, each test's outcome streamed back as
   data (never a report file the submission could rewrite); a test that hangs costs that
   test (`suite_runs`).
2. Canaries (`canaries`): copies of held-back tests that must fail, planted among them;
   one reported passed, or never reported, means the reporting was tampered with.
3. The differential check (`differential`): the reference solution's outputs on the suite's
   own calls, recorded in a sandbox without the submission, against the submission's
   outputs on the same arguments, computed in a sandbox without the tests; compared here.

It passes only if every test passes, no canary does, and the outputs agree.

Beside the verdict, never inside it, the grade reports how the candidate worked (`process`):
the record of their test runs that the handed-out folder keeps (`attempt_log`), read against
the code as handed out, the exercise's fix and the submitted code.

A handout names a built-in problem's package without `reference/` (`handout_names`); the
submission, the instructor's handout/ copy and the log are read back to the project's names
first, so everything here runs in the project's layout, as the grader's kit has it.
"""

from __future__ import annotations

import difflib
import json
import random
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bugsmith.harness.exercises.judge import sandboxed
from bugsmith.harness.exercises.judge.attempt_log import in_project_names, read_attempt
from bugsmith.harness.exercises.judge.canaries import Canary, plant
from bugsmith.harness.exercises.judge.differential import Differential, record, replay
from bugsmith.harness.exercises.judge.process import NOT_READ, Process, judge
from bugsmith.harness.exercises.judge.submission import recognise, submitted_code
from bugsmith.harness.exercises.judge.suite_runs import SuiteRun, covers, run_files
from bugsmith.harness.exercises.measure.clues import code_shape
from bugsmith.harness.exercises.pack.pack import instructor_folder, load_exercise
from bugsmith.harness.exercises.records import Exercise, ExerciseError, is_hidden_test
from bugsmith.harness.exercises.sources.handout_names import HandoutNames, pack_names
from bugsmith.harness.exercises.sources.layout import shown_line
from bugsmith.harness.exercises.sources.problems import GradingLayout, grading_layout
from bugsmith.harness.exercises.sources.told_code import told_code
from bugsmith.harness.shared.protocol import TestOutcome
from bugsmith.harness.shared.sandbox import Limits, Mount, Sandbox, bugsmith_folders, require_bwrap

DEFAULT_TIMEOUT = 600.0  # the whole grading
DEFAULT_TEST_TIMEOUT = 60.0  # one test
WORK, KIT, INPUT = "/sandbox/work", "/sandbox/kit", "/sandbox/input"
KIT_PACKAGE = "bugsmith_grading"
SCHEMA_FILE = "grade.schema.json"

__all__ = ["BugResult", "Grade", "TestResult", "grade", "grade_schema", "run_tests", "submitted_code"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    __test__ = False  # not a pytest test class

    id: str
    hidden: bool
    outcome: TestOutcome  # any member
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BugResult:
    """One bug of a multi-bug exercise: fixed when the tests it fails on its own pass."""

    index: int  # 1-based, in the order of the exercise's mutants
    location: str
    fixed: bool | None  # None: the pack does not record which tests each bug fails
    failing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Grade:
    """The grade of one submission.

    `fix` is "reference" (the code equals the reference, ignoring formatting and comments),
    "different" (it passes but the code differs: another valid fix) or "none". `tampering`
    says why the sandboxed reporting cannot be believed; `differential` is None when the
    tests already fail (the check could only confirm that).
    """

    exercise_id: str
    problem: str
    tests: tuple[TestResult, ...]
    fix: str
    diff_lines: int  # lines added plus removed, against the code as handed out
    timed_out: bool
    duration: float
    detail: str = ""  # the end of pytest's output when it did not run the tests
    sandboxed: bool = True
    canaries: int = 0
    tampering: tuple[str, ...] = ()
    differential: Differential | None = None
    bugs: tuple[BugResult, ...] = ()
    process: Process = NOT_READ  # how the candidate worked, from their log of test runs; never in `passed`
    # The package level the handout dropped ("reference" for a built-in problem): what a format a
    # student reads (Gradescope's) renames test ids by, so they name the files the student has.
    handout_level: str = ""

    @property
    def tests_pass(self) -> bool:
        return not self.timed_out and all(t.outcome == TestOutcome.PASSED for t in self.tests)

    @property
    def passed(self) -> bool:
        return (self.tests_pass and not self.tampering
                and (self.differential is None or self.differential.agrees))

    @property
    def restores_reference(self) -> bool:
        return self.fix in ("reference", "different")

    def to_dict(self) -> dict[str, Any]:
        """The `bugsmith grade --json` record (grade.schema.json)."""
        record = asdict(self)
        record["process"] = self.process.to_dict()
        return {**record, "passed": self.passed, "restores_reference": self.restores_reference}


def grade_schema() -> dict[str, Any]:
    """The JSON schema of `Grade.to_dict()`, the output of `bugsmith grade --json`."""
    from importlib import resources

    return json.loads(resources.files("bugsmith.harness.exercises").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def grade(pack: Path, exercise_id: str, submission: Path, *, timeout: float = DEFAULT_TIMEOUT,
          test_timeout: float = DEFAULT_TEST_TIMEOUT, sandbox: bool = True, seed: int | None = None) -> Grade:
    """Grade the code in `submission` on `exercise_id`; `sandbox=False` runs it unconfined (trusted code only)."""
    if not submission.is_dir():
        raise ExerciseError(f"{submission}: not a folder")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bugsmith-grade-") as scratch_name:
        scratch = Path(scratch_name)
        instructor = instructor_folder(pack, scratch / "pack")
        exercise = load_exercise(instructor, exercise_id)
        layout = grading_layout(instructor / exercise_id, exercise.problem)
        names = pack_names(instructor / exercise_id, exercise.problem)
        handed = _read_tree(instructor / exercise_id / "handout", every_file=layout.code is not None)
        handout = names.project_files(handed)
        recognise(submission, exercise, instructor)
        code = submitted_code(submission, exercise, layout, handout, names)
        process = _process(submission, exercise, layout, code, handed=handed, names=names)
        if sandbox:  # before anything runs: never a silent fallback to unconfined grading
            require_bwrap()
        places = _Places(scratch, isolated=sandbox, hidden=(pack.resolve(), instructor.resolve()))
        checked = _check(places, instructor / exercise_id / "tests", exercise, layout, handout, code,
                         random.Random(secrets.randbits(64) if seed is None else seed),
                         deadline=started + timeout, test_timeout=test_timeout)
    suite = checked.suite
    draft = Grade(
        exercise_id=exercise_id, problem=exercise.problem, tests=checked.tests, fix="none",
        diff_lines=diff_lines(handout, code), timed_out=suite.timed_out, duration=round(time.monotonic() - started, 2),
        detail=(suite.output[-2000:]
                if any(t.outcome in (TestOutcome.NOT_RUN, TestOutcome.ERROR) for t in checked.tests) else ""),
        sandboxed=sandbox, canaries=checked.canaries, tampering=checked.tampering,
        differential=checked.differential, bugs=() if checked.tampering else _bugs(exercise, checked.tests),
        process=process, handout_level=names.level,
    )
    return replace(draft, fix=_fix_kind(code, exercise, draft.passed))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Checked:
    suite: SuiteRun
    tests: tuple[TestResult, ...]
    canaries: int
    tampering: tuple[str, ...]
    differential: Differential | None


def _check(places: _Places, kit: Path, exercise: Exercise, layout: GradingLayout, handout: dict[str, str],
           code: dict[str, str], rng: random.Random, *, deadline: float, test_timeout: float) -> _Checked:
    """The three pieces of evidence: the tests with their canaries, then (if they pass) the outputs."""
    tests = _all_tests(exercise)
    work = places.folder("work", kit, code)
    hidden_files = sorted({t.split("::", 1)[0] for t in tests if layout.is_hidden(t)})
    canaries = plant(work, hidden_files, rng, only={t.split("[", 1)[0] for t in tests})
    places.readable(work)
    reference = places.folder("reference", kit, {**handout, **exercise.reference})
    replayed = places.folder("replay", None, {**_package_inits(kit), **handout, **code})
    code_files = sorted({f for f in handout if f.endswith(".py")} | set(exercise.reference))
    cancel = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        # The reference's recording runs beside the submission's tests, and stops as soon as
        # the tests decide without it (the outputs can only turn a pass into a fail).
        recording = pool.submit(record, places.sandbox(reference, places.input("record")),
                                places.input("record") / "request.json", code_files,
                                sorted({t.split("::", 1)[0] for t in tests}),
                                deadline=max(deadline, time.monotonic() + DEFAULT_TIMEOUT), cancelled=cancel)
        try:
            suite = run_files(places.sandbox(work), _groups(tests, canaries, rng), test_seconds=test_timeout,
                              deadline=deadline)
            results = _test_results(exercise, suite, layout.is_hidden)
            tampering = _tampering(suite, canaries)
            differential = None
            if not suite.timed_out and not tampering and all(t.outcome == TestOutcome.PASSED for t in results):
                replay_input = places.input("replay")
                differential = replay(places.sandbox(replayed, replay_input), replay_input / "request.json",
                                      recording.result(), deadline=max(deadline, time.monotonic() + 120))
        finally:
            cancel.set()
    return _Checked(suite=suite, tests=results, canaries=len(canaries), tampering=tampering,
                    differential=differential)


def run_tests(work: Path, targets: Sequence[str], timeout: float, hidden: Callable[[str], bool] = is_hidden_test,
              *, sandboxed: bool = False) -> tuple[bool, dict[str, TestResult], str]:
    """Run the tests `targets` (node ids) on the code in `work` as it is: (timed out, results, output).

    Unconfined unless `sandboxed`: for trusted code (a reference solution, a known bug).
    """
    with tempfile.TemporaryDirectory(prefix="bugsmith-tests-") as scratch:
        places = _Places(Path(scratch), isolated=sandboxed, hidden=())
        if sandboxed:
            places.readable(work)
        by_file: dict[str, list[str]] = {}
        for test in targets:
            by_file.setdefault(test.split("::", 1)[0], []).append(test)
        suite = run_files(places.sandbox(work), list(by_file.values()), test_seconds=timeout,
                          deadline=time.monotonic() + timeout)
    results = {i: TestResult(id=i, hidden=hidden(i), outcome=r.outcome, message=r.message)
               for i, r in suite.results.items()}
    return suite.timed_out, results, suite.output


class _Places:
    """The grader's scratch folders, and the sandboxes that see them."""

    def __init__(self, scratch: Path, *, isolated: bool, hidden: tuple[Path, ...]) -> None:
        self.scratch = scratch
        self.isolated = isolated
        self.hidden = (*hidden, *bugsmith_folders())
        self.kit = scratch / "kit"
        (self.kit / KIT_PACKAGE).mkdir(parents=True)
        for module in Path(sandboxed.__file__).parent.glob("*.py"):
            shutil.copyfile(module, self.kit / KIT_PACKAGE / module.name)
        self.readable(self.kit)
        self.tmp = scratch / "tmp"  # unconfined runs only: a sandbox has its own /tmp
        self.tmp.mkdir()

    def folder(self, name: str, tests: Path | None, files: dict[str, str]) -> Path:
        """A new folder with a copy of `tests` (a folder) and `files` (relative path -> text) over it."""
        folder = self.scratch / name
        if tests is not None:
            shutil.copytree(tests, folder)
        folder.mkdir(exist_ok=True)
        for relative, text in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text, encoding="utf-8")
        self.readable(folder)
        return folder

    def input(self, name: str) -> Path:
        folder = self.scratch / f"input-{name}"
        folder.mkdir(exist_ok=True)
        self.readable(folder)
        return folder

    def readable(self, folder: Path) -> None:
        """Readable by the sandbox's user (`nobody` when the grader runs as root), writable by no one else."""
        folder.chmod(0o755)
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)

    def sandbox(self, work: Path, input_folder: Path | None = None) -> Sandbox:
        places = [(work, WORK), (self.kit, KIT)] + ([(input_folder, INPUT)] if input_folder else [])
        mounts = tuple(Mount(source=source, target=target if self.isolated else str(source))
                       for source, target in places)
        tmp = "/tmp" if self.isolated else str(self.tmp)
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "TMPDIR": tmp,
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
               "PYTHONPATH": mounts[1].target, "HYPOTHESIS_STORAGE_DIRECTORY": f"{tmp}/.hypothesis",
               # The corpus's hypothesis profile skips shrinking a failing example under this:
               # a failure is all a grade needs, and shrinking costs seconds per test.
               "BUGSMITH_MUTANT_RUN": "1",
               # One thread per numeric library: threads count against the process limit.
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        return Sandbox(mounts=mounts, workdir=mounts[0].target, env=env, hidden=self.hidden, limits=Limits(),
                       isolated=self.isolated)


def _process(submission: Path, exercise: Exercise, layout: GradingLayout, code: dict[str, str], *,
             handed: dict[str, str], names: HandoutNames) -> Process:
    """How the candidate worked, from the log in their folder, verified against the instructor's
    handout (`handed`: its files under the names `names` handed them out with)."""
    handout = names.project_files(handed)
    log = in_project_names(read_attempt(submission, handed), names)
    # The solution as the candidate would write it: the reference as the handout tells it.
    solution = {**handout, **{f: told_code(text, exercise.difficulty.level) for f, text in exercise.reference.items()}}
    return judge(log, handout=handout, code=code, solution=solution,
                 visible=[t for t in _all_tests(exercise) if not layout.is_hidden(t)], fill=layout.code is not None)


def _all_tests(exercise: Exercise) -> tuple[str, ...]:
    return (*exercise.fail_to_pass, *exercise.pass_to_pass)


def _groups(tests: Sequence[str], canaries: Sequence[Canary], rng: random.Random) -> list[list[str]]:
    """The tests by file, each canary at a random place among its file's tests."""
    by_file: dict[str, list[str]] = {}
    for test in tests:
        by_file.setdefault(test.split("::", 1)[0], []).append(test)
    for canary in canaries:
        group = by_file.setdefault(canary.file, [])
        group.insert(rng.randint(0, len(group)), canary.id)
    return list(by_file.values())


def _package_inits(tests: Path) -> dict[str, str]:
    """The `__init__.py` files of the grader's kit: the packages the code is imported through."""
    return {p.relative_to(tests).as_posix(): p.read_text(encoding="utf-8") for p in tests.rglob("__init__.py")}


def _test_results(exercise: Exercise, suite: SuiteRun, hidden: Callable[[str], bool]) -> tuple[TestResult, ...]:
    results = []
    for test in _all_tests(exercise):
        found = suite.results.get(test)
        results.append(TestResult(id=test, hidden=hidden(test), outcome=found.outcome if found else TestOutcome.NOT_RUN,
                                  message=found.message if found else ""))
    return tuple(results)


def _tampering(suite: SuiteRun, canaries: Sequence[Canary]) -> tuple[str, ...]:
    """Why the sandboxed reporting cannot be believed (empty when nothing says so)."""
    reasons = []
    for canary in canaries:
        outcomes = [r.outcome for test, r in suite.results.items() if covers(canary.id, test)]
        if not outcomes:
            reasons.append("a canary test (one that fails on every implementation) was never reported")
        elif any(o in (TestOutcome.PASSED, TestOutcome.SKIPPED) for o in outcomes):
            reasons.append("a canary test (one that fails on every implementation) was reported as passed")
    missing = [m for m in suite.missing if not any(m == c.id for c in canaries)]
    if missing:
        reasons.append(f"{len(missing)} tests asked for were never reported (e.g. {missing[0]})")
    return tuple(dict.fromkeys(reasons))


def _bugs(exercise: Exercise, tests: Sequence[TestResult]) -> tuple[BugResult, ...]:
    """Per bug of a multi-bug exercise: fixed when the tests only it fails pass (all its tests, if none is its own)."""
    if len(exercise.mutants) < 2:
        return ()
    outcome = {t.id: t.outcome for t in tests}
    found = []
    for i, mutant in enumerate(exercise.mutants):
        where = f" ({mutant.function})" if mutant.function else ""
        location = f"{mutant.file}:{shown_line(exercise, mutant)}{where}"
        if len(exercise.bug_tests) != len(exercise.mutants):
            found.append(BugResult(index=i + 1, location=location, fixed=None))
            continue
        own = exercise.bug_tests[i]
        others = {t for j, tests_j in enumerate(exercise.bug_tests) if j != i for t in tests_j}
        telling = [t for t in own if t not in others] or list(own)
        failing = tuple(t for t in telling if outcome.get(t) != TestOutcome.PASSED)
        found.append(BugResult(index=i + 1, location=location, fixed=not failing, failing=failing))
    return tuple(found)


def _read_tree(folder: Path, *, every_file: bool = False) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*" if every_file else "*.py")) if p.is_file()}


def _fix_kind(code: dict[str, str], exercise: Exercise, passed: bool) -> str:
    # Without docstrings: a medium or hard handout may have lost a docstring sentence that gave
    # the bug away, and a fix that restores the code is still the reference's.
    same = all(code_shape(code.get(f, "")) == code_shape(exercise.reference[f]) for f in exercise.reference)
    if same:
        return "reference"
    return "different" if passed else "none"


def diff_lines(before: dict[str, str], after: dict[str, str]) -> int:
    """Lines added plus lines removed, over every file of either side."""
    total = 0
    for file in sorted(set(before) | set(after)):
        old, new = before.get(file, "").splitlines(), after.get(file, "").splitlines()
        for line in difflib.unified_diff(old, new, n=0, lineterm=""):
            if line[:1] in "+-" and not line.startswith(("+++", "---")):
                total += 1
    return total
