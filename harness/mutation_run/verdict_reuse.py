"""Verdicts a run takes without running the mutant again, and the order that makes the rest
cheaper: a mutant killed before is killed again while the test that killed it keeps its
digest (`still_killed`: an edit that changed only its other covering tests cannot save it);
the covering tests that passed on it before and kept their digest pass again
(`known_passes`); a renamed local's mutants take the verdicts of the mutants they were
(`renamed_verdicts`). The store's extras `KILLS` and `PASSED`, keyed by each mutant's site,
hold what they read; a job cut to the tests a narrowed executor collected runs in two parts
(`split_collected`, `two_parts_as_one`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import replace

from bugsmith.harness.incremental import file_units, mutated_meaning
from bugsmith.harness.job_plan import function_texts
from bugsmith.harness.outcome import Outcome, Status, TestInfo
from bugsmith.harness.shared.protocol import Job, TestOutcome, Verdict
from bugsmith.harness.store import Store
from bugsmith.mutators.mutant import Mutant

KILLS = "killed-by"  # the store's extras: per site_key, the test that killed the mutant, and its digest
PASSED = "passed-by"  # per site_key, the tests that ran on the mutant and passed, with their digests


def still_killed(store: Store, todo: Mapping[str, tuple[str, ...]], sites: Mapping[str, str],
                 digests: Mapping[str, str]) -> dict[str, Outcome]:
    """Mutants (id -> covering tests) whose killing test still covers them with the same digest:
    killed again, without a run (an edit that changed only their other covering tests cannot
    save them)."""
    found = {}
    for mutant_id, tests in todo.items():
        record = store.extras_at(KILLS, sites[mutant_id])
        if record is None or record.get("test") not in tests:
            continue
        if digests.get(record["test"]) == record.get("digest"):
            try:
                found[mutant_id] = Outcome.from_dict(record["outcome"])
            except (KeyError, TypeError, ValueError):
                continue
    return found


def renamed_verdicts(store: Store, missed: Mapping[str, tuple[Mutant, tuple[str, ...]]], current: Set[str],
                     sources: Mapping[str, str], sites: Mapping[str, str],
                     old_keys: Callable[[Mutant, str, tuple[str, ...]], tuple[str, str]]) -> dict[str, Outcome]:
    """Verdicts of new mutants (id -> mutant and covering tests) that only a renamed local tells
    from a mutant of the last run: the same file, function and operator, and the same
    `mutated_meaning` (the function with the mutant applied, locals numbered), so the two do the
    same. Such a verdict carries over where the old mutant has an outcome under `old_keys` (its
    outcome and site keys, computed with the old text but these tests' current digests): the
    same tests, unchanged, ran against the same code. Its kill and pass records carry over with
    it. A rename that is not provably one (a local that shadows a global, a name a nested
    function or a comprehension binds, `locals()`) gives another digest: the mutant runs."""
    previous = store.previous_run(sources)
    if previous is None:
        return {}
    old_ids, old_sources = previous
    renamed = {file: _renamed_functions(old_sources[file], text) for file, text in sources.items()
               if old_sources.get(file, text) != text}
    fresh = {i: entry for i, entry in missed.items() if entry[0].function in renamed.get(entry[0].file, ())}
    wanted = {(m.file, m.function, m.operator) for m, _ in fresh.values()}
    before: dict[tuple[str, str | None, str, str], Mutant] = {}
    for old_id in old_ids:
        # A mutant of the last run whose site's text changed (gone now), or one whose key did
        # (its function's text is in the key when the mutant brings in a name).
        if not wanted or (old_id in current and old_id not in missed):
            continue
        old = store.mutant(old_id)
        if old is None or (old.file, old.function, old.operator) not in wanted:
            continue
        digest = mutated_meaning(old_sources[old.file], old)
        if digest is not None:
            before.setdefault((old.file, old.function, old.operator, digest), old)
    found: dict[str, Outcome] = {}
    for mutant_id, (mutant, tests) in fresh.items():
        if not before or (digest := mutated_meaning(sources[mutant.file], mutant)) is None:
            continue
        old = before.get((mutant.file, mutant.function, mutant.operator, digest))
        if old is None:
            continue
        key, site = old_keys(old, old_sources[old.file], tests)
        outcome = store.cached([key]).get(key)
        if outcome is None or outcome.status in (Status.EQUIVALENT, Status.NO_COVERAGE):
            continue  # a reviewed equivalence names the old mutant's id, not this one
        found[mutant_id] = replace(outcome, mutant_id=mutant_id)
        for kind in (KILLS, PASSED):
            record = store.extras_at(kind, site)
            if record is not None and kind == KILLS and isinstance(record.get("outcome"), dict):
                record["outcome"] = {**record["outcome"], "mutant_id": mutant_id}
            if record is not None:
                store.put_extra(kind, sites[mutant_id], record)
    return found


def _renamed_functions(old: str, new: str) -> set[str]:
    """Functions whose text changed and whose meaning did not (a local renamed)."""
    before = {u.name: u.digest for u in file_units(old).units}
    try:
        old_texts, new_texts = function_texts(old), function_texts(new)
    except (SyntaxError, ValueError):  # a text Python cannot parse has no functions to match
        return set()
    return {u.name for u in file_units(new).units
            if before.get(u.name) == u.digest and old_texts.get(u.name) != new_texts.get(u.name)}


def last_killers(store: Store, todo: Mapping[str, tuple[str, ...]], sites: Mapping[str, str]) -> dict[str, str]:
    """Per mutant (id -> covering tests) killed before by a covering test whose digest changed
    (so `still_killed` could not keep the verdict), that test: it most likely kills again,
    and run first it spares running the others (the order never decides a status)."""
    found = {}
    for mutant_id, tests in todo.items():
        record = store.extras_at(KILLS, sites[mutant_id])
        if record is not None and record.get("test") in tests:
            found[mutant_id] = record["test"]
    return found


def passed_before(store: Store, mutant_ids: Iterable[str], sites: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Per mutant, the tests that passed on it in earlier runs, with their digests then
    (`record_passes`); mutants with none are left out."""
    found = {}
    for mutant_id in mutant_ids:
        record = store.extras_at(PASSED, sites[mutant_id])
        if record:
            found[mutant_id] = record
    return found


def known_passes(passed: Mapping[str, Mapping[str, str]], todo: Mapping[str, tuple[str, ...]],
                 digests: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per mutant (id -> covering tests), the covering tests that passed on it before
    (`passed_before`) and kept their digest: they pass again, so a warm run runs only the
    others (a survivor whose one covering test changed runs that test alone)."""
    found: dict[str, frozenset[str]] = {}
    for mutant_id, tests in todo.items():
        record = passed.get(mutant_id, {})
        known = frozenset(t for t in tests if t in digests and record.get(t) == digests[t])
        if known:
            found[mutant_id] = known
    return found


def likely_survivors(passed: Mapping[str, Mapping[str, str]], jobs: Sequence[Job]) -> set[str]:
    """The jobs' mutants on which every test the job runs passed before (`passed_before`),
    whatever the tests' digests now: most likely they survive again and run every one of their
    tests, the longest jobs of a run after an edit."""
    return {job.mutant_id for job in jobs if job.mutant_id in passed
            and all(test in passed[job.mutant_id] for test in job.tests)}


def survivors_first(jobs: Sequence[Job], likely: Set[str], by_id: Mapping[str, TestInfo]) -> list[Job]:
    """The `likely` survivors (`likely_survivors`) first, the longest first, then the other jobs
    in their order: a survivor runs every one of its tests, and sent late it kept one worker
    busy alone at the end while the other idled. Only the order changes, never what a job
    runs."""
    def seconds(job: Job) -> float:
        return sum(by_id[test].duration for test in job.tests if test in by_id)

    ahead = sorted((job for job in jobs if job.mutant_id in likely), key=seconds, reverse=True)
    return ahead + [job for job in jobs if job.mutant_id not in likely]


def record_passes(store: Store, site: str, verdict: Verdict, digests: Mapping[str, str],
                  known: frozenset[str]) -> frozenset[str]:
    """Keep the tests that passed on the mutant, with those `known` to pass, for `known_passes`;
    return them all."""
    passed = {r.id for r in verdict.results if r.outcome == TestOutcome.PASSED and r.id in digests}
    if passed - known:
        store.put_extra(PASSED, site, {t: digests[t] for t in sorted(known | passed)})
    return known | passed


def split_collected(jobs: Sequence[Job], collected: frozenset[str],
                    rebuild: Callable[[Job, tuple[str, ...]], Job]) -> tuple[list[Job], dict[str, Job]]:
    """Jobs cut to the tests a narrowed executor collected, and the rest of each (by mutant id),
    to run after it only if the first part did not kill the mutant: most mutants die in a test
    that changed (those are collected), and the whole suite is collected only for the others."""
    now: list[Job] = []
    later: dict[str, Job] = {}
    for job in jobs:
        here = tuple(t for t in job.tests if t in collected)
        rest = tuple(t for t in job.tests if t not in collected)
        if not rest:
            now.append(job)
        elif not here:
            later[job.mutant_id] = job
        else:
            now.append(rebuild(job, here))
            later[job.mutant_id] = rebuild(job, rest)
    return now, later


def two_parts_as_one(first: Outcome, second: Outcome) -> Outcome:
    """The outcome of a job run in two parts (`split_collected`): the second part's verdict,
    with the tests and time of both."""
    return replace(second, covered_by=(*first.covered_by, *second.covered_by),
                   tests_run=first.tests_run + second.tests_run, duration=first.duration + second.duration)
