"""A medium or hard exercise's handout loses the sentences that give its bug away, and nothing else."""

from __future__ import annotations

import difflib

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.measure.clues import Clue, clue_of, clues_of, drop_clues
from bugsmith.harness.exercises.measure.intent import stated_intent
from bugsmith.mutators import registry
from bugsmith.mutators.engine import mutants_of_source


def removed_lines(before: str, after: str) -> list[str]:
    return [line[1:].strip() for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
            if line.startswith("-") and not line.startswith("---")]


def test_the_comment_above_the_bug_goes_and_the_same_comment_elsewhere_stays():
    """Only the giveaway at its place is dropped; an identical comment elsewhere is not."""
    source = ("def f(w):\n    # Zero-weight samples must not create a point.\n    keep = w > 0\n    return keep\n\n\n"
              "def g(w):\n    # Zero-weight samples must not create a point.\n    return w > 0\n")
    dropped = drop_clues(source, [Clue(line=2, text="Zero-weight samples must not create a point.", comment=True)])
    assert removed_lines(source, dropped) == ["# Zero-weight samples must not create a point."]
    assert dropped.count("Zero-weight") == 1 and "def g(w):\n    # Zero-weight" in dropped


def test_a_trailing_comment_leaves_its_code():
    source = "def f(w):\n    keep = w > 0  # zero weights are dropped\n    return keep\n"
    dropped = drop_clues(source, [Clue(line=2, text="zero weights are dropped", comment=True)])
    assert dropped == "def f(w):\n    keep = w > 0\n    return keep\n"


def test_a_docstring_loses_one_sentence_or_goes_when_nothing_is_left():
    source = ('def f(n):\n    """Grow `n` trees. Each on all rows.\n\n    Returns the forest.\n    """\n    return n\n\n\n'
              'def g(n):\n    """Grow `n` trees."""\n    return n\n')
    dropped = drop_clues(source, [Clue(line=2, text="Grow `n` trees.", comment=False),
                                  Clue(line=10, text="Grow `n` trees.", comment=False)])
    assert dropped == ('def f(n):\n    """Each on all rows.\n\n    Returns the forest.\n    """\n    return n\n\n\n'
                       'def g(n):\n    return n\n')


def test_a_docstring_that_is_the_whole_body_stays():
    source = 'def f(n):\n    """Grow `n` trees."""\n'
    assert drop_clues(source, [Clue(line=2, text="Grow `n` trees.", comment=False)]) == source


def test_the_reference_giveaways_are_found_and_dropped_from_the_handout():
    """"Grow `n_estimators` trees" goes from the buggy forest.py; the rest of the file is unchanged."""
    path = "reference/extra_trees/forest.py"
    reference = (builtin_root() / path).read_text(encoding="utf-8")
    mutants = mutants_of_source(reference, file=path, module="m", mutators=registry.select(())).mutants
    bug = next(m for m in mutants if m.operator == "window/range-bound" and m.mutated == "self.n_estimators + 1")
    clue = clue_of(reference, [bug], bug)
    assert clue is not None and not clue.comment
    handout = reference.replace("range(self.n_estimators)", "range(self.n_estimators + 1)")
    dropped = drop_clues(handout, [clue])
    assert removed_lines(handout, dropped) == [f'"""{clue.text}"""']
    assert "range(self.n_estimators + 1)" in dropped


def test_a_variant_of_a_hard_handout_drops_its_clue_again():
    """A candidate's variant is rebuilt from the reference: the giveaway must not come back."""
    from bugsmith.harness.exercises.assemble.rewrites import rewrite
    from bugsmith.harness.exercises.assemble.variants import handout

    path = "reference/extra_trees/forest.py"
    variant = rewrite((builtin_root() / path).read_text(encoding="utf-8"), "3:" + path)
    mutants = mutants_of_source(variant, file=path, module="m", mutators=registry.select(())).mutants
    bug = next(m for m in mutants if m.operator == "window/range-bound" and m.mutated == "self.n_estimators + 1")
    clue = clue_of(variant, [bug], bug)
    assert clue is not None
    kept, dropped = handout(variant, path, [bug], []), handout(variant, path, [bug], [bug])
    assert "range(self.n_estimators + 1)" in kept and "range(self.n_estimators + 1)" in dropped
    assert clue.text.strip('"') in kept and removed_lines(kept, dropped) == [f'"""{clue.text}"""']


def test_a_comment_block_goes_whole_and_leaves_no_blank_line_at_the_top_of_its_block():
    """A two-line comment that opens a block, followed by a blank line: nothing of it stays."""
    source = ("def f(w):\n    # Zero-weight samples must not\n    # create a point.\n\n    keep = w > 0\n"
              "    return keep\n")
    clue = Clue(line=2, end_line=3, text="Zero-weight samples must not create a point.", comment=True)
    assert drop_clues(source, [clue]) == "def f(w):\n    keep = w > 0\n    return keep\n"


def test_a_comment_between_blank_lines_leaves_one_blank_line():
    source = "def f(w):\n    x = 1\n\n    # zero weights are dropped\n\n    keep = w > 0\n    return keep\n"
    dropped = drop_clues(source, [Clue(line=4, text="zero weights are dropped", comment=True)])
    assert dropped == "def f(w):\n    x = 1\n\n    keep = w > 0\n    return keep\n"


def test_a_docstring_losing_a_whole_paragraph_keeps_one_blank_line_between_the_others():
    source = ('def f(n):\n    """Grow the forest.\n\n    Grow `n` trees.\n\n    Returns the forest.\n    """\n'
              '    return n\n')
    dropped = drop_clues(source, [Clue(line=2, text="Grow `n` trees.", comment=False)])
    assert dropped == 'def f(n):\n    """Grow the forest.\n\n    Returns the forest.\n    """\n    return n\n'


def test_every_clue_near_the_bug_goes_and_the_fix_is_still_the_reference():
    """The scheduler's `not` dropped: the trailing comment on the next line states what it should
    do; the handout loses it, parses, and with the `not` back is the reference's code."""
    import ast

    from bugsmith.harness.exercises.measure.clues import code_shape

    path = "reference/scheduler/scheduler.py"
    reference = (builtin_root() / path).read_text(encoding="utf-8")
    mutants = mutants_of_source(reference, file=path, module="m", mutators=registry.select(())).mutants
    bug = next(m for m in mutants if m.operator == "classic/drop-unary" and m.original == "not self._fits")
    clues = clues_of(reference, [bug], bug)
    assert [c.line for c in clues] == [bug.span.line + 1] and all(c.comment for c in clues)
    handout = drop_clues(bug.apply(reference), clues)
    assert "blocks everyone behind it" not in handout and "                break\n" in handout
    fixed = handout.replace("if self._fits(entry.request", "if not self._fits(entry.request")
    assert ast.dump(ast.parse(fixed)) == ast.dump(ast.parse(reference))
    assert code_shape(fixed) == code_shape(reference)


def test_code_shape_ignores_docstrings_comments_and_layout_but_not_code():
    from bugsmith.harness.exercises.measure.clues import code_shape

    reference = 'def f(x):\n    """Add one."""\n    return x + 1  # one more\n'
    assert code_shape("def f(x):\n    return (x +\n            1)\n") == code_shape(reference)
    assert code_shape("def f(x):\n    return x + 2\n") != code_shape(reference)
    assert code_shape("def f(x:\n") is None


def test_the_grader_recognises_the_fix_of_a_handout_that_lost_a_docstring_sentence():
    """The reference's docstring states the intent, the handout loses it, the candidate restores the code."""
    from bugsmith.harness.exercises.judge.grading import _fix_kind
    from bugsmith.harness.exercises.records import Difficulty, Exercise

    reference = 'def grow(n):\n    """Grow `n` trees. Each on all rows."""\n    return list(range(n))\n'
    handout = drop_clues(reference.replace("range(n)", "range(n + 1)"),
                         [Clue(line=2, text="Grow `n` trees.", comment=False)])
    assert "Grow" not in handout
    exercise = Exercise(id="exercise-01", instance_id="i", problem="p", mutants=(), buggy={"m.py": handout},
                        reference={"m.py": reference}, fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                        difficulty=Difficulty(score=9, level="hard"), time_limit_minutes=60)
    assert _fix_kind({"m.py": handout.replace("range(n + 1)", "range(n)")}, exercise, passed=True) == "reference"


def test_a_name_that_gives_the_bug_away_is_no_clue_to_drop():
    """rolling_features' `entity = ... ordered[time]`: the name states the intent (so the bug is
    never hard), but it is code: the handout keeps it, and nothing else is dropped for it."""
    path = "reference/rolling_features/rolling_features.py"
    reference = (builtin_root() / path).read_text(encoding="utf-8")
    mutants = mutants_of_source(reference, file=path, module="m", mutators=registry.select(())).mutants
    bug = next(m for m in mutants if m.operator == "beyond/wrong-variable" and m.mutated == "time"
               and reference.splitlines()[m.span.line - 1][:m.span.column].endswith("ordered["))
    assert stated_intent(reference, bug).in_code
    assert clues_of(reference, [bug], bug) == ()
