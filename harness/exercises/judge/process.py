"""How the candidate worked, from the record of their test runs: the `Process` beside a grade.

The interview format asks candidates to run the tests first, narrow to the smallest failing
case, re-run after every change and keep the change minimal. The recorder in their folder
logs each test run (`attempt_log`); this module reads that account against the code as handed
out, the exercise's fix and the submitted code. It never decides the verdict: `Grade.passed`
is the end state's alone.

Definitions (the JSON schema `grade.schema.json` repeats them):

- **log**: ok; missing; broken (`attempt_log`); stale: whole, but the submitted code is not
  the code of the last run (edited afterwards, or changed with no run at all). For missing and
  broken nothing of the log is used; a stale log is still read up to its last run.
- **green run**: every visible test of the exercise was selected, no selected test failed or
  errored (each passed or was skipped), nothing failed to collect, and pytest exited 0.
- **code state**: the code files as one run saw them (a file the candidate deleted from a
  project's pack counts as handed out, as the grader takes it). `code_states` counts distinct
  ones.
- **change**: an edit to one function (or to the module-level lines of one file). The code is
  seen only when tests run, so when one run's code differs from the one before in k functions,
  k - 1 in-between states were never run; so was the handout when the first run's code is not
  it, and so was the submitted code when the log is stale. `untested_states` sums these;
  `rerun_after_each_change` is whether it is 0.
- **narrowed**: before the first green run (all runs, if none is green) some run selected only
  part of the visible suite, and a test it selected failed: the candidate worked on a failing
  case alone. `narrowest` is the fewest tests such a run selected.
- **reverted**: a run whose code went back to an earlier state (the handout, or an earlier
  run's) after being something else in between.
- **final change verdict** (`change.verdict`): "rewrite" when the edit replaced at least half
  of a function's lines and 3 more than the fix itself changes there (it wrote the function
  anew rather than repairing it), or changed over 5 times the fix's lines and over 20 lines;
  "minimal" when it changed at most twice the fix's lines plus 2 (room for an equivalent
  expression written over two lines, or a comment) and only functions the fix touches;
  otherwise "larger than needed". null when nothing changed.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bugsmith.harness.exercises.judge.attempt_log import AttemptLog, LoggedRun, LogStatus, lines
from bugsmith.harness.exercises.judge.changed_functions import Touch, touched

ACCOUNT = ("the candidate's own account: the log lives in their folder (.attempt/runs.jsonl) and they could"
           " have edited it; it is checked to be whole and to end at the submitted code")
MINIMAL_FACTOR, MINIMAL_SLACK = 2, 2
REWRITE_SHARE, REWRITE_MARGIN = 0.5, 3
REWRITE_FACTOR, REWRITE_LINES = 5, 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One recorded test run, as the grade reports it."""

    time: str  # ISO 8601, UTC
    selected: tuple[str, ...]
    outcomes: dict[str, str]  # node id -> passed / failed / error / skipped
    failed: int  # failed or errored (collection errors too)
    passed: int
    green: bool
    diff: str  # the code since the previous run (the handout, for the first)
    full: bool  # every visible test was selected
    exit_status: int
    args: tuple[str, ...]
    cwd: str
    note: str = ""  # what went wrong in the recorder during this run


@dataclass(frozen=True, slots=True, kw_only=True)
class Revert:
    run: int  # 1-based
    back_to: int  # the run whose code it returned to; 0: the code as handed out


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """The submitted code against the handout, beside the exercise's own fix."""

    lines: int  # added plus removed
    solution_lines: int
    functions: tuple[str, ...]  # file::function it touches
    solution_functions: tuple[str, ...]
    outside: tuple[str, ...]  # functions it touches that the fix does not
    rewritten: tuple[str, ...]  # functions it wrote anew (see the module's docstring)
    verdict: str | None  # "minimal", "larger than needed", "rewrite"; None: no change


@dataclass(frozen=True, slots=True, kw_only=True)
class Process:
    """What the log of test runs shows of the way the candidate worked (module docstring)."""

    log: LogStatus
    note: str  # one line; "" when the log is ok
    change: Change
    runs: tuple[Run, ...] = ()
    minutes_total: float | None = None
    minutes_to_green: float | None = None
    tests_first: bool | None = None
    rerun_after_each_change: bool | None = None
    untested_states: int | None = None
    code_states: int = 0
    narrowed: bool | None = None
    narrowest: int | None = None
    reverted: tuple[Revert, ...] = ()
    outside_ever: tuple[str, ...] = ()  # functions changed at some run that the fix does not touch
    account: str = field(default=ACCOUNT)

    def to_dict(self) -> dict[str, Any]:
        """The `process` object of `bugsmith grade --json` (grade.schema.json)."""
        return _plain(asdict(self))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, LogStatus):
        return value.value
    return value


def judge(log: AttemptLog, *, handout: dict[str, str], code: dict[str, str], solution: dict[str, str],
          visible: Sequence[str], fill: bool) -> Process:
    """The process of an attempt whose log is `log`, handed `handout`, ending at `code`; `solution`
    is the handout with the exercise's fix; `fill`: a file missing from a run counts as handed out."""
    change = final_change(handout, code, solution)
    if log.status != LogStatus.OK:
        return Process(log=log.status, note=log.note, change=change)
    fix = set(change.solution_functions)
    known = [(i + 1, _state(run.code, handout, fill)) for i, run in enumerate(log.runs) if run.code is not None]
    last = known[-1][1] if known else handout
    stale = _key(last) != _key(code)
    if not log.runs and not stale:
        return Process(log=LogStatus.OK, note="", change=change, untested_states=0)
    runs = _runs(log.runs, handout, fill, visible)
    history = [(0, handout), *known]
    steps = [touched(a, b) for (_, a), (_, b) in zip(history, history[1:]) if _key(a) != _key(b)]
    final_step = touched(last, code) if stale else {}
    tests_first = _tests_first(log.runs, handout, fill)
    untested = _untested(steps, final_step, handout_run=tests_first is not False, stale=stale)
    green = next((i for i, run in enumerate(runs) if run.green), None)
    narrow = [len(r.selected) for r in (runs if green is None else runs[:green])
              if not r.full and r.selected and r.failed]
    first = log.runs[0].epoch if log.runs else 0.0
    return Process(
        log=LogStatus.STALE if stale else LogStatus.OK, note=_stale_note(log.runs, last, code) if stale else "",
        change=change, runs=runs,
        minutes_total=round((log.runs[-1].epoch - first) / 60, 2) if log.runs else None,
        minutes_to_green=round((log.runs[green].epoch - first) / 60, 2) if green is not None else None,
        tests_first=tests_first,
        rerun_after_each_change=untested == 0, untested_states=untested,
        code_states=len({_key(state) for _, state in known}),
        narrowed=bool(narrow) if runs else None, narrowest=min(narrow) if narrow else None,
        reverted=_reverts(history),
        outside_ever=tuple(sorted({name for step in [*steps, final_step] for name in step} - fix)),
    )


def _tests_first(runs: Sequence[LoggedRun], handout: dict[str, str], fill: bool) -> bool | None:
    """Whether the first run saw the code as handed out (no run at all on changed code: no; unknown code: None)."""
    if not runs:
        return False
    if runs[0].code is None:
        return None
    return _key(_state(runs[0].code, handout, fill)) == _key(handout)


def _untested(steps: Sequence[dict[str, Touch]], final_step: dict[str, Touch], *, handout_run: bool,
              stale: bool) -> int:
    """Code states the candidate moved on from, or handed in, without running the tests."""
    count = sum(max(0, len(step) - 1) for step in steps)  # several functions changed between two runs
    count += not handout_run  # the handout, changed before any run (unknown: not counted)
    if stale:
        count += max(0, len(final_step) - 1) + 1  # the submitted code and the states on the way to it
    return count


def final_change(handout: dict[str, str], code: dict[str, str], solution: dict[str, str]) -> Change:
    """The submitted code's change against the fix's, with the verdict of the module's docstring."""
    mine, fix = touched(handout, code), touched(handout, solution)
    size = sum(t.removed + t.added for t in mine.values())
    fix_lines = sum(t.removed + t.added for t in fix.values())
    rewritten = tuple(name for name, t in mine.items() if _rewritten(t, fix.get(name)))
    outside = tuple(name for name in mine if name not in fix)
    if not size:
        verdict = None
    elif rewritten or (size > REWRITE_FACTOR * fix_lines and size > REWRITE_LINES):
        verdict = "rewrite"
    elif size <= MINIMAL_FACTOR * fix_lines + MINIMAL_SLACK and not outside:
        verdict = "minimal"
    else:
        verdict = "larger than needed"
    return Change(lines=size, solution_lines=fix_lines, functions=tuple(mine), solution_functions=tuple(fix),
                  outside=outside, rewritten=rewritten, verdict=verdict)


def _rewritten(mine: Touch, fix: Touch | None) -> bool:
    return bool(mine.length) and mine.removed >= max(REWRITE_SHARE * mine.length,
                                                     (fix.removed if fix else 0) + REWRITE_MARGIN)


def _state(code: dict[str, str] | None, handout: dict[str, str], fill: bool) -> dict[str, str]:
    return {**handout, **(code or {})} if fill else dict(code or {})


def _key(code: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((path, hashlib.sha256(text.encode("utf-8")).hexdigest()) for path, text in code.items()))


def _runs(logged: Sequence[LoggedRun], handout: dict[str, str], fill: bool, visible: Sequence[str]) -> tuple[Run, ...]:
    runs = []
    previous = handout
    wanted = set(visible)
    for run in logged:
        diff = ""
        if run.code is not None:
            state = _state(run.code, handout, fill)
            diff = unified(previous, state)
            previous = state
        bad = sum(o in ("failed", "error") for o in run.outcomes.values())
        full = bool(wanted) and wanted <= set(run.selected)
        green = (full and not bad and run.exit_status == 0
                 and all(run.outcomes.get(t) in ("passed", "skipped") for t in run.selected))
        runs.append(Run(time=run.time, selected=run.selected, outcomes=run.outcomes, failed=bad,
                        passed=sum(o == "passed" for o in run.outcomes.values()), green=green, diff=diff, full=full,
                        exit_status=run.exit_status, args=run.args, cwd=run.cwd, note=run.note))
    return tuple(runs)


def unified(before: dict[str, str], after: dict[str, str]) -> str:
    """The unified diff from `before` to `after` (path -> text), `a/` and `b/` prefixed."""
    out: list[str] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, ""), after.get(path, "")
        if old != new:
            out.extend(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in difflib.unified_diff(lines(old), lines(new), f"a/{path}", f"b/{path}"))
    return "".join(out)


def _reverts(history: list[tuple[int, dict[str, str]]]) -> tuple[Revert, ...]:
    """Runs whose code returned to an earlier state (the handout, as run 0, or the latest run that had it)
    with another state between."""
    keys = [_key(state) for _, state in history]
    found = []
    for i in range(2, len(keys)):
        if keys[i] != keys[i - 1] and keys[i] in keys[:i - 1]:
            back = 0 if keys[i] == keys[0] else max(j for j in range(i - 1) if keys[j] == keys[i])
            found.append(Revert(run=history[i][0], back_to=history[back][0]))
    return tuple(found)


def _stale_note(runs: Sequence[LoggedRun], last: dict[str, str], code: dict[str, str]) -> str:
    if not runs:
        return "no test run was recorded, yet the code was changed: the tests never ran on it"
    files = sorted(p for p in set(last) | set(code) if last.get(p) != code.get(p))
    return (f"the code was changed after the last recorded test run ({', '.join(files)}): the log ends"
            " before the submitted code")


# A grade made without reading a log (a Grade built by hand): nothing is known of the process.
NOT_READ = Process(log=LogStatus.MISSING, note="the record of the test runs was not read",
                   change=Change(lines=0, solution_lines=0, functions=(), solution_functions=(), outside=(),
                                 rewritten=(), verdict=None))
