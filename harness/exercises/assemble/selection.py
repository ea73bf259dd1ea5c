"""Choose mutants for exercises and validate them like SWE-bench task instances.

Per problem: enumerate its mutants, drop the unrealistic ones (import-time sites, large
deletions, edits that read as generated), order the rest by family round-robin with a seeded shuffle, then validate in
batches: first against the visible tests (cheap: a candidate needs a symptom), then against
every test (FAIL_TO_PASS and PASS_TO_PASS). Silent bugs are taken first; loud ones only fill
what silent ones cannot. Full runs are cached in the store, so a rebuild re-runs nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bugsmith.harness import config
from bugsmith.harness.discovery import source_files
from bugsmith.harness.evaluate import Evaluator
from bugsmith.harness.exercises.assemble.pool import next_group, window
from bugsmith.harness.exercises.assemble.traces import machine_trace
from bugsmith.harness.exercises.measure.difficulty import LEVEL_NAMES, time_limit_minutes
from bugsmith.harness.exercises.measure.levels import Levels
from bugsmith.harness.exercises.measure.probes import Probes, visible_test_texts
from bugsmith.harness.exercises.records import Exercise, ExerciseError, ExerciseOptions, Symptom
from bugsmith.harness.exercises.sources.catalogue import load_problems
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.harness.import_time import import_calls
from bugsmith.harness.job_plan import CACHE_VERSION
from bugsmith.harness.mutation_run.planning import test_file_hashes
from bugsmith.harness.outcome import Failure
from bugsmith.harness.shared.protocol import TestOutcome, TestResult, Verdict
from bugsmith.harness.store import Store
from bugsmith.harness.verdict import PROCESS_EXITS, failure_kind
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants
from bugsmith.mutators.mutant import Family, Mutant

CACHE_KIND = "exercise-verdict"
VISIBLE_KIND = "exercise-visible-verdict"
MAX_DELETED_LINES = 3
BATCH = 12  # candidates run against the visible tests at a time: cheap runs, a wide batch
CHUNK = 4  # candidates run against every test at a time: enough to keep the workers busy
# Groups run at a time, per worker (`_run_ahead`): two each keep a worker busy while a longer
# run of the batch ends.
AHEAD = 2
MESSAGE_LINES = 8
Progress = Callable[[str, int, int], None]  # problem, exercises found, exercises wanted


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """What a full run of one bug (or K bugs together) showed."""

    mutants: tuple[Mutant, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    symptoms: tuple[Symptom, ...]
    silent: bool
    alone: dict[str, tuple[str, ...]] = field(default_factory=dict)  # mutant id -> its FAIL_TO_PASS alone


def problems_of(root: Path) -> list[str]:
    """The problems of `root`: its `[tool.bugsmith.exercises]`, else its `reference/` corpus."""
    return list(load_problems(root))


def eligible(mutant: Mutant) -> bool:
    """A realistic exercise bug: runs inside a function, and is not a large deletion."""
    if mutant.function is None:  # runs at import: loud before any test starts
        return False
    lines = mutant.diff.splitlines()
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    return removed - added <= MAX_DELETED_LINES


def ordered(mutants: Sequence[Mutant], rng: random.Random) -> list[Mutant]:
    """Family round-robin (domain families first); within a family, operator round-robin.

    The seed shuffles each operator's sites and the order of operators within a family, so
    that different seeds give different exercises and one seed always the same.
    """
    by_family: dict[Family, dict[str, list[Mutant]]] = defaultdict(lambda: defaultdict(list))
    for mutant in sorted(mutants, key=lambda m: m.id):
        by_family[mutant.family][mutant.operator].append(mutant)
    queues = []
    for family in Family:
        operators = [by_family[family][name] for name in sorted(by_family[family])]
        for sites in operators:
            rng.shuffle(sites)
        rng.shuffle(operators)
        if operators:
            queues.append(_interleave(operators))
    return _interleave(queues)


def _interleave(queues: Sequence[Sequence[Mutant]]) -> list[Mutant]:
    """One from each queue in turn until all are empty."""
    longest = max((len(q) for q in queues), default=0)
    return [queue[i] for i in range(longest) for queue in queues if i < len(queue)]


def asked_problems(options: ExerciseOptions, root: Path | None) -> tuple[Path, dict[str, Problem], list[str]]:
    """The project root, its problems, and those `options` name (all by default); ExerciseError
    for a name it does not have."""
    root = (root or config.builtin_root()).resolve()
    known = load_problems(root)
    problems = list(options.problems) or list(known)
    unknown = [p for p in problems if p not in known]
    if unknown:
        raise ExerciseError(f"unknown problem {unknown[0]!r}; choose from {', '.join(known)}")
    return root, known, problems


def build_exercises(options: ExerciseOptions, *, root: Path | None = None, jobs: int | None = None,
                    progress: Progress | None = None, notice: Callable[[str], None] | None = None,
                    ) -> tuple[Exercise, ...]:
    """Validated exercises as `options` ask, spread evenly over the problems; same seed, same result.

    Seeds 0, 1, 2, ... get disjoint exercises per problem until its pool runs out; `notice` is
    told, naming the problem, when a seed has to repeat exercises a lower seed handed out.
    """
    root, known, problems = asked_problems(options, root)
    if options.count < 1 or options.bugs < 0:
        raise ExerciseError("--count and --bugs must be at least 1")
    if options.difficulty and options.difficulty not in LEVEL_NAMES:
        raise ExerciseError(f"unknown difficulty {options.difficulty!r}; choose from {', '.join(LEVEL_NAMES)}")
    mutators = registry.select(options.families)
    quotas = {p: options.count // len(problems) + (i < options.count % len(problems))
              for i, p in enumerate(problems)}
    found: list[Exercise] = []
    short: list[str] = []
    for problem in problems:
        if quotas[problem]:
            builder = ProblemBuilder(known[problem], options, mutators, jobs, progress)
            built = builder.build(quotas[problem])
            found.extend(built)
            if builder.repeats is not None and notice:
                notice(f"{problem}: the pool is exhausted ({builder.repeats} distinct exercises with these"
                       f" options for seeds 0 to {max(0, builder.repeats // quotas[problem] - 1)});"
                       f" seed {options.seed} repeats exercises of lower seeds")
            if len(built) < quotas[problem]:
                short.append(f"{problem} {len(built)} of {quotas[problem]} ({builder.shortfall})")
    if short:
        raise ExerciseError(
            f"only {len(found)} of {options.count} exercises validate with these options: {'; '.join(short)}"
            " (validated bugs are kept: fewer problems, families or bugs, or drop --silent-only)")
    width = max(2, len(str(len(found))))
    return tuple(replace(exercise, id=f"exercise-{i:0{width}d}") for i, exercise in enumerate(found, 1))


class ProblemBuilder:
    """Builds one problem's exercises with one pool of workers."""

    def __init__(self, problem: Problem, options: ExerciseOptions, mutators, jobs, progress) -> None:
        self.run_options = config.resolve(problem.root, problem.mutate, tests=problem.test_paths, jobs=jobs,
                                          exclude=problem.exclude)
        self.spec = problem
        self.problem = problem.name
        self.options = options
        self.progress = progress
        files = source_files(self.run_options)
        enumeration = enumerate_mutants(files, root=problem.root, mutators=mutators)
        # A bug in a function the module runs while it is imported fails at import: loud, and
        # the workers' code swap would not reproduce it.
        root = problem.root.resolve()
        texts = {f.relative_to(root).as_posix(): f.read_text(encoding="utf-8") for f in files}
        at_import = {name: import_calls(text).reached for name, text in texts.items()}
        # An edit that reads as generated gives itself away in the handout (harness.exercises.assemble.traces).
        candidates = [m for m in enumeration.mutants
                      if eligible(m) and m.function not in at_import.get(m.file, ())
                      and machine_trace(m, texts[m.file]) is None]
        # One order per problem, whatever the seed: seeds take windows of it (harness.exercises.assemble.pool).
        self._start(ordered(candidates, random.Random(f"pool:{problem.name}")))

    def _start(self, candidates: list[Mutant]) -> None:
        """Nothing validated yet of `candidates`, in pool order."""
        self.candidates = candidates
        self.rank = {m.id: i for i, m in enumerate(candidates)}
        self.seen = 0  # candidates run against the visible tests
        self.quiet: list[Mutant] = []  # silent on the visible tests, not yet run against all
        self.noisy: list[Mutant] = []  # loud somewhere, not yet validated as loud bugs
        self.silent: list[Evidence] = []
        self.loud: list[Evidence] = []
        self.groups: list[Evidence] = []
        self.used: set[str] = set()
        self.tried: set[frozenset[str]] = set()
        self.spoiled: Counter[str] = Counter()
        self.outcomes: Counter[bool] = Counter()  # groups tried: made an exercise (True) or spoiled
        self.quota = 0
        self.window_start = 0
        self.repeats: int | None = None  # the sequence's length when this seed wrapped around it
        self.shortfall = _shortfall(0, 0, len(candidates))
        self.on_batch: Callable[[int, int], None] | None = None

    def build(self, quota: int) -> list[Exercise]:
        with self._session():
            chosen = self._chosen(quota)
            return [self._exercise(evidence) for evidence in chosen]

    def validate_all(self, seen: Callable[[int, int], None] | None = None) -> tuple[list[Evidence], list[Evidence]]:
        """Every candidate validated alone (cached runs): the silent and the loud single bugs.
        `seen` is told how many candidates have run against the visible tests, of how many."""
        self.on_batch = seen
        with self._session():
            self._singles(len(self.candidates))
        return list(self.silent), list(self.loud)

    @contextlib.contextmanager
    def _session(self) -> Iterator[None]:
        """Workers and the store, for as long as the builder validates."""
        with Evaluator(self.run_options) as ev:
            self.ev = ev
            self.all_tests = tuple(sorted(ev.tests))
            self.visible = tuple(t for t in self.all_tests if not self.spec.is_hidden(t))
            self._check_test_files()
            store = Store.open(self.run_options.store_path)
            try:
                self.store = store
                self.cache_salt = json.dumps([CACHE_VERSION, ev.sources, test_file_hashes(self.run_options)],
                                             sort_keys=True)
                probes = Probes(ev, self.visible, visible_test_texts(self.spec.root, self.spec.visible))
                self.levels = Levels(self.options, probes, store, self._key)
                yield
            finally:
                store.close()

    def _fitting(self, wanted: int) -> list[Evidence]:
        """The first `wanted` single bugs of the asked difficulty, in pool order: a pool that
        doubles until it has them (every single bug, when no difficulty is asked)."""
        if not self.options.difficulty:
            return self._singles(wanted)
        size = wanted
        while True:
            singles = self._singles(size)
            fitting = [e for e in singles if self._fits(e)]
            if len(fitting) >= wanted or len(singles) < size:
                return fitting[:wanted]
            size *= 2

    def _fits(self, evidence: Evidence) -> bool:
        """Whether these bugs make an exercise of the asked difficulty (any, when none is asked)."""
        return not self.options.difficulty or self.levels.fits(evidence.mutants, evidence.silent)

    def _chosen(self, quota: int) -> list[Evidence]:
        """This seed's window of the problem's sequence of single bugs (or K-bug groups)."""
        self.quota = quota
        self.window_start = self.options.seed * quota
        if self.options.bug_count == 1:
            taken = window(self._fitting, self.options.seed, quota)
            chosen = [replace(e, alone={e.mutants[0].id: e.fail_to_pass}) for e in taken.items]
        else:
            taken = window(self._multi, self.options.seed, quota)
            chosen = list(taken.items)
        self.repeats = taken.total
        self.shortfall = self._why_short()
        return chosen

    def _multi(self, wanted: int) -> list[Evidence]:
        """The first `wanted` K-bug groups, from a pool of bugs with a visible symptom that doubles
        until they are formed or the problem has no candidate left: bugs that mask each other, or
        a silent pair that turns loud, must not end a build that a bigger pool would finish."""
        size = (wanted + 1) * self.options.bug_count  # one group to spare; more only when groups spoil
        while True:
            pool = self._seen(size)
            self._group(pool, wanted)
            if len(self.groups) >= wanted or len(pool) < size:
                return self.groups[:wanted]
            size *= 2

    def _seen(self, wanted: int) -> list[Mutant]:
        """The first `wanted` bugs with a symptom on the visible tests, in pool order: those that
        fail them silently, then (unless --silent-only, once every candidate has run) loud ones.
        Only the visible run so far: a bug runs on every test alone once a group of it fits
        (`_group`), where validating every bug of the pool alone was most of a hard build."""
        while len(self.quiet) < wanted and self.seen < len(self.candidates):
            self._see_next(wanted)
        pool = self.quiet[:wanted]
        if len(pool) < wanted and not self.options.silent_only:
            pool += sorted(self.noisy, key=lambda m: self.rank[m.id])[:wanted - len(pool)]
        return pool

    def _check_test_files(self) -> None:
        """Every collected test is in a visible or held-back file, or a held-back one could leak."""
        known = {*self.spec.visible, *self.spec.hidden}
        stray = [t for t in self.all_tests if t.split("::", 1)[0] not in known]
        if stray:
            raise ExerciseError(f"{self.problem}: pytest reports test {stray[0]!r} outside the problem's"
                                " test files; pytest's rootdir must be the project root")

    def _report(self, found: int) -> None:
        if self.progress:
            self.progress(self.problem, min(max(0, found - self.window_start), self.quota), self.quota)

    def _singles(self, wanted: int) -> list[Evidence]:
        """The first `wanted` validated single bugs in pool order: silent ones, then, once every
        candidate has been tried and unless --silent-only, loud ones."""
        while len(self.silent) < wanted:
            if self.quiet:  # silent on the visible tests: a full run tells silent from loud
                chunk, self.quiet = self.quiet[:max(CHUNK, wanted - len(self.silent))], \
                    self.quiet[max(CHUNK, wanted - len(self.silent)):]
                for evidence in self._validate([[m] for m in chunk]):
                    if evidence.silent:
                        self.silent.append(evidence)
                    else:  # loud on a held-back test
                        self.noisy.append(evidence.mutants[0])
                self.silent.sort(key=lambda e: self.rank[e.mutants[0].id])
            elif self.seen < len(self.candidates):
                self._see_next(wanted)
            else:
                break
            self._report(len(self.silent) // self.options.bug_count)
        if len(self.silent) >= wanted or self.options.silent_only:
            return self.silent[:wanted]
        self.noisy.sort(key=lambda m: self.rank[m.id])
        while len(self.silent) + len(self.loud) < wanted and self.noisy:
            chunk, self.noisy = self.noisy[:CHUNK], self.noisy[CHUNK:]
            self.loud.extend(e for e in self._validate([[m] for m in chunk]) if not e.silent)
        return (self.silent + self.loud)[:wanted]

    def _see_next(self, wanted: int) -> None:
        """The next batch of candidates run against the visible tests, sorted into quiet and noisy."""
        batch = self.candidates[self.seen:self.seen + max(BATCH, 2 * wanted)]
        self.seen += len(batch)
        quiet, noisy = self._with_symptom(batch)
        self.quiet.extend(quiet)
        self.noisy.extend(noisy)
        if self.on_batch:
            self.on_batch(self.seen, len(self.candidates))

    def _with_symptom(self, batch: Sequence[Mutant]) -> tuple[list[Mutant], list[Mutant]]:
        """The mutants that fail a visible test, split by how they fail it (silent, loud)."""
        keys = {mutant.id: self._key([mutant], "visible") for mutant in batch}
        cached = self.store.extras(VISIBLE_KIND)
        todo = [mutant for mutant in batch if keys[mutant.id] not in cached]
        if todo:  # cached too: a bigger pool, or a second build, re-runs nothing it has seen
            verdicts = self.ev.run([self.ev.job(m.id, [m], tests=self.visible) for m in todo])
            for mutant in todo:
                if mutant.id in verdicts:
                    cached[keys[mutant.id]] = _portable(verdicts[mutant.id])
                    self.store.put_extra(VISIBLE_KIND, keys[mutant.id], cached[keys[mutant.id]])
        quiet: list[Mutant] = []
        noisy: list[Mutant] = []
        for mutant in batch:
            data = cached.get(keys[mutant.id])
            verdict = None if data is None else Verdict.from_dict({"mutant_id": mutant.id, **data})
            failed = _failed(verdict) if verdict is not None else None
            if failed:
                kinds = {failure_kind(r) for r in failed.values()}
                (quiet if kinds == {Failure.SILENT} else noisy).append(mutant)
                # What a group's masking is told from; a full run alone later says it again.
                self.levels.remember(mutant, self._symptoms(failed), kinds == {Failure.SILENT})
        return quiet, noisy

    def _run(self, keys: dict[str, Sequence[Mutant]]) -> dict[str, dict]:
        """Full runs of the groups (by their `_key`) not run before, into the store; the verdicts
        of all of them, by key."""
        stored = {key: self.store.extras_at(CACHE_KIND, key) for key in keys}
        cached = {key: data for key, data in stored.items() if data is not None}
        todo = [key for key in keys if key not in cached]
        if todo:
            verdicts = self.ev.run([self.ev.job(key, keys[key]) for key in todo])
            for key in todo:
                self.store.put_extra(CACHE_KIND, key, _portable(verdicts[key]))
                cached[key] = _portable(verdicts[key])
        return cached

    def _validate(self, groups: Sequence[Sequence[Mutant]]) -> list[Evidence]:
        """Full runs (cached) of each group; only groups that fail a visible test survive."""
        keys = {self._key(group): group for group in groups}
        cached = self._run(keys)
        found = []
        for key, group in keys.items():
            evidence = self._evidence(group, Verdict.from_dict({"mutant_id": key, **cached[key]}))
            if evidence is not None:
                found.append(evidence)
                if len(group) == 1:
                    self.levels.remember(group[0], evidence.symptoms, evidence.silent)
        return found

    def _key(self, group: Sequence[Mutant], tests: str = "all") -> str:
        ids = sorted(m.id for m in group)
        salt = [ids, self.cache_salt] if tests == "all" else [ids, self.cache_salt, tests]  # old keys stay valid
        return hashlib.sha256(json.dumps(salt).encode()).hexdigest()

    def _evidence(self, group: Sequence[Mutant], verdict: Verdict) -> Evidence | None:
        failed = _failed(verdict)
        if not failed or not any(t in failed for t in self.visible):
            return None
        passed_ids = {r.id for r in verdict.results if r.outcome == TestOutcome.PASSED}
        passed = tuple(t for t in self.all_tests if t in passed_ids)
        return Evidence(mutants=tuple(group), fail_to_pass=tuple(t for t in self.all_tests if t in failed),
                        pass_to_pass=passed, symptoms=self._symptoms(failed),
                        silent=all(failure_kind(r) == Failure.SILENT for r in failed.values()))

    def _symptoms(self, failed: dict[str, TestResult]) -> tuple[Symptom, ...]:
        """What the failed visible tests show, in test order."""
        return tuple(Symptom(test=t, exception=failed[t].exception or "", message=_clean(failed[t].message))
                     for t in self.visible if t in failed)

    def _group(self, pool: Sequence[Mutant], wanted: int) -> None:
        """Forms K-bug groups of bugs in K different functions, validated together and then each
        alone (its FAIL_TO_PASS alone is the exercise's record of which tests each bug fails),
        until `wanted` are formed or `pool` has no untried group left.

        Groups are tried in pool order (`pool.next_group`); a group that fails together (its
        bugs mask each other, or two silent bugs fail loudly together) frees its members for
        other groups, and a member that spoiled two groups is dropped, so at most 3n/K groups
        are ever validated for n bugs.
        """
        while len(self.groups) < wanted:
            group = self._next_group(pool, self.tried, self.spoiled, self.used)
            if group is None:
                return
            self._run_ahead(pool, group)
            self.tried.add(frozenset(m.id for m in group))
            validated = self._validate([group])
            fits = validated and (validated[0].silent or not self.options.silent_only) and self._fits(validated[0])
            alone = self._alone(group) if fits else None
            if alone is not None:
                self.groups.append(replace(validated[0], alone=alone))
                self.used.update(m.id for m in group)
            else:
                self.spoiled.update(m.id for m in group)
            self.outcomes[alone is not None] += 1
            self._report(len(self.groups))

    def _next_group(self, pool: Sequence[Mutant], tried: set[frozenset[str]], spoiled: Counter[str],
                    used: set[str]) -> list[Mutant] | None:
        free = [m for m in pool if m.id not in used and spoiled[m.id] < 2]
        return next_group(free, self.options.bug_count, tried, self.levels.may_fit)

    def _run_ahead(self, pool: Sequence[Mutant], group: Sequence[Mutant]) -> None:
        """Unless `group`'s full run is cached, run it together with the groups `_group` tries
        after it if each has the outcome most groups of this build had so far, and, when that is
        to make an exercise, their bugs alone: one run at a time left every worker but one idle.
        The runs go to the store and nothing else, so what is decided, and in what order, is as
        if each ran in turn; a wrong guess costs runs, not the result."""
        if self.store.extras_at(CACHE_KIND, self._key(group)) is not None:
            return
        fit = self.outcomes[True] >= self.outcomes[False]
        groups = [group, *self._ahead(pool, group, AHEAD * self.run_options.jobs - 1, fit)]
        alone = {m.id: [m] for g in groups for m in g} if fit else {}
        self._run({self._key(g): g for g in [*groups, *alone.values()]})

    def _ahead(self, pool: Sequence[Mutant], group: Sequence[Mutant], count: int,
               fit: bool) -> list[list[Mutant]]:
        """The `count` groups `_group` tries after `group` if it and each of them make an
        exercise (`fit`), or if each spoils."""
        tried, spoiled, used = set(self.tried), Counter(self.spoiled), set(self.used)
        ahead: list[list[Mutant]] = []
        last: Sequence[Mutant] | None = group
        while last is not None and len(ahead) < count:
            ids = [m.id for m in last]
            tried.add(frozenset(ids))
            (used if fit else spoiled).update(ids)
            last = self._next_group(pool, tried, spoiled, used)
            if last is not None:
                ahead.append(last)
        return ahead

    def _alone(self, group: Sequence[Mutant]) -> dict[str, tuple[str, ...]] | None:
        """Each bug's FAIL_TO_PASS alone, from a full run of each; None if one fails no visible test."""
        singles = self._validate([[m] for m in group])
        if len(singles) != len(group):
            return None
        return {e.mutants[0].id: e.fail_to_pass for e in singles}

    def _why_short(self) -> str:
        """What was tried, and why a problem gave fewer exercises than asked, if it did."""
        grouped = self.options.bug_count > 1  # groups draw on bugs seen failing a visible test (`_seen`)
        singles = [*self.quiet, *self.noisy] if grouped else [e.mutants[0] for e in self.silent + self.loud]
        functions = {(m.file, m.function) for m in singles}
        told = _shortfall(len(singles), len(self.tried), len(self.candidates),
                          "bugs with a visible symptom" if grouped else "single bugs validated")
        if self.options.bug_count > 1 and len(functions) < self.options.bug_count:
            return f"{told}: the validated bugs lie in {len(functions)} functions, {self.options.bug_count} needed"
        if not self.candidates:
            return f"{told}: no candidate edit with these families"
        return told

    def _exercise(self, evidence: Evidence) -> Exercise:
        by_file: dict[str, list[Mutant]] = defaultdict(list)
        for mutant in evidence.mutants:
            by_file[mutant.file].append(mutant)
        mutants = tuple(sorted(evidence.mutants, key=lambda m: (m.file, m.span.line, m.span.column)))
        findability, score = self.levels.score(mutants, evidence.silent)
        digest = hashlib.sha256(" ".join([self.problem, *sorted(m.id for m in mutants)]).encode())
        return Exercise(
            id="", instance_id=f"{self.spec.instance_prefix}__{self.problem}-{digest.hexdigest()[:10]}",
            problem=self.problem, mutants=mutants,
            buggy={f: self.levels.handout(self.ev.sources[f], ms, mutants, findability)
                   for f, ms in sorted(by_file.items())},
            reference={f: self.ev.sources[f] for f in sorted(by_file)},
            fail_to_pass=evidence.fail_to_pass, pass_to_pass=evidence.pass_to_pass,
            symptoms=evidence.symptoms, silent=evidence.silent, difficulty=score,
            time_limit_minutes=time_limit_minutes(score.score, len(mutants)),
            bug_tests=tuple(evidence.alone.get(m.id, ()) for m in mutants),
            findability=findability,
        )


def _shortfall(singles: int, groups: int, candidates: int, what: str = "single bugs validated") -> str:
    return f"{singles} {what}, {groups} groups tried, of {candidates} candidate edits"


def _failed(verdict: Verdict) -> dict[str, TestResult] | None:
    """Failed tests by id; None when the run itself went wrong (timeout, crash, exit)."""
    if verdict.timed_out or verdict.error or verdict.died or verdict.missing:
        return None
    failed = {r.id: r for r in verdict.results if r.outcome == TestOutcome.FAILED}
    if any(r.exception in PROCESS_EXITS for r in failed.values()):
        return None
    return failed


def _portable(verdict: Verdict) -> dict:
    """The facts of a verdict that decide an exercise (no timings, so a rebuild is identical)."""
    results = [{k: v for k, v in r.to_dict().items() if k != "duration"} for r in verdict.results]
    return {"results": results, "missing": list(verdict.missing), "error": verdict.error,
            "timed_out": verdict.timed_out, "died": verdict.died}


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def _clean(message: str) -> str:
    """The first lines of an assertion message, without memory addresses (they vary per run)."""
    lines = _ADDRESS.sub("0x...", message).splitlines()[:MESSAGE_LINES]
    return "\n".join(line.rstrip() for line in lines)
