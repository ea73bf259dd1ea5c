"""The check that a candidate archive reveals nothing about its bugs, for every kind of pack."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bugsmith.harness.exercises.pack.statement import hints
from bugsmith.harness.exercises.records import Exercise
from bugsmith.mutators.registry import all_mutators

_WORDS = re.compile(r"\b(family|families|mutant|mutation|operator|hint|hidden|solution)\b", re.I)


def revealed(exercises: Sequence[Exercise], candidate_zip: Path,
             is_hidden: Callable[[str], bool]) -> list[str]:
    """What in the archive's names or contents gives a bug away (empty when nothing does).

    Looks for mutant ids, operator names, explanations, hints, instance ids, held-back test
    files and test names, words of bugsmith's vocabulary, and entries outside the exercises.
    """
    with zipfile.ZipFile(candidate_zip) as archive:
        names = archive.namelist()
        text = "\n".join(names) + "\n".join(archive.read(n).decode("utf-8") for n in names)
    hidden_names, visible_names = set(), set()
    for exercise in exercises:
        for test in (*exercise.fail_to_pass, *exercise.pass_to_pass):
            path, name = test.split("::")[0].rsplit("/", 1)[-1], test.split("::")[-1].split("[")[0]
            if is_hidden(test):
                hidden_names.update((path, name))
            else:
                visible_names.add(name)
    hidden_names -= visible_names  # a visible test may share a name with a held-back one
    forbidden = {m.name for m in all_mutators()} | hidden_names | {
        m.id for e in exercises for m in e.mutants} | {
        m.explanation for e in exercises for m in e.mutants} | {
        h for e in exercises for h in hints(e)} | {e.instance_id for e in exercises}
    found = sorted(word for word in forbidden if word in text)
    found += sorted({match.group(0) for match in _WORDS.finditer(text)})
    found += [name for name in names
              if not (name.startswith("candidate/exercise-") or name == "candidate/README.md")]
    return found
