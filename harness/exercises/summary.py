"""Plain-text summaries of exercises, grades and suite scores, for the CLI to print."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bugsmith.harness.exercises.assemble.stats import ProblemPool
from bugsmith.harness.exercises.judge.attempt_log import LogStatus
from bugsmith.harness.exercises.judge.grading import Grade
from bugsmith.harness.exercises.judge.process import Process
from bugsmith.harness.exercises.judge.scoring import SuiteScore
from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.outcome import Status
from bugsmith.harness.shared.protocol import TestOutcome


def statistics(exercises: Sequence[Exercise]) -> dict[str, Any]:
    """Counts per family and problem, the share of silent bugs, the difficulty distribution."""
    families = Counter(f for e in exercises for f in e.families)
    scores = Counter(e.difficulty.score for e in exercises)
    levels = Counter(e.difficulty.level for e in exercises)
    return {
        "exercises": len(exercises),
        "per_problem": dict(sorted(Counter(e.problem for e in exercises).items())),
        "per_family": dict(sorted(families.items())),
        "silent_share": round(sum(e.silent for e in exercises) / len(exercises), 3) if exercises else None,
        "difficulty": dict(sorted(scores.items())),
        "levels": {level: levels.get(level, 0) for level in ("easy", "medium", "hard")},
    }


def exercises_text(exercises: Sequence[Exercise]) -> str:
    lines = [f"{e.id}  {e.problem:<17} {', '.join(e.operators):<34} {'silent' if e.silent else 'loud  '} "
             f"difficulty {e.difficulty.score:>2} ({e.difficulty.level})  failing {len(e.fail_to_pass)}"
             for e in exercises]
    stats = statistics(exercises)
    lines.append(
        f"{stats['exercises']} exercises; silent {100 * (stats['silent_share'] or 0):.0f}%; per family "
        + ", ".join(f"{k} {v}" for k, v in stats["per_family"].items())
        + "; difficulty " + ", ".join(f"{k}: {v}" for k, v in stats["levels"].items()))
    return "\n".join(lines)


FIX_KINDS = {"reference": "restores the reference code",
             "different": "a different valid fix (it passes, the code differs from the reference)",
             "none": "not fixed"}
SHOWN_FAILURES = 3


def grade_text(grade: Grade, *, verbose: bool = False) -> str:
    """A short summary of a grade (every test too when `verbose`)."""
    lines = []
    if verbose:
        lines += [f"{'hidden ' if t.hidden else 'visible'}  {t.outcome:<8} {t.id}"
                  + (f"\n    {t.message}" if t.message and t.outcome != TestOutcome.PASSED else "")
                  for t in grade.tests]
    lines.append(f"{grade.exercise_id} ({grade.problem}): {'PASS' if grade.passed else 'FAIL'}:"
                 f" {verdict_reason(grade)}")
    lines.append("  tests      " + _tests_line(grade))
    if not verbose:
        for test in [t for t in grade.tests if t.outcome != TestOutcome.PASSED][:SHOWN_FAILURES]:
            lines.append(f"             {test.outcome}: {test.id}" + (f": {test.message}" if test.message else ""))
    for bug in grade.bugs:
        state = {True: "fixed", False: f"not fixed ({len(bug.failing)} of its tests fail)",
                 None: "unknown (this pack does not record which tests each bug fails)"}[bug.fixed]
        lines.append(f"  bug {bug.index}      {bug.location}: {state}")
    lines.append("  reporting  " + ("TAMPERED WITH: " + "; ".join(grade.tampering) if grade.tampering
                                    else f"honest ({grade.canaries} canary tests failed, as they must)"))
    lines.append("  outputs    " + _outputs_line(grade))
    where = ("sandboxed (bubblewrap)" if grade.sandboxed
             else "NOT SANDBOXED (--no-sandbox): the submission's code ran with your rights")
    lines.append(f"  fix        {FIX_KINDS[grade.fix]}; diff {grade.diff_lines} lines; {grade.duration:.1f} s; {where}")
    lines += _process_section(grade.process)
    if grade.detail:
        lines += ["  output of the last test run:", *("    " + line for line in grade.detail.splitlines()[-20:])]
    return "\n".join(lines)


SHOWN_RUNS = 12  # failing counts listed in the Process section; the rest are in --json
PROCESS_INDENT = " " * 13  # the column the text summary's values start at


def process_lines(process: Process) -> list[str]:
    """The Process section as plain lines, for any format: how the candidate worked, from their own
    log, beside (never in) the verdict; the last line is their change against the fix's.

    These lines name the fix's size and the functions it touches: they are for the instructor
    (Gradescope keeps them out of what a student sees)."""
    worked, change = _process_parts(process)
    return [*worked, f"change {change}"]


def _process_section(process: Process) -> list[str]:
    """`process_lines` laid out in the text summary's columns."""
    worked, change = _process_parts(process)
    return [f"  process    {worked[0]}", *(PROCESS_INDENT + line for line in worked[1:]), f"  change     {change}"]


def _process_parts(process: Process) -> tuple[list[str], str]:
    """What the log shows (at least one line), and the change line without its label."""
    change = process.change
    changed = (f"{change.lines} lines (the fix: {change.solution_lines}) in "
               + (", ".join(function_names(change.functions)) or "nothing")
               + (f": {change.verdict}" if change.verdict else ""))
    if process.log in (LogStatus.MISSING, LogStatus.BROKEN):
        return [f"log {process.log}: {process.note}; the end state is graded as usual"], changed
    runs = process.runs
    lines = ["from the candidate's own log (.attempt/ in their folder: they could edit it): "
             + _count(len(runs), "run")
             + (f" over {process.minutes_total} min, {_count(process.code_states, 'code state')}" if runs else "")]
    if process.log == LogStatus.STALE:
        lines.append(f"log stale: {process.note}")
    if process.tests_first is not None:
        narrowed = _yes(process.narrowed) + (f" ({process.narrowest} at fewest)" if process.narrowest else "")
        untested = f" ({_count(process.untested_states, 'code state')} never run)" if process.untested_states else ""
        lines.append(f"tests first: {_yes(process.tests_first)}; re-run after each change:"
                     f" {_yes(process.rerun_after_each_change)}{untested}; narrowed to failing tests: {narrowed}")
    if runs:
        failing = ", ".join(str(r.failed) for r in runs[:SHOWN_RUNS]) + (", ..." if len(runs) > SHOWN_RUNS else "")
        lines.append(f"failing per run: {failing}; {_green_text(process)}; reverted: {reverts_text(process)};"
                     f" outside the fix: {', '.join(function_names(process.outside_ever)) or 'none'}")
    return lines, changed


def _green_text(process: Process) -> str:
    """When the first green run came, or that none did."""
    if process.minutes_to_green is None:
        return "never green"
    return f"green after {process.minutes_to_green} min"


def reverts_text(process: Process) -> str:
    """The runs whose code went back to an earlier state, and to which, or "none"."""
    return ", ".join(f"run {r.run} to {f'run {r.back_to}' if r.back_to else 'the handout'}"
                     for r in process.reverted) or "none"


def function_names(names: Sequence[str]) -> list[str]:
    """`file::function` as `function` when every name is in one file."""
    if len({name.split("::", 1)[0] for name in names}) == 1:
        return [name.split("::", 1)[1] for name in names]
    return list(names)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _yes(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]


def verdict_reason(grade: Grade) -> str:
    """Why the grade passed or failed, in a few words."""
    if grade.tampering:
        return "the test reporting was tampered with"
    if grade.timed_out:
        return "the grading ran out of time"
    if not grade.tests_pass:
        return "some tests fail"
    if grade.differential is not None and not grade.differential.agrees:
        return "the tests pass, but the code's outputs differ from the reference's"
    return "every test passes" + (" and the outputs agree with the reference" if grade.differential
                                  and grade.differential.calls else "")


def _tests_line(grade: Grade) -> str:
    passed = sum(t.outcome == TestOutcome.PASSED for t in grade.tests)
    failing = [t for t in grade.tests if t.outcome != TestOutcome.PASSED]
    line = f"{passed}/{len(grade.tests)} pass"
    if failing:
        hidden = sum(t.hidden for t in failing)
        line += f"; {len(failing)} do not ({len(failing) - hidden} visible, {hidden} held back)"
    timeouts = sum(t.outcome == TestOutcome.TIMEOUT for t in grade.tests)
    if timeouts:
        line += f"; {timeouts} ran past the time limit per test"
    return line + ("; the grading ran out of time" if grade.timed_out else "")


def _outputs_line(grade: Grade) -> str:
    check = grade.differential
    if check is None:
        return "not compared (the verdict is already a fail)"
    if not check.calls:
        return f"not compared: {check.note}"
    functions = ", ".join(check.functions)
    if check.agrees:
        return (f"{check.calls} calls of {functions} return what the reference returns"
                + (f"; {check.note}" if check.note else ""))
    first = check.examples[0]
    return (f"{check.mismatches} of {check.calls} calls differ from the reference, e.g. {first.call}"
            f" (called by {first.test}): {first.difference}")


SHOWN_TESTS = 2  # suggested tests printed in full; the others with --verbose (all of them in --json)


def score_text(score: SuiteScore, *, verbose: bool = False) -> str:
    """The score, then what the suite never checks (one line per behaviour), the code no test
    runs, and the suggested tests, the two most telling in full; every missed bug when `verbose`."""
    missed = len(score.survivors)
    unrun = sum(not s.covered for s in score.survivors)
    detected = score.counts.get(Status.KILLED, 0) + score.counts.get(Status.TIMEOUT, 0)
    where = ("NOT SANDBOXED (--no-sandbox): the candidate's tests ran with your rights" if not score.sandboxed
             else "sandboxed" + (f", {score.controls} disguised controls passed" if score.controls else ""))
    lines = [f"{score.problem}: {score.tests} tests; mutation score "
             + (f"{score.score:.1f}%" if score.score is not None else "n/a")
             + (f": {detected} bugs detected, {missed} missed ({unrun} on lines no test runs)" if score.counts else ""),
             "  per family: " + ", ".join(f"{family} {found}/{counted}"
                                          for family, (found, counted) in score.per_family.items()) + f"; {where}"]
    if score.lessons:
        lines += ["", f"What the tests never check ({len(score.lessons)} behaviours, most missed bugs first):"]
        for number, lesson in enumerate(score.lessons, 1):
            count = len(lesson.mutants)
            unseen = f", {lesson.uncovered} on lines no test runs" if lesson.uncovered else ""
            lines.append(f"{number:>3}. {lesson.title} [{count} bug{'s' if count > 1 else ''}{unseen}]")
            if lesson.contract and number <= SHOWN_TESTS:
                lines.append(f"       the contract: {lesson.contract}")
    if score.unrun:
        lines += ["", "Code no test runs: " + "; ".join(f"{file} lines {_ranges(list(found))}"
                                                       for file, found in score.unrun.items())]
    if score.lessons:
        lines += ["", "Suggested tests, one per behaviour, through the public API:"]
        for number, lesson in enumerate(score.lessons, 1):
            if number > SHOWN_TESTS and not verbose:
                rest = score.lessons[SHOWN_TESTS:]
                verified = sum(bool(r.verified_on) for r in rest)
                lines.append(f"{SHOWN_TESTS + 1:>3}. … {len(score.lessons)}. one for each behaviour above "
                             f"({verified} verified, {len(rest) - verified} sketches): see --verbose or --json")
                break
            how = (f"verified: passes on the reference, catches {lesson.verified_on} of its {len(lesson.mutants)} bugs"
                   if lesson.verified_on else "a sketch: fill in the input and the expected result")
            lines.append(f"{number:>3}. {lesson.test_name}  ({how})")
            code = [line for line in lesson.suggested_test.rstrip().splitlines() if line.strip()]
            lines.extend("       " + line for line in code)
    if verbose and score.survivors:
        lines += ["", f"{missed} missed bugs:"]
        for survivor in score.survivors:
            state = survivor.classification or (Status.SURVIVED if survivor.covered else "no test runs it")
            lines.append(f"  {survivor.mutant_id}  {survivor.location}  {survivor.operator}  [{state}]")
            if survivor.explanation:
                lines.append(f"      {survivor.explanation}")
            if survivor.witness:
                lines.append(f"      missed: {survivor.witness}")
    return "\n".join(lines)


def _ranges(numbers: list[int]) -> str:
    """`54, 57, 70-74`: runs of consecutive line numbers."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def pool_text(pools: Sequence[ProblemPool]) -> str:
    """`bugsmith exercises --stats`: candidates and validated bugs per problem and family."""
    lines = [f"{'problem':<17} {'family':<11} {'candidates':>10} {'silent':>7} {'loud':>5}"]
    for pool in pools:
        for part in pool.families:
            lines.append(f"{pool.problem:<17} {part.family:<11} {part.candidates:>10} {part.silent:>7} {part.loud:>5}")
        lines.append(f"{pool.problem:<17} {'all':<11} {pool.candidates:>10} {pool.silent:>7} {pool.loud:>5}")
    lines.append("candidates: eligible edits without a machine's trace; silent, loud: validated single bugs"
                 " (each fails a visible test; silent ones only by wrong answers)")
    return "\n".join(lines)
