"""The runs behind an exercise's findability evidence, on the builder's workers.

Two runs per bug, both on the visible tests only (what a candidate has): the mutated program
under coverage, one context per test, for fault localisation; then an automatic repair search
that tries every edit bugsmith's own engine proposes on the buggy code, and the undo edits
(harness.exercises.measure.inverses) that take each operator's bugs back, at the most
suspicious lines first, one token before one part before code written anew, and counts the
tries until one makes the visible tests pass. The search is told nothing of the bug: it reads
the buggy program, the coverage and the test outcomes, as a candidate would. The candidate
edits run as a batch on the worker pool, failing tests first and stopping at the first
failure, so a wrong edit costs one test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import astuple, replace
from pathlib import Path

from bugsmith.harness.evaluate import Evaluator, combined_source
from bugsmith.harness.exercises.findability import Findability, function_spans, is_helper, lines_to_read, names_bug
from bugsmith.harness.exercises.measure.intent import named_against, stated_intent
from bugsmith.harness.exercises.measure.inverses import repair_edits, tier, undo_edits
from bugsmith.harness.exercises.measure.localisation import Line, locate, ochiai
from bugsmith.harness.exercises.measure.tells import (
    breaks_twin,
    guarded_raises,
    same_function,
    swaps_loop_names,
    unread_by,
)
from bugsmith.harness.shared.protocol import Job, Patch, TestOutcome, Verdict
from bugsmith.harness.shared.tasks import Coverage, CoverageTask, LineMap
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Mutant

# Candidate edits a repair search may try; more is "not found". The engine proposes some ten
# edits per line, so 50 reaches about the fifth most suspicious line.
REPAIR_CAP = 50
# Undo edits are written in the functions that hold this many of the most suspicious lines (ties
# included): about as far as the search gets within its cap, at some ten edits per line.
UNDO_LINES = 10
# The repair search makes the edits of this many most suspicious lines first (ties included), and
# the others only when those give fewer than REPAIR_CAP: at some ten engine edits and tens of
# undo edits per line, eight lines nearly always give enough.
FIRST_LINES = 8
# A traceback that ends this many lines under a bug, in its function, leads a reader to it.
READ_UP = 3


class Probes:
    """Measures bugs of one problem with an open Evaluator."""

    def __init__(self, ev: Evaluator, visible: Sequence[str], test_sources: Sequence[str]) -> None:
        self.ev = ev
        self.visible = tuple(visible)
        self.test_sources = tuple(test_sources)
        self.mutators = registry.select(())
        self._original_edits: dict[str, tuple[Mutant, ...]] = {}
        self._lines: dict[str, LineMap | None] = {}  # each bug's coverage alone, by its id
        self._warned: dict[str, tuple[tuple[str, int], ...]] = {}  # where the code warned, by bug id
        self._raised: dict[str, tuple[tuple[str, int], ...]] = {}  # where failing tests' tracebacks ended

    def measure(self, bug: Mutant, failing: Sequence[str], messages: Sequence[str],
                search: Callable[[Findability], bool] = lambda survey: True) -> Findability:
        """The evidence of one bug alone; `failing` are the visible tests it fails. The repair
        search, which costs up to REPAIR_CAP runs, only if `search` says the survey (all the
        rest) needs it; else the record says it was skipped."""
        lines = self.lines_of(bug) or self._baseline_lines()
        scores = ochiai(lines, failing)
        where = locate(scores, [bug], bug)
        survey = Findability(
            mutant=bug.id, fl_rank=where.rank, fl_lines=where.ranked, repair_tries=None, repair_searched=False,
            intent=stated_intent(self.ev.sources[bug.file], bug).stated,
            named=names_bug(bug, self.ev.sources[bug.file], failing, messages),
            lines_to_read=lines_to_read(lines, failing, self._buggy_sources([bug])),
            helper=is_helper(bug, self.test_sources),
            intent_in_code=named_against(self.ev.sources[bug.file], bug) is not None,
            unread=bool(unread_by(self.ev.sources[bug.file], bug)),
            twin_broken=breaks_twin(self.ev.sources[bug.file], bug),
            warns=self.warns_at(bug),
            raised=self.raised_at(bug),
            loop_names=swaps_loop_names(self.ev.sources[bug.file], bug),
        )
        if not search(survey):
            return survey
        return replace(survey, repair_tries=self.repair_tries(bug, scores, failing), repair_searched=True)

    def cover(self, bugs: Sequence[Mutant]) -> None:
        """The lines each visible test runs on the program with each of `bugs` alone (None where
        it cannot be measured), measured once and in one batch: the bugs of a group share the
        workers, where one coverage run at a time left all but one idle."""
        todo = list({bug.id: bug for bug in bugs if bug.id not in self._lines}.values())
        jobs = [replace(self.ev.job(bug.id, [bug], tests=self.visible), task=CoverageTask(), stop_on_failure=False)
                for bug in todo]
        verdicts = self.ev.run(jobs) if jobs else {}
        for bug in todo:
            findings = verdicts[bug.id].findings if bug.id in verdicts else None
            self._lines[bug.id] = findings.lines if isinstance(findings, Coverage) else None
            self._warned[bug.id] = findings.warned if isinstance(findings, Coverage) else ()
            self._raised[bug.id] = findings.raised if isinstance(findings, Coverage) else ()

    def lines_of(self, bug: Mutant) -> LineMap | None:
        """The lines each visible test runs on the program with `bug`; None if it cannot be measured."""
        self.cover([bug])
        return self._lines[bug.id]

    def warns_at(self, bug: Mutant) -> bool:
        """Whether the code warned on one of `bug`'s lines while the visible tests ran with it
        (numpy's "divide by zero encountered"): pytest's warnings summary shows the line."""
        self.cover([bug])
        return any(file == bug.file and bug.span.line <= line <= bug.span.end_line
                   for file, line in self._warned.get(bug.id, ()))

    def raised_at(self, bug: Mutant) -> bool:
        """Whether a failing visible test's traceback ends, in the code, at `bug`'s lines, a few
        lines under them in the same function (`positive = labels == 2` above the guard that
        raises "must contain both classes"), or at a `raise` whose guard `bug` changed or removed
        (the message contradicts the test's input): pytest's report of the failure shows that
        line, and a reader reads up from it."""
        self.cover([bug])
        ends = {line for file, line in self._raised.get(bug.id, ()) if file == bug.file}
        if not ends:
            return False
        source = self.ev.sources[bug.file]
        if ends & set(guarded_raises(source, bug)):
            return True
        last = bug.span.line + bug.mutated.count("\n")
        near = [line for line in ends if bug.span.line <= line <= last + READ_UP]
        return bool(near) and same_function(bug.apply(source), bug.span.line, near)

    def _baseline_lines(self) -> LineMap:
        """The unmutated program's coverage: the next best thing when the mutant's cannot be had."""
        assert self.ev.baseline is not None
        visible = frozenset(self.visible)
        return {f: {n: tuple(t for t in ts if t in visible) for n, ts in by.items()}
                for f, by in self.ev.baseline.lines.items()}

    def _buggy_sources(self, bugs: Sequence[Mutant]) -> dict[str, str]:
        sources = dict(self.ev.sources)
        for file in {b.file for b in bugs}:
            sources[file] = combined_source(self.ev.sources[file], [b for b in bugs if b.file == file])
        return sources

    def repair_tries(self, bug: Mutant, scores: dict[Line, float], failing: Sequence[str]) -> int | None:
        """How many candidate edits, most suspicious lines first, until the visible tests pass."""
        candidates = self.repair_candidates(bug, scores, cap=REPAIR_CAP)
        tests = (*failing, *(t for t in self.visible if t not in failing))
        jobs = [self._repair_job(f"repair-{i}", bug, edit, tests) for i, edit in enumerate(candidates)]
        verdicts = self.ev.run(jobs) if jobs else {}
        for i in range(len(candidates)):
            if _all_passed(verdicts.get(f"repair-{i}"), len(tests)):
                return i + 1
        return None

    def repair_candidates(self, bug: Mutant, scores: dict[Line, float], cap: int | None = None) -> list[Mutant]:
        """Every edit the engine proposes, and every undo edit, on the buggy program at a line a
        failing test ran, ordered by the line's suspiciousness, then by the edit's tier (one
        token first), then place, operator and text (not the id, which counts the same edits
        before it in its scope): the same order every time; the first `cap` of them.

        With a cap, the edits of the most suspicious lines (FIRST_LINES of them, ties included)
        are made first, and the others only if those are fewer than the cap: an edit of a less
        suspicious line comes after every edit of a more suspicious one, so the first `cap` are
        the same, and making every edit of the file (thousands of undo edits) was most of a
        build's time."""
        ranked = sorted(scores.values(), reverse=True)
        if cap is not None and ranked:
            floor = ranked[min(FIRST_LINES, len(ranked)) - 1]
            if floor > ranked[-1]:  # else the first lines are every line
                first = self._candidates(bug, scores, {line for line, score in scores.items() if score >= floor})
                if len(first) >= cap:
                    return first[:cap]
        return self._candidates(bug, scores, None)[:cap]

    def _candidates(self, bug: Mutant, scores: dict[Line, float], wanted: set[Line] | None) -> list[Mutant]:
        """The ordered edits at the lines of `scores` (of `wanted` only, when named)."""
        def lines(file: str) -> frozenset[int] | None:
            return None if wanted is None else frozenset(n for f, n in wanted if f == file)

        buggy = combined_source(self.ev.sources[bug.file], [bug])
        edits = list(repair_edits(buggy, file=bug.file, module=bug.module, lines=lines(bug.file),
                                  functions=_suspicious_functions(bug.file, buggy, scores), forward=self.mutators))
        for file in self.ev.sources:
            if file != bug.file and lines(file) != frozenset():
                edits.extend(self._edits_of_original(file, _suspicious_functions(file, self.ev.sources[file], scores),
                                                     lines(file)))
        keep = scores if wanted is None else wanted
        suspicious = [e for e in edits if e.function is not None and (e.file, e.span.line) in keep]
        return sorted(suspicious, key=lambda e: (-scores[(e.file, e.span.line)], tier(e.operator), e.file,
                                                 astuple(e.span), e.operator, e.mutated))

    def _edits_of_original(self, file: str, functions: frozenset[str],
                           lines: frozenset[int] | None) -> tuple[Mutant, ...]:
        """The engine's edits of an unchanged file (kept for the next bug), and its undo edits in
        `functions` (on `lines`, when named)."""
        module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        if file not in self._original_edits:
            self._original_edits[file] = mutants_of_source(self.ev.sources[file], file=file, module=module,
                                                           mutators=self.mutators).mutants
        made = self._original_edits[file]
        if not functions:
            return made
        return (*made, *undo_edits(self.ev.sources[file], file=file, module=module, functions=functions, made=made,
                                   lines=lines))

    def _repair_job(self, key: str, bug: Mutant, edit: Mutant, tests: Sequence[str]) -> Job:
        """The buggy program with `edit` applied too (`edit`'s span is in the buggy text when it is
        in the bug's file)."""
        root = self.ev.options.root.resolve()
        buggy = combined_source(self.ev.sources[bug.file], [bug])
        if edit.file == bug.file:
            text = combined_source(buggy, [edit])
            functions = dict.fromkeys([bug.function, edit.function])
            patches = [Patch(module=bug.module, path=str(root / bug.file), function=f, source=text) for f in functions]
        else:
            patches = [Patch(module=bug.module, path=str(root / bug.file), function=bug.function, source=buggy),
                       Patch(module=edit.module, path=str(root / edit.file), function=edit.function,
                             source=combined_source(self.ev.sources[edit.file], [edit]))]
        base = self.ev.job(key, [bug], tests=tests, stop_on_failure=True)
        first, *rest = patches
        return replace(base, module=first.module, path=first.path, function=first.function, source=first.source,
                       extra=tuple(rest))


def _suspicious_functions(file: str, source: str, scores: dict[Line, float]) -> frozenset[str]:
    """The names of the innermost functions of `file` that hold one of the UNDO_LINES most
    suspicious lines (ties with the last included)."""
    values = sorted(scores.values(), reverse=True)
    if not values:
        return frozenset()
    floor = values[min(UNDO_LINES, len(values)) - 1]
    spans = function_spans(file, source)
    found = set()
    for (where, line), score in scores.items():
        if where != file or score < floor:
            continue
        inside = [s for s in spans if s.start <= line <= s.end]
        if inside:
            found.add(min(inside, key=lambda s: s.end - s.start).name.rsplit(".", 1)[-1])
    return frozenset(found)


def _all_passed(verdict: Verdict | None, count: int) -> bool:
    if verdict is None or verdict.timed_out or verdict.error or verdict.died or verdict.missing:
        return False
    return len(verdict.results) == count and all(r.outcome == TestOutcome.PASSED for r in verdict.results)


def visible_test_texts(root: Path, files: Sequence[str]) -> list[str]:
    """The visible test files' text (which functions they call by name)."""
    return [(root / f).read_text(encoding="utf-8") for f in files]
