"""What a candidate reads (the statement) and what an instructor holds back (hints, solution).

Rendered from jinja2 templates shipped as package data. The statement never names the bug:
it gives the problem, the symptom (the visible tests that fail and what they say), a time
limit and how to run the tests.
"""

from __future__ import annotations

from functools import cache

import jinja2

from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.mutators.mutant import unified_diff


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bugsmith.harness.exercises", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **context: object) -> str:
    return _environment().get_template(template).render(**context)


def short_test_name(test_id: str) -> str:
    """`path/test_x.py::test_y[a]` -> `test_x.py::test_y[a]`: what pytest prints in its summary."""
    path, _, name = test_id.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{name}"


def statement(exercise: Exercise, problem: Problem) -> str:
    """The candidate's problem statement: the problem, the symptom, the time limit."""
    return render("statement.md.j2", exercise=exercise, problem=problem.read(problem.statement).strip(),
                  location=problem.location,
                  symptoms=[(short_test_name(s.test), s) for s in exercise.symptoms])


def hints(exercise: Exercise) -> list[str]:
    """Progressive hints: the kind of bug first, then where it is, then the line."""
    found = [family.info.hint for family in sorted({m.family for m in exercise.mutants})]
    for mutant in exercise.mutants:
        found.append(f"A bug is in `{mutant.function}` in `{mutant.file}`.")
    for mutant in exercise.mutants:
        found.append(f"Look at line {mutant.span.line} of `{mutant.file}`.")
    return found


def reverse_patch(exercise: Exercise) -> str:
    """The patch that turns the buggy files back into the reference (`git apply`-able)."""
    return "".join(unified_diff(f, exercise.buggy[f], exercise.reference[f]) for f in sorted(exercise.buggy))


def solution(exercise: Exercise) -> str:
    """The instructor's solution: what each bug is, why it is realistic, and the fix."""
    return render("solution.md.j2", exercise=exercise, patch=reverse_patch(exercise), hints=hints(exercise))
