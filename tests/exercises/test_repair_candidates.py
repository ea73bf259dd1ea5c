"""The repair search makes the edits of its most suspicious lines first and the rest only when
those are too few: its first REPAIR_CAP tries are the same as when it makes every edit of the file."""

from __future__ import annotations

import random
from dataclasses import astuple
from pathlib import Path
from types import SimpleNamespace

import pytest

from bugsmith.harness import config
from bugsmith.harness.exercises.measure.inverses import repair_edits
from bugsmith.harness.exercises.measure.probes import FIRST_LINES, REPAIR_CAP, Probes
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Mutant

FILES = ("scheduler/scheduler.py", "target_encoding/target_encoding.py")


def _key(edit: Mutant) -> tuple[object, ...]:
    return edit.file, astuple(edit.span), edit.operator, edit.mutated


def _probes(file: str, source: str) -> Probes:
    """A search over one file: the candidates read only the sources and the operators."""
    probes = Probes.__new__(Probes)
    probes.ev = SimpleNamespace(sources={file: source})  # type: ignore[assignment]
    probes.mutators = registry.select(())
    probes._original_edits = {}
    return probes


def _source(name: str) -> tuple[str, str]:
    file = f"reference/{name}"
    return file, (config.builtin_root() / file).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", FILES)
def test_narrowed_edits_are_the_whole_files_on_those_lines(name):
    file, source = _source(name)
    every = mutants_of_source(source, file=file, module="m", mutators=registry.select(())).mutants
    lines = frozenset(sorted({m.span.line for m in every})[::3])  # every third line that holds an edit
    narrowed = mutants_of_source(source, file=file, module="m", mutators=registry.select(()), lines=lines).mutants
    assert narrowed, "the lines hold edits"
    assert sorted(map(_key, narrowed)) == sorted(_key(m) for m in every if m.span.line in lines)


@pytest.mark.parametrize("name", FILES)
def test_edits_of_one_functions_lines_are_the_whole_files_there(name):
    """Lines inside one function: the visit skips every other function and class, and the engine's
    edits and the undo edits there are those a visit of the whole file makes on those lines."""
    file, source = _source(name)
    every = mutants_of_source(source, file=file, module="m", mutators=registry.select(())).mutants
    functions = sorted({m.function for m in every if m.function is not None})
    function = functions[len(functions) // 2]
    lines = frozenset(m.span.line for m in every if m.function == function)
    short = function.rsplit(".", 1)[-1]
    narrowed = repair_edits(source, file=file, module="m", functions=frozenset({short}), lines=lines)
    whole = repair_edits(source, file=file, module="m", functions=frozenset({short}))
    assert any(m.operator.startswith("undo/") for m in narrowed), "undo edits are among them"
    assert sorted(map(_key, narrowed)) == sorted(_key(m) for m in whole if m.span.line in lines)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_first_tries_are_those_of_the_whole_search(name, seed):
    """Scores with many ties (as Ochiai gives): the capped search makes fewer edits, the same first ones."""
    rng = random.Random(seed)
    file, source = _source(name)
    bugs = [m for m in mutants_of_source(source, file=file, module="m", mutators=registry.select(())).mutants
            if m.function is not None]
    bug = rng.choice(bugs)
    probes = _probes(file, source)
    lines = range(1, len(source.splitlines()) + 1)
    scores = {(file, n): rng.choice((1.0, 0.7, 0.7, 0.4, 0.2)) for n in lines if rng.random() < 0.6}
    assert sum(score >= 1.0 for score in scores.values()) >= FIRST_LINES  # the first pass is the narrowed one
    whole = probes.repair_candidates(bug, scores)
    capped = probes.repair_candidates(bug, scores, cap=REPAIR_CAP)
    assert len(whole) > REPAIR_CAP
    assert list(map(_key, capped)) == list(map(_key, whole[:REPAIR_CAP]))


def test_too_few_edits_on_the_first_lines_fall_back_to_every_line():
    file, source = _source(FILES[0])
    bug = next(m for m in mutants_of_source(source, file=file, module="m", mutators=registry.select(())).mutants
               if m.function is not None)
    probes = _probes(file, source)
    # the top lines are blank or comments: no edit there, every try comes from the lower ones
    blank = [n for n, text in enumerate(source.splitlines(), 1) if not text.strip()][:FIRST_LINES]
    scores = {(file, n): 1.0 for n in blank} | {(file, n): 0.5 for n in range(1, len(source.splitlines()) + 1)
                                                 if n not in blank}
    capped = probes.repair_candidates(bug, scores, cap=REPAIR_CAP)
    assert len(capped) == REPAIR_CAP
    assert list(map(_key, capped)) == list(map(_key, probes.repair_candidates(bug, scores)[:REPAIR_CAP]))


def test_a_source_path_is_not_needed(tmp_path: Path):
    """The line filter reads nothing but the text: a file outside any project works the same."""
    source = "def f(a, b):\n    if a < b:\n        return a + b\n    return a - b\n"
    every = mutants_of_source(source, file="m.py", module="m", mutators=registry.select(())).mutants
    on_3 = mutants_of_source(source, file="m.py", module="m", mutators=registry.select(()), lines={3}).mutants
    assert {m.span.line for m in on_3} == {3}
    assert sorted(map(_key, on_3)) == sorted(_key(m) for m in every if m.span.line == 3)
