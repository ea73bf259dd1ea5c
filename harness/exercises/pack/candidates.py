"""One pack per candidate: one exercise per problem, each on its own seeded variant of the code.

`bugsmith pack export --candidates N` hands each of N candidates a pack of their own, so that
nothing is learnt by diffing: a candidate's archive never holds two exercises of one problem
(two handouts of one problem diff to both bugs), candidates get different bugs and different
variants of each problem (two candidates' handouts diff to many lines), and every handout is
a variant, so that it does not diff cleanly against the public reference either.

`--out DIR` writes `DIR/candidate-01/{candidate,instructor}`, ...; `--out NAME.zip` writes
`NAME-01-candidate.zip`, `NAME-01-instructor.zip`, ... Each is a complete pack (graded as any
other), byte-reproducible for a seed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bugsmith.harness.exercises.assemble.variants import SuiteRunner, variant_exercise
from bugsmith.harness.exercises.pack.pack import PackPaths, export
from bugsmith.harness.exercises.records import Exercise, ExerciseError, ExerciseOptions
from bugsmith.harness.exercises.sources.catalogue import load_problems

Progress = Callable[[int, int], None]  # variants made, variants wanted


def candidate_count(root: Path, problems: Sequence[str], candidates: int) -> int:
    """How many exercises to build for one of each problem (all of `root`'s if none) per candidate."""
    if candidates < 1:
        raise ExerciseError("--candidates must be at least 1")
    return candidates * len(problems or load_problems(root))


def candidate_sets(exercises: Sequence[Exercise], candidates: int) -> list[list[Exercise]]:
    """Candidate i gets the i-th exercise of each problem: one per problem, none shared."""
    by_problem: dict[str, list[Exercise]] = {}
    for exercise in exercises:
        by_problem.setdefault(exercise.problem, []).append(exercise)
    for problem, found in by_problem.items():
        if len(found) < candidates:
            raise ExerciseError(f"{problem}: {len(found)} exercises for {candidates} candidates;"
                                " each candidate needs one of every problem")
        bugs = [frozenset(m.id for m in e.mutants) for e in found[:candidates]]
        if len(set(bugs)) < len(bugs):
            raise ExerciseError(f"{problem}: two candidates would get the same bug")
    return [[found[i] for found in by_problem.values()] for i in range(candidates)]


def export_candidates(exercises: Sequence[Exercise], out: Path, *, root: Path, candidates: int, seed: int,
                      options: ExerciseOptions | None = None, run: SuiteRunner | None = None,
                      progress: Progress | None = None) -> list[PackPaths]:
    """Write one pack per candidate (see the module's docstring); its exercises are validated variants."""
    sets = candidate_sets(exercises, candidates)
    problems = load_problems(root)
    width = max(2, len(str(candidates)))
    total = sum(len(chosen) for chosen in sets)
    packs = []
    with tempfile.TemporaryDirectory(prefix="bugsmith-variants-") as scratch:
        done = 0
        for number, chosen in enumerate(sets, 1):
            variants = []
            for position, exercise in enumerate(chosen, 1):
                label = f"{number:0{width}d}"
                variant = variant_exercise(problems[exercise.problem], exercise,
                                           f"{seed}:{label}:{exercise.instance_id}", run=run,
                                           work=Path(scratch) / f"{label}-{position}")
                variants.append(replace(variant, id=f"exercise-{position:02d}"))
                done += 1
                if progress:
                    progress(done, total)
            label = f"{number:0{width}d}"
            target = (out.with_name(f"{out.stem}-{label}.zip") if out.suffix == ".zip"
                      else out / f"candidate-{label}")
            packs.append(export(variants, target, root=root, options=options))
    return packs
