"""Seeded variants of an exercise: the same bug, in code that no public text matches line by line.

A candidate could diff the handout against the public reference code (which `pip install`
also puts in site-packages), or against another candidate's handout of the same problem, and
read the bug off the one changed line. A variant rewrites every code file of the problem with
behaviour-preserving rewrites (harness.exercises.assemble.rewrites) decided by a seed, and carries the
exercise's bugs over to it:

1. `V` = the rewrites for the seed; the variant's reference is `V(reference)`.
2. For each bug `m` (one operator's edit), the rewrites are applied to the reference with `m`
   alone; the operator is run again on `V(reference)` (same engine, that operator only) and
   the variant's bug is the one of its mutants that gives exactly `V(reference + m)`. So the
   variant's bug is again one operator's edit, by construction, at the corresponding site.
   When no mutant matches (a bug that removes a site the rewrites count), the bug's function
   is frozen (its statements keep their order and spelling, names are still renamed) and
   the match is tried again; then the names the bug's site spells are kept too (an operator
   that reads names, such as `tps` against `fps`, finds no site once they are renamed); then
   the next seed.
3. The variant is validated like an exercise: the whole suite (visible and held-back) passes
   on `V(reference)`, and with the bugs it fails exactly the exercise's FAIL_TO_PASS tests
   and passes its PASS_TO_PASS tests. A variant that does not is refused, and the next seed
   is tried.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bugsmith.harness.evaluate import combined_source
from bugsmith.harness.exercises.assemble.rewrites import rewrite
from bugsmith.harness.exercises.judge.suite_runs import covers
from bugsmith.harness.exercises.measure.clues import clues_of, drop_clues
from bugsmith.harness.exercises.records import Exercise, ExerciseError
from bugsmith.harness.exercises.sources.layout import code_files, grader_kit
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.harness.shared.protocol import TestOutcome
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Mutant

ATTEMPTS = 4  # seeds tried before a variant is given up
TEST_SECONDS = 600.0
# (work folder, test ids, seconds) -> (timed out, outcome by reported test id)
SuiteRunner = Callable[[Path, Sequence[str], float], tuple[bool, dict[str, TestOutcome]]]


def variant_code(files: Mapping[str, str], seed: str, frozen: Mapping[str, frozenset[str]] | None = None,
                 kept: Mapping[str, frozenset[str]] | None = None) -> dict[str, str]:
    """Every Python file of `files` rewritten for `seed` (each file with its own decisions);
    `kept`: per file, local names never renamed."""
    frozen, kept = frozen or {}, kept or {}
    return {path: rewrite(text, f"{seed}:{path}", frozen=frozen.get(path, frozenset()),
                          kept=kept.get(path, frozenset()))
            for path, text in sorted(files.items()) if path.endswith(".py")}


def _names(mutants: Sequence[Mutant]) -> dict[str, frozenset[str]]:
    """Per file, the names the bugs' sites spell: an operator that reads names (`tps` against
    `fps`) finds no site once they are renamed."""
    names: dict[str, frozenset[str]] = defaultdict(frozenset)
    for mutant in mutants:
        names[mutant.file] |= frozenset(re.findall(r"[A-Za-z_]\w*", mutant.original + " " + mutant.mutated))
    return names


def carried_over(exercise: Exercise, reference: Mapping[str, str], seed: str,
                 frozen: Mapping[str, frozenset[str]],
                 kept: Mapping[str, frozenset[str]] | None = None) -> tuple[Mutant, ...] | None:
    """The exercise's bugs as mutants of the variant `reference`, or None if one has no match."""
    mapped: list[Mutant] = []
    for mutant in exercise.mutants:
        file = mutant.file
        wanted = rewrite(mutant.apply(exercise.reference[file]), f"{seed}:{file}",
                         frozen=frozen.get(file, frozenset()), kept=(kept or {}).get(file, frozenset()))
        found = mutants_of_source(reference[file], file=file, module=mutant.module,
                                  mutators=registry.select(operators=[mutant.operator])).mutants
        matches = [m for m in found if m.apply(reference[file]) == wanted]
        if not matches:
            return None
        mapped.append(matches[0])
    by_file: dict[str, list[Mutant]] = defaultdict(list)
    for mutant in mapped:
        by_file[mutant.file].append(mutant)
    for file, group in by_file.items():  # K bugs of one file: together they still make V(buggy)
        # From the reference with the bugs, not the handout: a hard handout may lack a comment.
        buggy = combined_source(exercise.reference[file], [m for m in exercise.mutants if m.file == file])
        wanted = rewrite(buggy, f"{seed}:{file}", frozen=frozen.get(file, frozenset()),
                         kept=(kept or {}).get(file, frozenset()))
        if combined_source(reference[file], group) != wanted:
            return None
    return tuple(mapped)  # in the order of exercise.mutants, which its findability follows


def handout(reference: str, file: str, mutants: Sequence[Mutant], dropped: Sequence[Mutant]) -> str:
    """The variant's file as handed out: its bugs applied, and the clues the original handout
    dropped (a medium or hard exercise's sentences that state what a bug contradicts) dropped again."""
    clues = [c for m in dropped if m.file == file for c in clues_of(reference, mutants, m)]
    return drop_clues(combined_source(reference, [m for m in mutants if m.file == file]), clues)


def variant_exercise(problem: Problem, exercise: Exercise, seed: str, *,
                     run: SuiteRunner | None = None, work: Path) -> Exercise:
    """`exercise` on a validated variant of its problem's code; ExerciseError when none validates."""
    run = run or _run_suite
    original = code_files(problem)
    stale = sorted(f for f, text in exercise.reference.items() if original.get(f) != text)
    if stale:
        raise ExerciseError(f"{stale[0]} changed since {exercise.instance_id} was built; build the exercises again")
    reasons = []
    for attempt in range(ATTEMPTS):
        attempt_seed = f"{seed}:{attempt}"
        frozen: dict[str, frozenset[str]] = {}
        # First everything rewritten; then the bugs' functions keep their statements; then the
        # names their sites spell are kept too (an operator that reads names needs them).
        for freeze, keep in ((False, False), (True, False), (True, True)):
            if freeze:
                frozen = defaultdict(frozenset)
                for mutant in exercise.mutants:
                    if mutant.function:
                        frozen[mutant.file] |= {mutant.function}
            kept = _names(exercise.mutants) if keep else {}
            reference = variant_code(original, attempt_seed, frozen, kept)
            mutants = carried_over(exercise, reference, attempt_seed, frozen, kept)
            if mutants is not None:
                break
        if mutants is None:
            reasons.append("no mutant of the variant matches the bug")
            continue
        dropped = [new for new, found in zip(mutants, exercise.findability) if found.clue_dropped]
        mutants = tuple(sorted(mutants, key=lambda m: (m.file, m.span.line, m.span.column)))
        changed = {m.file for m in mutants}
        candidate = replace(
            exercise, mutants=mutants,
            reference={f: reference[f] for f in sorted(changed)},
            buggy={f: handout(reference[f], f, mutants, dropped) for f in sorted(changed)},
            variant={f: text for f, text in reference.items() if f not in changed})
        reason = _validation_failure(problem, candidate, run, work / f"attempt-{attempt}")
        if reason is None:
            return candidate
        reasons.append(reason)
    raise ExerciseError(f"{exercise.problem}: no variant of {exercise.instance_id} validates"
                        f" in {ATTEMPTS} seeds ({'; '.join(sorted(set(reasons)))})")


def _validation_failure(problem: Problem, exercise: Exercise, run: SuiteRunner, work: Path) -> str | None:
    """Why the variant is not a valid exercise, or None: the suite passes on the variant's
    reference, and with its bugs fails exactly FAIL_TO_PASS."""
    tests = (*exercise.fail_to_pass, *exercise.pass_to_pass)
    clean = {**exercise.variant, **exercise.reference}
    buggy = {**clean, **exercise.buggy}
    for name, code, failing in (("reference", clean, set()), ("buggy", buggy, set(exercise.fail_to_pass))):
        timed_out, outcomes = run_suite(problem, code, tests, work / name, run)
        if timed_out:
            return f"the suite timed out on the variant's {name}"
        failed = set()
        for test in tests:
            seen = [outcome for reported, outcome in outcomes.items() if covers(test, reported)]
            if not seen or any(outcome not in (TestOutcome.PASSED, TestOutcome.FAILED) for outcome in seen):
                return f"{test} did not run cleanly on the variant's {name}"
            if TestOutcome.FAILED in seen:
                failed.add(test)
        if failed != failing:
            return f"the variant's {name} fails {len(failed)} tests, not {len(failing)}"
    return None


def run_suite(problem: Problem, code: Mapping[str, str], tests: Sequence[str], folder: Path,
              run: SuiteRunner | None = None) -> tuple[bool, dict[str, TestOutcome]]:
    """Run `tests` (node ids or test files) on the problem's code with `code` over it, as the
    grader would (every test file, the held-back ones too): (timed out, outcome by test id)."""
    _write(folder, {**grader_kit(problem, problem.name), **code_files(problem), **code})
    return (run or _run_suite)(folder, tests, TEST_SECONDS)


def _write(folder: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _run_suite(folder: Path, tests: Sequence[str], seconds: float) -> tuple[bool, dict[str, TestOutcome]]:
    from bugsmith.harness.exercises.judge.grading import run_tests  # grading reads packs: import late

    timed_out, results, _ = run_tests(folder, tests, seconds)
    return timed_out, {test: result.outcome for test, result in results.items()}
