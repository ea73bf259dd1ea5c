"""`bugsmith score` teaches: missed bugs grouped by the behaviour they reveal, one public test each.

Fast: the grouping and the rendering read code and records, they run nothing (the harness run
on a real weak suite is in test_score_teaches.py).
"""

from __future__ import annotations

import json
import re
import textwrap

import jsonschema
import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.judge.behaviours import clause, code_map, contract_sentence, statement_lines
from bugsmith.harness.exercises.judge.lessons import Survivor, lessons
from bugsmith.harness.exercises.judge.scoring import SuiteScore, score_schema
from bugsmith.harness.exercises.sources.catalogue import reference_names
from bugsmith.harness.exercises.summary import score_text

AUC = "reference/auc/auc.py"


@pytest.fixture(scope="module")
def auc(root):
    source = (root / AUC).read_text()
    init = (root / "reference/auc/__init__.py").read_text()
    return source, code_map({AUC: source}, {"reference/auc/__init__.py": init})


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def test_code_only_a_passed_parameter_reaches_is_that_parameters(auc):
    """The helper called only when `sample_weight is not None`, and what reads its result, belong
    to `sample_weight`; the call that merely hands the parameter on does not."""
    source, code = auc
    assert code.public == {"roc_curve", "roc_auc_score"}
    for text in ("_column(sample_weight", "(weights < 0).any()", "keep = weights > 0"):
        region = code.owner(AUC, _line(source, text))
        assert region is not None and (region.kind, region.subject) == ("parameter", "sample_weight"), text
    handed_on = code.owner(AUC, _line(source, "_validated(y_true, y_score, sample_weight)"))
    assert handed_on is not None and handed_on.kind == "function"


def test_error_paths_and_branches_are_their_own_behaviours(auc):
    """An `if` whose body raises is an error path named by its message; another `if` is a branch."""
    source, code = auc
    error = code.owner(AUC, _line(source, "y_score must be finite"))
    assert error is not None and error.kind == "error"
    assert error.subject == "ValueError: y_score must be finite (no NaN or inf)"
    branch = code.owner(AUC, _line(source, "array = array.ravel()"))
    assert branch is not None and branch.kind == "branch" and branch.function == "_column"
    assert clause(branch.doc, "(n, 1)") == "a single column `(n, 1)` is flattened"


def test_any_project_optional_parameter_is_found_without_a_table():
    """Nothing is hard-coded per problem: a user's `weights=None` is found the same way."""
    source = textwrap.dedent("""\
        def total(x, *, weights=None):
            if weights is None:
                return _plain(x)
            return _weighted(x, weights)

        def _plain(x):
            return sum(x)

        def _weighted(x, w):
            return sum(a * b for a, b in zip(x, w))
        """)
    code = code_map({"pkg/core.py": source}, {"pkg/__init__.py": "from .core import total\n"})
    assert code.public == {"total"}
    assert code.owner("pkg/core.py", 10).subject == "weights"  # inside _weighted
    assert code.owner("pkg/core.py", 7).kind == "function"  # _plain runs without weights too
    assert code.entry_points("_weighted") == ["total"]
    assert statement_lines(source) == {2, 3, 4, 7, 10}


def test_the_contract_sentence_names_a_behaviour(root):
    """A parameter maps to the statement's sentence that quotes it; a branch to the one that
    quotes a code span of its function's docstring."""
    statement = (root / "reference/auc/problem.md").read_text()
    assert contract_sentence(statement, "sample_weight").startswith("With `sample_weight`, a sample counts")
    assert "`(n, 1)`" in contract_sentence(statement, "", "a single column `(n, 1)` is flattened")
    assert contract_sentence(statement, "", "no code span here") == ""


def _survivor(mutant_id: str, line: int, *, covered: bool = True, test: str = "", family: str = "classic"):
    return Survivor(mutant_id=mutant_id, operator=f"{family}/some-operator", family=family,
                    location=f"{AUC}:{line}", diff="", explanation="a bug", covered=covered, suggested_test=test)


PUBLIC_TEST = '''import numpy as np

from reference.auc import roc_curve


def test_roc_curve_catches_{id}():
    """roc_curve must return the correct result on this input; mutant {id} (x) does not."""
    result = roc_curve([1, 0], [0.0, 0.0], sample_weight=[0.5, 0.5])
    assert result[0][-1] == 1.0
'''
PRIVATE_TEST = '''from reference.auc.auc import _weights


def test_weights_catches_{id}():
    """_weights must refuse this input; mutant {id} (x) does not."""
    _weights([-1.0], [1])
'''


@pytest.fixture(scope="module")
def weak(auc, root):
    """Missed bugs as a two-test suite leaves them: weights untested, the column branch never
    entered, an error never raised, a couple in the curve's arithmetic."""
    source, code = auc
    at = lambda text: _line(source, text)  # noqa: E731
    survivors = [
        _survivor("aaaa1111", at("_column(sample_weight"), covered=False, test=PRIVATE_TEST.format(id="aaaa1111")),
        _survivor("bbbb2222", at("(weights < 0).any()"), covered=False, test=PUBLIC_TEST.format(id="bbbb2222")),
        _survivor("cccc3333", at("keep = weights > 0"), test=PUBLIC_TEST.format(id="cccc3333")),
        _survivor("dddd4444", at("array.ndim == 2 and"), test=""),
        _survivor("eeee5555", at("array = array.ravel()"), covered=False),
        _survivor("ffff6666", at("if not np.isfinite(scores)"), test=""),
        _survivor("gggg7777", at("tps = np.cumsum"), family="metric"),
        _survivor("hhhh8888", at("fps = np.cumsum"), family="metric"),
    ]
    ran = {AUC: set(statement_lines(source)) - {at("_column(sample_weight"), at("(weights < 0).any()"),
                                                 at("array = array.ravel()"), at("y_score must be finite")}
           - set(range(at("def _weights"), at("def _column")))}
    statement = (root / "reference/auc/problem.md").read_text()
    taught = lessons(survivors, code, statement, ran)
    return survivors, taught


def test_missed_bugs_are_grouped_by_behaviour_with_one_public_test_each(weak):
    """Sample weights, the column branch, the error and the metric bugs are four lessons; each
    bug is in exactly one; each suggestion calls the public API and is named for the behaviour."""
    survivors, taught = weak
    assert sorted(i for lesson in taught for i in lesson.mutants) == sorted(s.mutant_id for s in survivors)
    titles = [lesson.title for lesson in taught]
    assert titles[0] == "sample weights (`sample_weight=`) are never tested"
    assert any("column `(n, 1)`" in t and "never tested" in t for t in titles)
    assert any(t == "the ValueError “y_score must be finite (no NaN or inf)” is never tested" for t in titles)
    assert any(t.startswith("metric bugs in `roc_curve`") for t in titles)
    assert len({lesson.test_name for lesson in taught}) == len(taught)
    ids = {s.mutant_id for s in survivors}
    for lesson in taught:
        assert not any(i in lesson.test_name or i in lesson.suggested_test for i in ids), lesson.test_name
        assert f"def {lesson.test_name}(" in lesson.suggested_test
        assert not re.search(r"import .*\b_\w+", lesson.suggested_test)  # no private helper
        compile(lesson.suggested_test, "<suggested>", "exec")


def test_identical_verified_drafts_are_merged_and_counted(weak):
    """The two weighting bugs caught by the same public call give one test, verified on both;
    the draft that calls the private helper is not used."""
    _, taught = weak
    weights = taught[0]
    assert weights.test_name == "test_sample_weight_changes_the_result" and weights.verified_on == 2
    assert "roc_curve([1, 0], [0.0, 0.0], sample_weight=[0.5, 0.5])" in weights.suggested_test
    assert weights.contract in weights.suggested_test and weights.uncovered == 2


def test_a_lesson_without_a_verified_public_test_gets_a_sketch_that_says_so(weak):
    """The error path: pytest.raises with the message, through the public function that reaches it."""
    _, taught = weak
    error = next(lesson for lesson in taught if lesson.kind == "error")
    assert error.verified_on == 0
    assert "pytest.raises(ValueError, match='y_score\\\\ must\\\\ be\\\\ finite" in error.suggested_test
    assert "roc_auc_score(...)" in error.suggested_test or "roc_curve(...)" in error.suggested_test


def _score(survivors, taught) -> SuiteScore:
    by_lesson = {i: lesson.key for lesson in taught for i in lesson.mutants}
    return SuiteScore(problem="auc", score=60.0, tests=2, per_family={"classic": (3, 5), "metric": (0, 2)},
                      survivors=tuple(Survivor(**{**{f: getattr(s, f) for f in Survivor.__dataclass_fields__},
                                                  "lesson": by_lesson[s.mutant_id]}) for s in survivors),
                      duration=1.0, lessons=taught, unrun={AUC: (54, 70, 71, 72, 81)},
                      counts={"killed": 12, "survived": 5, "no coverage": 3})


def test_the_summary_puts_the_lessons_first_and_is_short(weak):
    """Score, lessons, the code no test runs, then two tests in full; the per-bug list only with --verbose."""
    survivors, taught = weak
    text = score_text(_score(survivors, taught))
    lines = text.splitlines()
    assert lines[0] == "auc: 2 tests; mutation score 60.0%: 12 bugs detected, 8 missed (3 on lines no test runs)"
    assert lines.index("What the tests never check (4 behaviours, most missed bugs first):") < 5
    assert "Code no test runs: reference/auc/auc.py lines 54, 70-72, 81" in lines
    assert "aaaa1111" not in text and len(lines) < 60
    verbose = score_text(_score(survivors, taught), verbose=True)
    assert "aaaa1111" in verbose and verbose.count("def test_") == len(taught)


def test_the_json_record_has_the_documented_shape(weak):
    """`--json` serialises SuiteScore.to_dict(), which the shipped schema validates."""
    survivors, taught = weak
    record = json.loads(json.dumps(_score(survivors, taught).to_dict()))
    jsonschema.validate(record, score_schema())
    assert [lesson["key"] for lesson in record["lessons"]][0] == "parameter:sample_weight"
    assert {m["verdict"] for m in record["mutants"]} == {"survived", "no coverage"}


@pytest.mark.parametrize("problem", reference_names(builtin_root()))
def test_every_problem_gets_lessons_with_distinct_public_tests(root, problem):
    """Nothing per problem: a bug on every statement of any problem lands in exactly one lesson,
    whose test has its own valid name, compiles and imports nothing private."""
    folder = root / "reference" / problem
    files = {f"reference/{problem}/{f.name}": f.read_text() for f in folder.glob("*.py")
             if f.name not in ("__init__.py", "strategies.py")}
    code = code_map(files, {f"reference/{problem}/__init__.py": (folder / "__init__.py").read_text()})
    survivors = [Survivor(mutant_id=f"id{file[-6:-3]}{line}", operator="classic/x", family="classic",
                          location=f"{file}:{line}", diff="", covered=False)
                 for file, text in files.items() for line in sorted(statement_lines(text))]
    taught = lessons(survivors, code, (folder / "problem.md").read_text(), {})
    assert sorted(i for lesson in taught for i in lesson.mutants) == sorted(s.mutant_id for s in survivors)
    names = [lesson.test_name for lesson in taught]
    assert len(set(names)) == len(names) and all(n.isidentifier() and n.startswith("test_") for n in names)
    for lesson in taught:
        compile(lesson.suggested_test, lesson.test_name, "exec")
        assert not re.search(r"import .*\b_\w+", lesson.suggested_test)
