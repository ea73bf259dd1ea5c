"""A medium or hard handout's code keeps no prose: no comment, no docstring, with the code itself
unchanged and no mark of where the prose stood; an easy handout keeps every word."""

from __future__ import annotations

import ast
import io
import tokenize

import pytest

from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises.measure.clues import code_shape
from bugsmith.harness.exercises.records import Difficulty, Exercise
from bugsmith.harness.exercises.sources.catalogue import problem_named, reference_names
from bugsmith.harness.exercises.sources.layout import candidate_tree, shown_line
from bugsmith.harness.exercises.sources.told_code import told_code, told_line
from bugsmith.mutators.mutant import Family, Mutant, Span

BEFORE = '''"""A module docstring that states a rule."""

# A licence line.

import os  # why os


class Box:
    """Holds things."""

    size = 1
    """The size, as an attribute docstring."""

    # A note between members.

    def empty(self):
        """Only a docstring."""

    def first(self, items,  # the items
              default=None):
        if items:
            return items[0]
        # Nothing there:
        else:
            return (
                # the fallback
                default)
# The end.
'''

AFTER = '''import os


class Box:
    size = 1

    def empty(self):
        pass

    def first(self, items,
              default=None):
        if items:
            return items[0]
        else:
            return (
                default)
'''


def _prose(source: str) -> list[str]:
    """Every comment and every docstring of `source`."""
    comments = [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT]
    docstrings = [node for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and ast.get_docstring(node, clean=False) is not None]
    return comments + [type(node).__name__ for node in docstrings]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_medium_or_hard_handout_loses_every_comment_and_docstring_and_no_gap_shows_where(level: str):
    assert told_code(BEFORE, level) == AFTER


def test_an_easy_handout_keeps_every_word():
    assert told_code(BEFORE, "easy") == BEFORE


@pytest.mark.parametrize("source", [
    'import click\n\n\n@click.command()\ndef main():\n    """Shown by --help."""\n',
    'def f():\n    """Usage."""\n\n\nprint(f.__doc__)  # read at run time\n',
    'def add(a, b):\n    """\n    >>> add(1, 2)\n    3\n    """\n    return a + b\n',
    'from docopt import docopt\n"""Usage: tool <x>"""\n',
    "def broken(:\n    # not Python\n",
    'def f():\n    "a" f"{print(1)}"\n',
])
def test_a_file_whose_prose_may_be_read_at_run_time_or_that_does_not_parse_is_handed_out_as_it_is(source: str):
    assert told_code(source, "hard") == source


@pytest.mark.parametrize("name", reference_names(builtin_root()))
@pytest.mark.parametrize("level", ["medium", "hard"])
def test_every_built_in_problem_is_the_same_code_without_prose(name: str, level: str):
    problem = problem_named(builtin_root(), name)
    exercise = Exercise(id="exercise-01", instance_id="i", problem=name, mutants=(), buggy={}, reference={},
                        fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                        difficulty=Difficulty(score=6, level=level), time_limit_minutes=20)
    tree = candidate_tree(problem, exercise)
    code = [path for path in problem.code if path.endswith(".py")]
    assert code, name
    for path in code:
        whole, told = problem.read(path), tree[path.removeprefix("reference/")]
        assert _prose(whole), path  # the test means something only on files with prose
        assert _prose(told) == [], path
        assert code_shape(told) == code_shape(whole), path  # the same code, docstrings aside
        lines = told.splitlines()
        assert all(line == line.rstrip() for line in lines), path
        assert lines[0].strip() and "\n\n\n\n" not in told, path
        # A block never opens on a blank line: nothing marks where a docstring stood.
        assert not any(a.rstrip().endswith(":") and not b.strip() for a, b in zip(lines, lines[1:])), path
    tests = [path for path in problem.visible if _prose(problem.read(path))]
    for path in tests:  # the tests state the rules: they keep their words
        assert tree[path.removeprefix("reference/")] == problem.read(path).replace(f"reference.{name}", name)


@pytest.mark.parametrize(("source", "told"), [
    # Blank lines that ended a block before a comment do not add to the next statement's.
    ("def f():\n    return 1\n\n    # note\n\n\ndef g():\n    pass\n", "def f():\n    return 1\n\n\ndef g():\n    pass\n"),
    ('"""Only a docstring."""\n', ""),
    ('def f(): """doc"""\nclass E(Exception): "..."\n"""doc"""; x = 1\n',
     "def f(): pass\nclass E(Exception): pass\nx = 1\n"),
    ('#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# licence\n"""Doc."""\n\nimport os\n',
     "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport os\n"),
])
def test_what_prose_leaves_behind_shows_no_gap_and_keeps_what_the_interpreter_reads(source: str, told: str):
    assert told_code(source, "hard") == told


@pytest.mark.parametrize(("source", "expected"), [
    # A trailing comment after an open bracket; repeated lines around comments; a docstring
    # whose text is a code line; a line that is not code goes to the next one that is.
    ("x = f(a,  # c\n      b)\n", {1: 1, 2: 2}),
    ('def f(x):\n    return None\n    # a\n    # b\n    return None\n    # c\n\n\ndef g(x):\n    """Doc."""\n\n'
     "    return x\n", {2: 2, 3: 3, 5: 3, 9: 6, 10: 7, 12: 7}),
    ('def f(x):\n    """\n    return x\n    """\n    return x\n', {1: 1, 3: 2, 5: 2}),
])
def test_a_line_is_told_where_its_code_stands_in_the_handout(source: str, expected: dict[int, int]):
    assert {line: told_line(source, "hard", line) for line in expected} == expected
    assert all(told_line(source, "easy", line) == line for line in expected)


@pytest.mark.parametrize("name", reference_names(builtin_root()))
def test_every_code_line_of_a_built_in_problem_is_told_at_its_own_text(name: str):
    problem = problem_named(builtin_root(), name)
    for path in (p for p in problem.code if p.endswith(".py")):
        whole = problem.read(path)
        told = told_code(whole, "hard").splitlines()
        for number, text in enumerate(whole.splitlines(), start=1):
            code = text.split("  #")[0].rstrip()
            if code.strip() and not code.lstrip().startswith(("#", '"', "'")) and code in told:
                assert told[told_line(whole, "hard", number) - 1] == code, (path, number)


def test_a_fix_of_a_handout_without_prose_is_the_reference_to_the_grader():
    reference = 'RATE = 2\n"""The rate."""\nclass A:\n    """d"""\n    x = 1\n    """x doc"""\nif x:\n    y = 1\nelse:\n    """only"""\n'
    assert code_shape(told_code(reference, "hard")) == code_shape(reference)
    licensed = '# Licence.\n\n"""A package of nothing but its docstring."""\n'
    assert told_code(licensed, "hard") == "" and code_shape("") == code_shape(licensed)


def test_a_bug_below_another_in_its_file_is_told_at_its_line_in_the_handout():
    """The first bug adds a line, the docstring above both is gone: the second bug's line moves
    down one for the first and up two for the docstring."""
    reference = 'def f(a):\n    """Doc.\n    """\n    b = a\n    return b\n'
    first = Mutant(id="1", operator="o", family=Family.CLASSIC, file="m.py", module="m", function="f", scope="f",
                   span=Span(line=4, column=4, end_line=4, end_column=9), original="b = a", mutated="b = a\n    b += 1",
                   explanation="", diff="")
    second = Mutant(id="2", operator="o", family=Family.CLASSIC, file="m.py", module="m", function="f", scope="f",
                    span=Span(line=5, column=11, end_line=5, end_column=12), original="b", mutated="-b",
                    explanation="", diff="")
    for level, lines in (("hard", (2, 4)), ("easy", (4, 6))):
        exercise = Exercise(id="exercise-01", instance_id="i", problem="p", mutants=(first, second), buggy={},
                            reference={"m.py": reference}, fail_to_pass=(), pass_to_pass=(), symptoms=(), silent=True,
                            difficulty=Difficulty(score=5, level=level), time_limit_minutes=20)
        assert (shown_line(exercise, first), shown_line(exercise, second)) == lines, level
