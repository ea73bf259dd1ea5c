"""The engine on the whole reference corpus: every mutant valid, every family present, the
card's four bugs present, and ids that survive unrelated edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from bugsmith.harness.config import resolve
from bugsmith.harness.discovery import source_files
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants, mutants_of_source
from bugsmith.mutators.family import Family

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus():
    options = resolve(ROOT)
    return enumerate_mutants(source_files(options), root=ROOT, mutators=registry.select())


def test_every_mutant_of_the_corpus_compiles_and_changes_the_code(corpus) -> None:
    """Each mutant applies to its file at its span, differs from the original, and compiles."""
    sources = {}
    for mutant in corpus.mutants:
        source = sources.setdefault(mutant.file, (ROOT / mutant.file).read_text())
        mutated = mutant.apply(source)
        assert mutated != source
        compile(mutated, mutant.file, "exec", dont_inherit=True)


def test_ids_are_unique_and_typeable(corpus) -> None:
    """Ids are short, lowercase and distinct across the corpus."""
    ids = [mutant.id for mutant in corpus.mutants]
    assert len(ids) == len(set(ids))
    assert all(len(i) == 8 and i.isalnum() and i.islower() for i in ids)


def test_every_family_yields_mutants(corpus) -> None:
    """The domain families are not decoration: each finds sites in the reference corpus."""
    assert {mutant.family for mutant in corpus.mutants} == set(Family)


def _has(corpus, problem: str, family: Family, words: tuple[str, ...]) -> bool:
    return any(
        f"reference/{problem}/" in m.file and m.family is family
        and any(word in m.operator or word in m.original + m.mutated for word in words)
        for m in corpus.mutants
    )


def test_the_cards_four_bugs_exist(corpus) -> None:
    """A squeeze/reshape shape error in extra trees, an off-by-one window and a future-data
    leakage in rolling features, a capacity check after insertion in the scheduler."""
    assert _has(corpus, "extra_trees", Family.SHAPE, ("squeeze", "reshape", "ravel"))
    assert _has(corpus, "rolling_features", Family.WINDOW, ("window", "min-periods", "slice", "range"))
    assert _has(corpus, "rolling_features", Family.LEAKAGE, ("shift", "closed", "center"))
    after_insert = [m for m in corpus.mutants if m.operator == "scheduling/check-after-insert"
                    and "_admit" in m.scope]
    assert after_insert, "the admission check of the scheduler can be moved after the insertion"


SOURCE = '''\
def first(xs, n):
    if n < 0:
        return None
    return xs[:n]


def second(a, b):
    return a - b if a > b else b - a
'''


def _ids(source: str, function: str) -> set[str]:
    found = mutants_of_source(source, file="m.py", module="m", mutators=registry.select())
    return {m.id for m in found.mutants if m.scope == function}


def test_ids_are_stable_across_runs_and_edits_elsewhere() -> None:
    """The same source gives the same ids; editing `first` leaves the ids of `second` alone."""
    assert _ids(SOURCE, "second") == _ids(SOURCE, "second")
    edited = SOURCE.replace("if n < 0:\n        return None\n", "if n <= 0:\n        return []\n    n += 1\n")
    assert _ids(edited, "second") == _ids(SOURCE, "second")
    assert _ids(edited, "first") != _ids(SOURCE, "first")
