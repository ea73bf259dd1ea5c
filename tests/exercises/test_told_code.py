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
from bugsmith.harness.exercises.sources.layout import candidate_tree
from bugsmith.harness.exercises.sources.told_code import told_code

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
