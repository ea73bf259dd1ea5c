"""The records of the exercise stage: what to build, one built exercise, and its difficulty."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from bugsmith.errors import BugsmithError
from bugsmith.harness.exercises.findability import Findability
from bugsmith.mutators.mutant import Mutant


class ExerciseError(BugsmithError):
    """Exercises cannot be built, exported, imported or graded as asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExerciseOptions:
    """What `bugsmith exercises` builds. `problems` empty means every problem of the corpus."""

    problems: tuple[str, ...] = ()
    count: int = 20
    bugs: int = 0  # bugs per exercise; 0: the level's own (`bug_count`)
    families: tuple[str, ...] = ()
    silent_only: bool = False
    seed: int = 0
    difficulty: str = ""  # "easy", "medium" or "hard": only exercises of that level; "" any

    @property
    def bug_count(self) -> int:
        """The bugs each exercise gets: as asked, else HARD_BUGS for a hard exercise and one
        for any other. One bug in a short, well-named function is found in minutes by a strong
        solver whatever its evidence says (blind trials, issue 38); bugs that share a failing
        test are what makes debugging slow: fixing one leaves the test red."""
        return self.bugs or (HARD_BUGS if self.difficulty == "hard" else 1)


HARD_BUGS = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class Difficulty:
    """A 1-10 score, its level, and the points each piece of evidence gave."""

    score: int
    level: str  # "easy", "medium" or "hard"
    factors: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "level": self.level, "factors": dict(sorted(self.factors.items()))}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Difficulty:
        return cls(score=data["score"], level=data["level"], factors=dict(data["factors"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class Symptom:
    """One visible test that fails with the bug, and the first lines of what it says."""

    test: str
    exception: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Exercise:
    """One validated exercise: a problem with K bugs, the tests they fail, and their facts.

    `buggy` and `reference` map each changed file (relative path) to its whole text; the
    problem's other files are unchanged. Test ids are pytest node ids relative to the root.
    `bug_tests[i]` are the tests `mutants[i]` fails when it is the only bug (so a grade can
    tell which bugs a submission fixed); empty in records built before it was kept. So is
    `findability[i]`, the evidence of how hard `mutants[i]` is to find.
    """

    id: str  # position in the pack, e.g. "exercise-01": reveals nothing about the bug
    instance_id: str  # stable across runs: a hash of the problem and the mutant ids
    problem: str
    mutants: tuple[Mutant, ...]
    buggy: dict[str, str]
    reference: dict[str, str]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    symptoms: tuple[Symptom, ...]
    silent: bool
    difficulty: Difficulty
    time_limit_minutes: int
    bug_tests: tuple[tuple[str, ...], ...] = ()
    # A variant (harness.exercises.assemble.variants): the problem's other code files, rewritten. The
    # handout is the problem's code, then these, then `buggy`; empty for the code as it is.
    variant: dict[str, str] = field(default_factory=dict)
    findability: tuple[Findability, ...] = ()  # per bug, as `mutants`: the evidence of `difficulty`

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(m.family.value for m in self.mutants)

    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(m.operator for m in self.mutants)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["mutants"] = [m.to_dict() for m in self.mutants]
        data["difficulty"] = self.difficulty.to_dict()
        data["symptoms"] = [asdict(s) for s in self.symptoms]
        data["findability"] = [f.to_dict() for f in self.findability]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Exercise:
        fields = dict(data)
        fields["mutants"] = tuple(Mutant.from_dict(m) for m in data["mutants"])
        fields["difficulty"] = Difficulty.from_dict(data["difficulty"])
        fields["symptoms"] = tuple(Symptom(**s) for s in data["symptoms"])
        fields["fail_to_pass"] = tuple(data["fail_to_pass"])
        fields["pass_to_pass"] = tuple(data["pass_to_pass"])
        fields["bug_tests"] = tuple(tuple(tests) for tests in data.get("bug_tests", ()))
        fields["findability"] = tuple(Findability.from_dict(f) for f in data.get("findability", ()))
        return cls(**fields)


def is_hidden_test(test_id: str) -> bool:
    """Held-back tests live in `test_*_hidden.py` files (they also carry the `hidden` mark)."""
    return test_id.split("::", 1)[0].endswith("_hidden.py")
