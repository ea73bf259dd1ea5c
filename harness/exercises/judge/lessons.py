"""What a suite's missed bugs teach: one lesson per behaviour no test checks, with one test.

The bugs a suite missed (survivors, and the mutants on lines no test runs) are grouped by the
behaviour their code belongs to (harness.exercises.judge.behaviours: an optional parameter, an error
path, a branch, else the function and the bug family), so that eighteen bugs in the weighting
code read as one lesson, "sample weights are never tested", not as eighteen entries.

Each lesson carries one suggested test. A test triage verified on one of the lesson's bugs is
used when it calls the problem's public API; it is renamed for the behaviour. Otherwise the
lesson gets a sketch through the public API that says what to call and what to assert, marked
as a sketch: nothing claims a check that was not run.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bugsmith.harness.exercises.judge.behaviours import CodeMap, Region, clause, contract_sentence
from bugsmith.harness.outcome import Status


@dataclass(frozen=True, slots=True, kw_only=True)
class Lesson:
    """A behaviour the suite never checks, the bugs that show it, and a test that would."""

    key: str  # stable: "parameter:sample_weight", "error:reference/auc/auc.py:59", ...
    kind: str  # parameter, error, branch, function
    title: str  # "sample weights (`sample_weight=`) are never tested"
    contract: str  # the problem statement's sentence on it, "" when none names it
    mutants: tuple[str, ...]  # ids of the missed bugs it groups
    uncovered: int  # how many of them sit on lines no test runs
    test_name: str  # named for the behaviour: test_sample_weight_changes_the_result
    suggested_test: str  # calls only the public API
    verified_on: int  # how many of `mutants` the suggested test was verified to catch (0: a sketch)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "title": self.title, "contract": self.contract,
                "mutants": list(self.mutants), "uncovered": self.uncovered, "test_name": self.test_name,
                "suggested_test": self.suggested_test, "verified_on": self.verified_on}


@dataclass(frozen=True, slots=True, kw_only=True)
class Survivor:
    """A bug the candidate's tests missed, and (from triage) why and what test would catch it."""

    mutant_id: str
    operator: str
    family: str
    location: str  # file:line
    diff: str
    explanation: str = ""
    classification: str = ""  # unasserted, undertested, possibly equivalent, not triaged
    witness: str = ""  # the input that shows the bug, and what each version does
    suggested_test: str = ""  # verified: passes on the reference, fails on this bug
    covered: bool = True  # False: no test runs its line (status "no coverage")
    lesson: str = ""  # the key of the Lesson it belongs to

    def to_dict(self) -> dict[str, Any]:
        return {"mutant_id": self.mutant_id, "verdict": Status.SURVIVED if self.covered else Status.NO_COVERAGE,
                "operator": self.operator, "family": self.family, "location": self.location,
                "explanation": self.explanation, "classification": self.classification,
                "witness": self.witness, "lesson": self.lesson, "diff": self.diff}


def lessons(survivors: Sequence[Survivor], code: CodeMap, statement: str,
            ran: Mapping[str, set[int]]) -> tuple[Lesson, ...]:
    """One lesson per behaviour among `survivors`, most bugs first; `ran[file]` are the lines
    the suite runs (a behaviour whose own code runs is not checked, not untested)."""
    groups: dict[str, list[Survivor]] = defaultdict(list)
    regions: dict[str, Region | None] = {}
    for survivor in survivors:
        file, _, line = survivor.location.rpartition(":")
        region = code.owner(file, int(line)) if line.isdigit() else None
        key = _key(region, survivor)
        groups[key].append(survivor)
        regions.setdefault(key, region)
    found = [_lesson(key, regions[key], members, code, statement, ran) for key, members in groups.items()]
    return _distinct(sorted(found, key=lambda lesson: (-len(lesson.mutants), lesson.key)))


def _distinct(found: list[Lesson]) -> tuple[Lesson, ...]:
    """Two behaviours that read alike (the same `if` in two functions) get `_2`, `_3` ... so
    that their tests can sit in one file."""
    seen: dict[str, int] = defaultdict(int)
    distinct = []
    for lesson in found:
        seen[lesson.test_name] += 1
        if seen[lesson.test_name] > 1:
            name = f"{lesson.test_name}_{seen[lesson.test_name]}"
            lesson = replace(lesson, test_name=name, suggested_test=lesson.suggested_test.replace(
                f"def {lesson.test_name}(", f"def {name}(", 1))
        distinct.append(lesson)
    return tuple(distinct)


def _key(region: Region | None, survivor: Survivor) -> str:
    if region is None:
        return f"family:{survivor.family}"
    if region.kind == "function":  # too wide to be one behaviour: split by the kind of bug
        return f"function:{region.subject}:{survivor.family}"
    return f"{region.kind}:{region.key}"


def _lesson(key: str, region: Region | None, members: list[Survivor], code: CodeMap, statement: str,
            ran: Mapping[str, set[int]]) -> Lesson:
    uncovered = sum(not s.covered for s in members)
    file = members[0].location.rpartition(":")[0]
    tested = region is not None and bool(ran.get(file, set()) & region.body)
    title, name, contract = _describe(region, members, statement, tested)
    test, verified = _suggestion(region, members, code, name, contract)
    return Lesson(key=key, kind=region.kind if region else "family", title=title, contract=contract,
                  mutants=tuple(s.mutant_id for s in members), uncovered=uncovered, test_name=name,
                  suggested_test=test, verified_on=verified)


def _describe(region: Region | None, members: list[Survivor], statement: str,
              tested: bool) -> tuple[str, str, str]:
    """(title, test name, contract sentence); `tested`: the suite runs the behaviour's own code."""
    if region is None or region.kind == "function":
        family = members[0].family
        where = f" in `{region.subject}`" if region else ""
        operators = sorted({s.operator.partition("/")[2] or s.operator for s in members})
        title = f"{family} bugs{where} go unseen ({', '.join(operators[:4])}{', …' if len(operators) > 4 else ''})"
        stem = _slug(region.subject) if region else "result"
        return title, f"test_{stem}_{_slug(family)}_cases", ""
    if region.kind == "parameter":
        words = region.subject.replace("_", " ")
        state = "under-tested" if tested else "never tested"
        # "sample weights are never tested"; a short name (`by=`, `k=`) is no word to pluralise.
        title = (f"{words if words.endswith('s') else words + 's'} (`{region.subject}=`) are {state}"
                 if len(region.subject) > 3 else f"the `{region.subject}=` argument is {state}")
        return (title, f"test_{_slug(region.subject)}_changes_the_result",
                contract_sentence(statement, region.subject))
    if region.kind == "error":
        exception, _, message = region.subject.partition(": ")
        state = "is never tested" if not tested else "is raised, but a changed condition goes unseen"
        quoted = f" “{message}”" if message else ""
        words = _words(_slug(message.split(", got")[0].replace("…", "")), 40) or _slug(exception)
        return (f"the {exception}{quoted} {state}", f"test_refuses_{words}",
                contract_sentence(statement, "", _quoted(message)))
    said = next((c for span in re.findall(r"`([^`]+)`", region.doc) if not span.isidentifier()
                 and (c := clause(region.doc, span))), "")
    where = f"`if {region.subject}` in `{region.function}`"
    if not said:
        title = f"the branch {where} " + ("is not checked" if tested else "is never entered")
    elif tested:
        title = f"{said}: not checked ({where})"
    else:
        title = f"never tested: {said} ({where} is never entered)"
    name = f"test_{_words(_slug(said), 50)}" if said else f"test_when_{_words(_slug(region.subject), 40)}"
    return title, name, contract_sentence(statement, "", region.doc)


def _quoted(message: str) -> str:
    """Code spans of an error message, for finding its sentence: `(n,)`, `(n, 1)`."""
    return " ".join(f"`{span}`" for span in re.findall(r"\([^()]*\)", message))


def _slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def _words(slug: str, limit: int) -> str:
    """The slug's first words that fit in `limit` characters (at least one word)."""
    kept: list[str] = []
    for word in slug.split("_"):
        if kept and len("_".join([*kept, word])) > limit:
            break
        kept.append(word)
    return "_".join(kept)


def _suggestion(region: Region | None, members: list[Survivor], code: CodeMap, name: str,
                contract: str) -> tuple[str, int]:
    """A verified test through the public API, renamed for the behaviour, and how many of the
    bugs identical drafts were verified on; else a sketch and 0."""
    drafts: dict[str, int] = defaultdict(int)
    for survivor in members:
        if survivor.suggested_test and _public_only(survivor.suggested_test, code):
            drafts[_renamed(survivor.suggested_test, name, contract)] += 1
    if drafts:
        best = max(drafts, key=lambda text: (drafts[text], -len(text)))
        return best, drafts[best]
    return _sketch(region, members, code, name, contract), 0


def _public_only(source: str, code: CodeMap) -> bool:
    imported = re.findall(r"^from \S+ import (.+)$", source, flags=re.MULTILINE)
    names = {n.strip() for line in imported for n in line.split(",")}
    return bool(names) and names <= code.public


def _renamed(source: str, name: str, contract: str) -> str:
    """The draft with the behaviour's name, and the contract (not a mutant id) as its docstring."""
    renamed = re.sub(r"^def test_\w+\(", f"def {name}(", source, count=1, flags=re.MULTILINE)
    doc = contract.replace('"""', "'''") or "the behaviour the missed bugs change"
    return re.sub(r'^    """.*"""$', lambda _: f'    """{doc}"""', renamed, count=1, flags=re.MULTILINE)


def _sketch(region: Region | None, members: list[Survivor], code: CodeMap, name: str, contract: str) -> str:
    """What to call and what to assert, through the public API; the values are the reader's."""
    function = region.function if region and region.function else ""
    entries = code.entry_points(function) if function else sorted(code.public)
    entry = entries[0] if entries else "the_public_function"
    doc = contract.replace('"""', "'''") or "the behaviour the missed bugs change"
    lines = [f"def {name}():", f'    """{doc}"""']
    if region is not None and region.kind == "parameter":
        lines += [f"    # call {entry}(...) with and without {region.subject}=..., on an input where it",
                  "    # matters, and assert the result the contract states for each"]
    elif region is not None and region.kind == "error":
        exception, _, message = region.subject.partition(": ")
        literal = max((part.strip() for part in message.split("…")), key=len, default="")
        pattern = re.escape(literal)[:60]
        lines += [f"    with pytest.raises({exception}, match={pattern!r}):",
                  f"        {entry}(...)  # an input that the contract refuses this way"]
    elif region is not None and region.kind == "branch":
        lines += [f"    result = {entry}(...)  # an input for which `{region.subject}` holds",
                  "    assert result == ...  # what the contract says"]
    else:
        lines += [f"    result = {entry}(...)  # an input where a wrong {members[0].family} step shows",
                  "    assert result == ...  # the exact expected value, not only its type or range"]
    return "\n".join(lines) + "\n"
