"""Grade a candidate's fix: run every test on their code in a subprocess, and compare the fix.

The candidate's code is untrusted: the grader only reads it as text (to copy, diff and parse
it) and runs it in a separate `python -m pytest` process, in its own session, killed at the
time limit. The tests come from the instructor part, never from the submission.
"""

from __future__ import annotations

import ast
import difflib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.exercises.pack import instructor_folder, load_exercise
from bugsmith.harness.exercises.problems import GradingLayout, corpus_layout, grading_layout, is_reference_kit
from bugsmith.harness.exercises.records import Exercise, ExerciseError, is_hidden_test

DEFAULT_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    __test__ = False  # not a pytest test class

    id: str
    hidden: bool
    outcome: str  # passed, failed, error, skipped, not run
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Grade:
    """The grade of one submission.

    `fix` is "reference" (the code equals the reference, ignoring formatting and comments),
    "different" (every test passes but the code differs: another valid fix) or "none".
    """

    exercise_id: str
    problem: str
    tests: tuple[TestResult, ...]
    fix: str
    diff_lines: int  # lines added plus removed, against the code as handed out
    timed_out: bool
    duration: float
    detail: str = ""  # the end of pytest's output when it did not run the tests

    @property
    def passed(self) -> bool:
        return not self.timed_out and all(t.outcome == "passed" for t in self.tests)

    @property
    def restores_reference(self) -> bool:
        return self.fix in ("reference", "different")


def grade(pack: Path, exercise_id: str, submission: Path, *, timeout: float = DEFAULT_TIMEOUT) -> Grade:
    """Run the visible and held-back tests of `exercise_id` on the code in `submission`."""
    if not submission.is_dir():
        raise ExerciseError(f"{submission}: not a folder")
    with tempfile.TemporaryDirectory(prefix="bugsmith-grade-") as scratch:
        scratch_path = Path(scratch)
        instructor = instructor_folder(pack, scratch_path / "pack")
        exercise = load_exercise(instructor, exercise_id)
        layout = grading_layout(instructor / exercise_id, exercise.problem)
        handout = _read_tree(instructor / exercise_id / "handout", every_file=layout.code is not None)
        code = submitted_code(submission, exercise, layout, handout)
        work = scratch_path / "work"
        shutil.copytree(instructor / exercise_id / "tests", work)
        for path, text in code.items():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_text(text, encoding="utf-8")
        started = time.monotonic()
        timed_out, results, output = run_tests(work, layout.targets, timeout, hidden=layout.is_hidden)
    tests = tuple(results.get(t, TestResult(id=t, hidden=layout.is_hidden(t), outcome="not run"))
                  for t in (*exercise.fail_to_pass, *exercise.pass_to_pass))
    passed = not timed_out and all(t.outcome == "passed" for t in tests)
    return Grade(
        exercise_id=exercise_id, problem=exercise.problem, tests=tests,
        fix=_fix_kind(code, exercise, passed), diff_lines=diff_lines(handout, code),
        timed_out=timed_out, duration=round(time.monotonic() - started, 2),
        detail=output[-2000:] if any(t.outcome == "not run" for t in tests) else "",
    )


def submitted_code(submission: Path, exercise: Exercise, layout: GradingLayout | None = None,
                   handout: dict[str, str] | None = None) -> dict[str, str]:
    """The submission's code files of the problem (its tests, helpers and extra files are ignored).

    In a project's pack, a code file the submission lacks is taken as handed out: only the
    files with the bugs must be there.
    """
    layout = layout or corpus_layout(exercise.problem)
    if layout.code is None:
        folder = submission / layout.folder
        paths = [p for p in sorted(folder.rglob("*.py")) if folder.is_dir()
                 and not is_reference_kit(p.relative_to(submission).as_posix())]
    else:
        paths = [submission / relative for relative in layout.code]
    code = dict(handout or {}) if layout.code is not None else {}
    for path in paths:
        if path.is_file() and not path.is_symlink():
            code[path.relative_to(submission).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    missing = sorted(f for f in exercise.buggy
                     if not (submission / f).is_file() or (submission / f).is_symlink())
    if missing:
        raise ExerciseError(f"{submission}: the submission has no {missing[0]}")
    return code


def _read_tree(folder: Path, *, every_file: bool = False) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*" if every_file else "*.py")) if p.is_file()}


def run_tests(work: Path, targets: Sequence[str], timeout: float,
              hidden: Callable[[str], bool] = is_hidden_test) -> tuple[bool, dict[str, TestResult], str]:
    """Run pytest on `targets` in `work`, in a subprocess: (timed out, results by test id, output)."""
    junit = work.parent / f"{work.name}-junit.xml"
    timed_out, output = _run_pytest(work, junit, targets, timeout)
    results = _results(junit, hidden) if junit.is_file() else {}
    junit.unlink(missing_ok=True)
    return timed_out, results, output


def _run_pytest(work: Path, junit: Path, targets: Sequence[str], timeout: float) -> tuple[bool, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST", "COV_"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
               "-o", "junit_family=xunit1", *targets]
    # Output goes to a file, not a pipe: a process the candidate's code leaves behind could
    # hold a pipe open and hang the grader after the time limit.
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            # The whole session: the candidate's code may have started processes of its own.
            os.killpg(process.pid, signal.SIGKILL)
            status = process.wait()
            timed_out = True
        output.seek(0)
        return timed_out, f"pytest exit status {status}\n" + output.read().decode("utf-8", "replace")


def _results(junit: Path, hidden: Callable[[str], bool]) -> dict[str, TestResult]:
    try:
        tree = ElementTree.parse(junit)
    except ElementTree.ParseError:
        return {}
    results = {}
    for case in tree.iter("testcase"):
        test_id = _node_id(case)
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            child = case.find(tag)
            if child is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (child.get("message") or "").splitlines()[0][:300] if child.get("message") else ""
                break
        results[test_id] = TestResult(id=test_id, hidden=hidden(test_id), outcome=outcome,
                                      message=message)
    return results


def _node_id(case: ElementTree.Element) -> str:
    """The pytest node id of a junit testcase (xunit1 records the file)."""
    file = case.get("file", "")
    module = file.removesuffix(".py").replace("/", ".")
    classname = case.get("classname", "")
    inner = classname[len(module) + 1:] if classname.startswith(module + ".") else ""
    classes = inner.split(".") if inner else []
    return "::".join(part for part in (file, *classes, case.get("name", "")) if part)


def _normalised(text: str) -> str | None:
    try:
        return ast.dump(ast.parse(text))
    except (SyntaxError, ValueError):
        return None


def _fix_kind(code: dict[str, str], exercise: Exercise, passed: bool) -> str:
    same = all(_normalised(code[f]) == _normalised(exercise.reference[f]) for f in exercise.reference)
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
