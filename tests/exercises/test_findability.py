"""The evidence of how hard a bug is to find: fault localisation, the clues around the bug, and
the lines a reader follows; each measured on known cases and near misses."""

from __future__ import annotations

import functools

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.findability import function_spans, is_helper, lines_to_read, names_bug
from bugsmith.harness.exercises.measure.intent import stated_intent, stated_intents
from bugsmith.harness.exercises.measure.localisation import locate, ochiai, rank_of
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.mutant import Family, Mutant, Span


def bug(original: str, mutated: str, line: int, *, function: str = "f", file: str = "m.py") -> Mutant:
    return Mutant(id=f"{line}{original}", operator="classic/op", family=Family.CLASSIC, file=file, module="m",
                  function=function, scope=function, span=Span(line=line, column=0, end_line=line, end_column=1),
                  original=original, mutated=mutated, explanation="", diff="")


@functools.cache
def reference_mutants(path: str) -> tuple[str, tuple[Mutant, ...]]:
    source = (builtin_root() / path).read_text(encoding="utf-8")
    return source, mutants_of_source(source, file=path, module="m", mutators=registry.select(())).mutants


def reference_mutant(path: str, text: str, operator: str) -> tuple[str, Mutant]:
    """The engine's mutant `operator` on the line of `path` holding `text`."""
    source, found = reference_mutants(path)
    line = next(n for n, t in enumerate(source.splitlines(), 1) if text in t)
    return source, next(m for m in found if m.span.line == line and m.operator == operator)


# Ochiai ------------------------------------------------------------------------------------------

def test_a_line_only_failing_tests_run_ranks_first():
    """Ochiai: a line run by the failing test and no passing one is the most suspicious."""
    lines = {"m.py": {1: ("t1", "t2", "t3"), 2: ("t1",), 3: ("t2", "t3")}}
    scores = ochiai(lines, ["t1"])
    assert scores[("m.py", 2)] == 1.0 and ("m.py", 3) not in scores
    assert rank_of(scores, [("m.py", 2)]).rank == 1
    assert rank_of(scores, [("m.py", 1)]).rank == 2


def test_ties_are_split_at_their_middle_and_an_unrun_bug_ranks_last():
    """Ten lines every test runs tie: the bug among them is not called first; a line no failing
    test runs ranks after every ranked line."""
    lines = {"m.py": {n: ("t1", "t2") for n in range(1, 11)}}
    scores = ochiai(lines, ["t1"])
    assert rank_of(scores, [("m.py", 4)]).rank == 5
    assert rank_of(scores, [("m.py", 99)]).rank == 11


def test_a_deleted_statement_is_located_by_the_line_after_it_and_earlier_edits_shift_lines():
    """A deletion leaves nothing on its line; an earlier edit that removes a line moves the bug up."""
    scores = {("m.py", 5): 1.0, ("m.py", 6): 0.5}
    deleted = bug("x = 1\n", "", 4)
    assert locate(scores, [deleted], deleted).rank == 1
    earlier = bug("a\nb\n", "a\n", 2)
    later = bug("y", "z", 7)
    assert locate(scores, [earlier, later], later).rank == 2  # line 7 is line 6 once line 3 is gone


# Intent in comments and docstrings ---------------------------------------------------------------

@pytest.mark.parametrize(("path", "text", "operator"), [
    ("reference/auc/auc.py", "keep = weights > 0", "classic/comparison-boundary"),
    ("reference/pr_curve/pr_curve.py", "keep = weights > 0", "classic/comparison-boundary"),
    ("reference/extra_trees/forest.py", "range(self.n_estimators)", "window/range-bound"),
])
def test_a_comment_or_docstring_that_the_bug_contradicts_is_found(path, text, operator):
    """"Zero-weight samples must not even create a curve point" above `weights >= 0`, and
    "Grow `n_estimators` trees" above `range(self.n_estimators + 1)` give the bug away."""
    source, mutant = reference_mutant(path, text, operator)
    assert stated_intent(source, mutant).stated


def test_near_misses_state_no_intent():
    """A comment on another subject, one shared plain word, or a comment too far above, is no giveaway."""
    edit = bug(">", ">=", 5)
    other_subject = "def f(weights):\n    x = 1\n    y = 2\n    # Sort once; the order is reused below.\n    keep = weights > 0\n"
    one_word = "def f(weights):\n    x = 1\n    y = 2\n    # weights are normalised by the caller\n    keep = weights > 0\n"
    too_far = ("def f(weights):\n    # Zero-weight samples must not create a point.\n    x = 1\n    y = 2\n    z = 3\n"
               "    keep = weights > 0\n")
    assert not stated_intent(other_subject, edit).stated
    assert not stated_intent(one_word, edit).stated
    assert not stated_intent(too_far, bug(">", ">=", 6)).stated
    near = "def f(weights):\n    x = 1\n    y = 2\n    # Zero-weight samples must not create a point.\n    keep = weights > 0\n"
    assert stated_intent(near, edit).stated


def test_a_docstring_names_a_compound_identifier_only_for_edits_of_it():
    """Swapping `X, Y` under "Grow `n_estimators` trees on all of `X`" contradicts nothing said there."""
    source, swapped = reference_mutant("reference/extra_trees/forest.py", "range(self.n_estimators)",
                                       "beyond/swap-arguments")
    assert not stated_intent(source, swapped).stated


# Names in the symptoms, lines to read, helpers ---------------------------------------------------

def test_a_failing_test_named_after_the_function_or_the_statement_names_the_bug():
    """`test_max_running_caps_admission` names `max_running`; a test about zero-weight samples
    names `keep = weights > 0`; a test about ties names neither."""
    source = "def f(weights):\n    keep = weights > 0\n    return keep\n"
    edit = bug(">", ">=", 2, function="f")
    assert names_bug(edit, source, ["t.py::test_zero_weight_sample_creates_no_point"], [])
    assert not names_bug(edit, source, ["t.py::test_ties_make_diagonal_segments"], ["wrong tpr: 0 != 1"])
    assert names_bug(bug("a", "b", 2, function="Pool.max_running"), source,
                     ["t.py::test_max_running_caps_admission"], [])


def test_lines_to_read_are_the_functions_on_the_failing_tests_path():
    """Every function a failing test ran is read whole; one only passing tests ran is not."""
    source = "def a():\n    return 1\n\n\ndef b():\n    x = 1\n    return x\n\n\ndef c():\n    return 3\n"
    assert [s.name for s in function_spans("m.py", source)] == ["a", "b", "c"]
    lines = {"m.py": {2: ("t1",), 6: ("t1", "t2"), 11: ("t2",)}}
    assert lines_to_read(lines, ["t1"], {"m.py": source}) == 2 + 3


def test_a_function_no_test_calls_by_name_is_a_helper():
    """A bug in `_validated` is seen only through `roc_curve`; one in `roc_curve` is not in a helper."""
    tests = [(builtin_root() / "reference/auc/tests/test_auc_visible.py").read_text(encoding="utf-8")]
    assert is_helper(bug("a", "b", 1, function="_validated"), tests)
    assert not is_helper(bug("a", "b", 1, function="roc_curve"), tests)


@pytest.mark.parametrize("path", ["reference/auc/auc.py", "reference/pr_curve/pr_curve.py"])
def test_the_heuristic_is_selective_on_reference_code(path):
    """Some edits of the reference code contradict a nearby comment; most do not."""
    source, mutants = reference_mutants(path)
    stated = sum(stated_intent(source, mutant).stated for mutant in mutants)
    assert 0 < stated < len(mutants) / 2


def test_the_comment_after_the_bug_is_read_too():
    """Scheduler: `if self._fits(r): break` (a `not` dropped) under no comment, with "a head that
    does not fit blocks everyone behind it" on the next line: a giveaway."""
    source, mutant = reference_mutant("reference/scheduler/scheduler.py", "if not self._fits(entry.request, budget)",
                                      "classic/drop-unary")
    intent = stated_intent(source, mutant)
    assert intent.stated and intent.comment and intent.line == mutant.span.line + 1
    assert "does not fit" in intent.text


def test_comments_below_and_the_functions_docstring_count_and_far_ones_need_the_changed_words():
    """A comment two lines below the bug counts as a comment above does; the function's docstring
    counts wherever it is; a comment further off in the function counts only by the edited
    tokens' own words, not by the names beside them."""
    edit = bug(">", ">=", 2)
    below = "def f(weights):\n    keep = weights > 0\n    x = 1\n    # Zero-weight samples must not create a point.\n"
    assert stated_intent(below, edit).stated
    far_docstring = ('def fit(self):\n    """Grow `n_estimators` trees."""\n' + "    x = 1\n" * 12
                     + "    for i in range(self.n_estimators):\n        x += i\n")
    assert stated_intent(far_docstring, bug("self.n_estimators", "self.n_estimators + 1", 15)).stated
    far_comment = ("def f(weights):\n    # Zero-weight samples must not create a point.\n" + "    x = 1\n" * 8
                   + "    keep = weights > 0\n")
    assert not stated_intent(far_comment, bug(">", ">=", 11)).stated


def test_a_block_of_comments_is_read_as_one_passage():
    """A sentence that runs over two comment lines is found, and reported from the block's first line."""
    source = ("def f(weights):\n    # Zero-weight samples must not\n    # even create a curve point.\n"
              "    keep = weights > 0\n")
    intent = stated_intent(source, bug(">", ">=", 4))
    assert intent.stated and intent.line == 2 and intent.end_line == 3


# Names the bug contradicts -----------------------------------------------------------------------

def test_a_variable_named_for_one_column_and_built_from_another_states_its_intent():
    """rolling_features (issue 38): `entity = None if by is None else ordered[time].to_numpy()`
    builds the entity codes from the time column; `time` in the condition only decides, and
    names nothing."""
    path = "reference/rolling_features/rolling_features.py"
    source, mutants = reference_mutants(path)
    line = next(n for n, t in enumerate(source.splitlines(), 1) if "entity = None if by is None" in t)
    wrong = {m.span.column: m for m in mutants if m.span.line == line and m.operator == "beyond/wrong-variable"}
    read = source.splitlines()[line - 1].index("ordered[by]") + len("ordered[")
    intent = stated_intent(source, wrong.pop(read))
    assert intent.stated and intent.in_code and "`entity`" in intent.text and "`time`" in intent.text
    assert [stated_intent(source, m).stated for m in wrong.values()] == [False]


NAMES = '''\
def f(df, ordered, by, time, t, key, col, entity_col, left_rows, left_mask, x, load, pick):
    _check(df, time=t)
    history = ordered[time]
    entity = ordered[by]
    a = ordered[by]
    entity = ordered[col]
    entity = ordered[entity_col]
    left_count = len(left_rows)
    keys = [by, time]
    frame = load(entity=by)
    entity = None if by is None else ordered[by]
    entity = ordered[col] if by else None
    entity = pick(entity_col, key)
    frame = load(entity=by, time=time)
    return a
'''


def renamed(context: str, token: str, new: str) -> Mutant:
    """A mutant of NAMES that replaces the last `token` of the first `context` by `new`."""
    at = NAMES.index(context) + context.rindex(token)
    line = NAMES.count("\n", 0, at) + 1
    column = at - (NAMES.rfind("\n", 0, at) + 1)
    return Mutant(id=f"{line}:{column}", operator="beyond/wrong-variable", family=Family.BEYOND, file="m.py",
                  module="m", function="f", scope="f",
                  span=Span(line=line, column=column, end_line=line, end_column=column + len(token)),
                  original=token, mutated=new, explanation="", diff="")


@pytest.mark.parametrize(("context", "token", "new", "stated"), [
    # the target's word is the old name's (or the old name has none), never the new one's
    ("entity = ordered[by]", "by", "time", True),
    ("entity = ordered[entity_col]", "entity_col", "key", True),
    ("frame = load(entity=by)", "by", "time", True),  # the keyword names the value
    ("entity = ordered[by]", "by", "t", True),  # `t` means something: it is passed as `time=`
    ("entity = ordered[col]", "col", "key", False),  # `col` is no entity either: no tie
    ("left_count = len(left_rows)", "left_rows", "left_mask", False),  # both are the left side's
    ("entity = ordered[by]", "by", "x", False),  # `x` means nothing
    ("keys = [by, time]", "by", "time", False),  # `keys` held `time` already
    ("entity = None if by is None", "by", "time", False),  # a condition names nothing
    ("entity = ordered[col] if by", "by", "time", False),
    ("a = ordered[by]", "by", "time", False),  # `a` says nothing
])
def test_a_name_states_intent_only_where_its_words_tie_to_the_old_name_and_not_the_new(context, token, new, stated):
    intent = stated_intent(NAMES, renamed(context, token, new))
    assert intent.stated is stated and intent.in_code is stated


def test_a_swap_inside_one_value_keeps_its_name_and_a_swap_across_two_keywords_does_not():
    """`pick(key, entity_col)` still reads `entity_col`: the name `entity` fits it as before;
    `load(entity=time, time=by)` passes the time column as the entity."""
    inside = renamed("pick(entity_col, key)", "entity_col, key", "key, entity_col")
    assert not stated_intent(NAMES, inside).stated
    across = renamed("load(entity=by, time=time)", "entity=by, time=time", "entity=time, time=by")
    assert stated_intent(NAMES, across).in_code


def test_a_name_is_read_on_the_reference_only():
    """A handout is read for sentences (they may have been dropped); a name cannot have been."""
    edit = renamed("entity = ordered[by]", "by", "time")
    assert stated_intents(NAMES, edit)
    assert not stated_intents(NAMES, edit, line=edit.span.line, end_line=edit.span.end_line)
