"""What a handout keeps by level: an easy exercise keeps the sentence that gives its bug away (it
is what makes it easy), a medium or hard one loses it and is scored without it; the statement
tells the symptom in full, in one line per test, or as a count."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.findability import Findability
from bugsmith.harness.exercises.measure.difficulty import difficulty
from bugsmith.harness.exercises.measure.levels import Levels
from bugsmith.harness.exercises.pack.statement import statement, told_message
from bugsmith.harness.exercises.records import Difficulty, Exercise, ExerciseOptions, Symptom
from bugsmith.harness.exercises.sources.catalogue import problem_named, reference_names
from bugsmith.harness.exercises.sources.layout import candidate_tree
from bugsmith.harness.exercises.sources.told_statement import WITHHELD, sections, told_statement
from bugsmith.mutators.mutant import Family, Mutant, Span


def mutant(ident: str) -> Mutant:
    return Mutant(id=ident, operator="classic/op", family=Family.CLASSIC, file="m.py", module="m", function="f",
                  scope="f", span=Span(line=2, column=4, end_line=2, end_column=9), original="a < b",
                  mutated="a <= b", explanation="", diff="")


def found(ident: str, **evidence) -> Findability:
    facts = {"fl_rank": 5, "fl_lines": 40, "repair_tries": 25, "intent": False, "named": False,
             "lines_to_read": 60, "helper": False}
    return Findability(mutant=ident, **{**facts, **evidence})


class _Measured(Levels):
    """Levels over evidence given in advance (no runs)."""

    def __init__(self, difficulty_asked: str, evidence: dict[str, Findability]) -> None:
        super().__init__(ExerciseOptions(difficulty=difficulty_asked), probes=None, store=None,  # type: ignore[arg-type]
                         key=lambda mutants, version: "")
        self.evidence = evidence

    def _prepare(self, mutants: Sequence[Mutant], full: bool) -> None:
        pass  # the evidence is given: nothing to run

    def _findability(self, mutant: Mutant, *, full: bool = True, survey: bool = False) -> Findability:
        return self.evidence[mutant.id]


OBVIOUS = found("a", fl_rank=1, repair_tries=2, intent=True, lines_to_read=30)  # easy with its comment
HIDDEN = found("b", fl_rank=12, repair_tries=None, intent=True, lines_to_read=100, helper=True)  # medium with it


def test_an_easy_exercise_keeps_its_clue_and_a_medium_or_hard_one_loses_it():
    for asked, keeps in (("easy", True), ("medium", False), ("hard", False)):
        (evidence,) = _Measured(asked, {"b": HIDDEN}).findings([mutant("b")], silent=True)
        assert evidence.intent is keeps and evidence.clue_dropped is not keeps, asked


def test_a_name_that_contradicts_the_bug_stays_a_clue_at_every_level():
    """`entity = ordered[time]`: the name is the code, no handout can drop it, so the bug keeps
    its clue when medium or hard is asked and can never be scored hard for want of it."""
    named = replace(HIDDEN, intent_in_code=True)
    for asked in ("easy", "medium", "hard"):
        (evidence,) = _Measured(asked, {"b": named}).findings([mutant("b")], silent=True)
        assert evidence.intent and not evidence.clue_dropped, asked
    assert not _Measured("hard", {"b": named}).fits([mutant("b")], silent=True)


def test_unasked_the_level_with_the_clue_decides_and_a_dropped_clue_is_scored_without_it():
    """Easy with its comment: kept. Medium with it: dropped, and then scored hard (the comment
    was what made it medium)."""
    (kept,) = _Measured("", {"a": OBVIOUS}).findings([mutant("a")], silent=True)
    assert kept == OBVIOUS and difficulty([kept], silent=True).level == "easy"
    assert difficulty([HIDDEN], silent=True).level == "medium"
    found_, level = _Measured("", {"b": HIDDEN}).score([mutant("b")], silent=True)
    assert found_[0].clue_dropped and not found_[0].intent and level.level == "hard"


def test_a_bug_with_a_stated_intent_is_never_hard_whatever_its_rank():
    """Three bugs ranked low, each under a sentence that says what its line should do: medium at most."""
    low = found("c", fl_rank=9, repair_tries=None, intent=True, lines_to_read=400, helper=True)
    assert difficulty([replace(low, intent=False)] * 3, silent=True, interact=True).level == "hard"
    assert difficulty([low] * 3, silent=True, interact=True).level != "hard"


SYMPTOMS = (
    Symptom(test="reference/auc/tests/test_auc_visible.py::test_ties", exception="AssertionError",
            message="assert 0.5 == 0.75\n +  where 0.5 = roc_auc_score([0, 1], [1, 1])\n\nFull diff:\n- 0.75\n+ 0.5"),
    Symptom(test="reference/auc/tests/test_auc_visible.py::test_weights[zero]", exception="AssertionError",
            message="wrong `tpr`: " + "x" * 200),
)


def _exercise(level: str) -> Exercise:
    return Exercise(id="exercise-01", instance_id="i", problem="auc", mutants=(), buggy={}, reference={},
                        fail_to_pass=(), pass_to_pass=(), symptoms=SYMPTOMS, silent=True,
                        difficulty=Difficulty(score=5, level=level), time_limit_minutes=30)


def _statement(level: str) -> str:
    text = statement(_exercise(level), problem_named(builtin_root(), "auc"))
    return text[text.index("## The symptom"):text.index("## The problem")]


def test_an_easy_statement_names_the_tests_with_the_first_lines_of_their_messages():
    told = _statement("easy")
    assert "test_auc_visible.py::test_ties" in told and "test_auc_visible.py::test_weights[zero]" in told
    assert "assert 0.5 == 0.75" in told and "where 0.5 = roc_auc_score" in told
    assert "Full diff" not in told and "+ 0.5" not in told


def test_a_medium_statement_gives_one_line_per_test():
    told = _statement("medium")
    assert "- `test_auc_visible.py::test_ties` (AssertionError): `assert 0.5 == 0.75`" in told
    assert "roc_auc_score" not in told
    line = next(t for t in told.splitlines() if "test_weights" in t)
    assert "wrong 'tpr'" in line and len(line) < 200


def test_a_hard_statement_says_how_many_tests_fail_and_how_to_run_them_and_nothing_else():
    told = _statement("hard")
    assert "2 of the visible tests fail. Run them with `python -m pytest`." in told
    assert "test_ties" not in told and "0.75" not in told and "AssertionError" not in told


def test_told_message_cuts_at_the_first_blank_line():
    assert told_message("a\nb\nc\nd\n\ne", "easy") == "a\nb\nc"
    assert told_message("a\n\nb", "easy") == "a"
    assert told_message("  first   line\nsecond", "medium") == "first line"
    assert told_message("anything", "hard") == ""


class _Surveyed(_Measured):
    """Levels whose bugs have surveys (no repair search yet) and a searched record each, counting
    the searches asked for."""

    def __init__(self, difficulty_asked: str, surveys: dict[str, Findability], searched: dict[str, Findability]) -> None:
        super().__init__(difficulty_asked, surveys)
        self.searched = searched
        self.searches = 0
        for ident in surveys:  # a masked pair: b's failing tests are among a's
            self.remember(mutant(ident), tuple(Symptom(test=t, exception="", message="")
                                               for t in (("t1", "t2") if ident == "a" else ("t1",))), True)

    def _findability(self, mutant: Mutant, *, full: bool = True, survey: bool = False) -> Findability:
        if survey or not full:
            return self.evidence[mutant.id]
        self.searches += 1
        return self.searched[mutant.id]


def _pair(asked: str, survey: dict[str, object], searched_tries: int | None) -> tuple[bool, int]:
    surveys = {i: found(i, repair_tries=None, repair_searched=False, **survey) for i in "ab"}  # type: ignore[arg-type]
    searched = {i: replace(surveys[i], repair_tries=searched_tries, repair_searched=True) for i in "ab"}
    levels = _Surveyed(asked, surveys, searched)
    return levels.fits([mutant("a"), mutant("b")], silent=True), levels.searches


def test_a_pairs_level_told_by_its_surveys_runs_no_repair_search():
    """A masked pair scores 4 points for being a pair; the hardest bug's points decide the rest."""
    far = {"fl_rank": 12, "lines_to_read": 130, "helper": True}  # hard however fast a search repairs it
    assert _pair("hard", far, searched_tries=1) == (True, 0)
    near = {"fl_rank": 1, "lines_to_read": 20, "intent": True, "intent_in_code": True, "named": True}  # never hard
    assert _pair("hard", near, searched_tries=None) == (False, 0)
    assert _pair("easy", far, searched_tries=1) == (False, 0)


def test_a_pair_the_search_decides_is_searched_and_scored_as_searched():
    middling = {"fl_rank": 1, "lines_to_read": 60}  # 1 + 4 + 2 = 7 if repaired at once, 10 if never
    assert _pair("hard", middling, searched_tries=None) == (True, 2)
    assert _pair("hard", middling, searched_tries=1) == (False, 2)
    assert _pair("medium", middling, searched_tries=1) == (True, 2)


def test_a_hard_handout_tells_the_overview_and_the_api_and_leaves_the_rules_to_the_tests():
    """Blind trials solved hard exercises by reading the code against the rule problem.md
    spelled out; a hard handout, its README and its copy of problem.md, keeps what a newcomer
    to the code is told. Easy and medium ones tell the whole problem."""
    problem = problem_named(builtin_root(), "auc")
    whole = problem.read(problem.statement)
    for level in ("easy", "medium", "hard"):
        readme = statement(_exercise(level), problem)
        copy = candidate_tree(problem, _exercise(level))["auc/problem.md"]
        told = readme[readme.index("## The problem"):]
        for text in (told, copy):
            assert "def roc_auc_score(" in text and "## API" in text, level
            # The rule of tied scores and the error list are rules, told only below hard.
            assert ("## Errors" in text) is (level != "hard") and (WITHHELD in text) is (level == "hard"), level
        assert (copy == whole.replace("reference.auc", "auc")) is (level != "hard"), level


def test_every_built_in_statement_keeps_an_overview_and_its_api_when_hard():
    for name in reference_names(builtin_root()):
        whole = problem_named(builtin_root(), name).read(f"reference/{name}/problem.md")
        hard = told_statement(whole, "hard")
        assert len(hard) < len(whole) / 2 and f"from reference.{name} import" in hard, name
        assert hard.startswith(sections(whole)[0].rstrip("\n")), name


def test_a_heading_inside_a_code_fence_does_not_cut_a_section():
    text = "# T\nintro\n\n## API\n\n```text\n## not a heading\n```\n\n## Rules\n\nx < y\n"
    assert sections(text) == ["# T\nintro\n\n", "## API\n\n```text\n## not a heading\n```\n\n", "## Rules\n\nx < y\n"]
    assert told_statement(text, "hard") == "# T\nintro\n\n## API\n\n```text\n## not a heading\n```\n\n" + WITHHELD + "\n"
    assert told_statement(text, "medium") == text
    assert told_statement("no sections at all", "hard") == "no sections at all"


def test_a_fence_closes_only_with_its_own_marker_and_a_statement_of_api_alone_is_told_whole():
    text = "# T\n\n## API\n\n~~~text\n```\n## still code\n~~~\n\n## Rules\n\nx\n"
    assert [part.splitlines()[0] for part in sections(text)] == ["# T", "## API", "## Rules"]
    only_api = "# T\n\n## API\n\n```python\ndef f(): ...\n```\n"
    assert told_statement(only_api, "hard") == only_api  # nothing is withheld, so nothing says so
