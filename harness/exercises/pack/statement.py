"""What a candidate reads (the statement) and what an instructor holds back (hints, solution).

Rendered from jinja2 templates shipped as package data. The statement never names the bug:
it gives the problem, the symptom, a time limit and how to run the tests. How much of the
symptom it tells follows the exercise's level: an easy one names the failing visible tests with
the first lines of what each says, a medium one names them with one line each, a hard one says
only how many fail and how to run them (the candidate reads the rest from the tests). So does
how much of the problem (`told_statement`: a hard one keeps the overview and the API).

Each takes the `HandoutNames` the pack hands the problem out with: the statement, hints,
solution and patch name files as the candidate's folder does (`KEEP`: as the project does,
for the task instances, whose files keep the project's paths).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import jinja2

from bugsmith.harness.exercises.records import Exercise
from bugsmith.harness.exercises.sources.handout_names import KEEP, HandoutNames
from bugsmith.harness.exercises.sources.layout import shown_line
from bugsmith.harness.exercises.sources.problems import Problem
from bugsmith.harness.exercises.sources.told_code import told_code
from bugsmith.harness.exercises.sources.told_statement import told_statement
from bugsmith.mutators.mutant import unified_diff


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("bugsmith.harness.exercises", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals["shown_line"] = shown_line
    return environment


def render(template: str, **context: object) -> str:
    return _environment().get_template(template).render(**context)


def short_test_name(test_id: str) -> str:
    """`path/test_x.py::test_y[a]` -> `test_x.py::test_y[a]`: what pytest prints in its summary."""
    path, _, name = test_id.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{name}"


EASY_MESSAGE_LINES = 3  # an easy statement shows this much of each failing test's message
MEDIUM_MESSAGE_CHARS = 120  # a medium one, one line of at most this many characters
RUN_COMMAND = "python -m pytest"


def statement(exercise: Exercise, problem: Problem, names: HandoutNames = KEEP) -> str:
    """The candidate's problem statement: the problem, the symptom as the level tells it, the time limit."""
    level = exercise.difficulty.level
    symptoms = [(short_test_name(s.test), s.exception, names.markdown(told_message(s.message, level)))
                for s in exercise.symptoms]
    told = told_statement(problem.read(problem.statement), level)
    text = names.text(problem.statement, told).strip()
    return render("statement.md.j2", exercise=exercise, problem=text, location=names.markdown(problem.location),
                  level=level, failing=len(exercise.symptoms), symptoms=symptoms, command=RUN_COMMAND)


def told_message(message: str, level: str) -> str:
    """What a statement of `level` shows of a failing test's message: the assertion's first lines
    (up to the first blank line, at most EASY_MESSAGE_LINES) when easy, its first line when
    medium, nothing when hard."""
    lines = []
    for line in message.strip().splitlines():
        if not line.strip():
            break
        lines.append(line.rstrip())
    if level == "easy":
        return "\n".join(lines[:EASY_MESSAGE_LINES])
    if level == "medium" and lines:
        first = " ".join(lines[0].split()).replace("`", "'")  # it is shown as code
        return first if len(first) <= MEDIUM_MESSAGE_CHARS else first[:MEDIUM_MESSAGE_CHARS - 3] + "..."
    return ""


def hints(exercise: Exercise, roles: Mapping[str, str] | None = None, names: HandoutNames = KEEP) -> list[str]:
    """Progressive hints: the kind of bug first, then (given `roles`, the interview bank's job of
    each function) the job of the code it is in, then where it is, then the line (in the file
    as `names` hands it out)."""
    found = [family.info.hint for family in sorted({m.family for m in exercise.mutants})]
    jobs = (roles or {}).get
    # A role's subject is its function ("Decides whether ..."), so it reads on after "the code that".
    found += [f"In the problem's terms, the bug is in the code that {job[:1].lower()}{job[1:]}"
              for job in dict.fromkeys(jobs(m.function or "") for m in exercise.mutants) if job]
    for mutant in exercise.mutants:
        found.append(f"A bug is in `{mutant.function}` in `{names.path(mutant.file)}`.")
    for mutant in exercise.mutants:
        found.append(f"Look at line {shown_line(exercise, mutant)} of `{names.path(mutant.file)}`.")
    return found


def reverse_patch(exercise: Exercise, names: HandoutNames = KEEP) -> str:
    """The patch that turns the buggy files back into the reference (`git apply`-able in a
    folder laid out as `names` hands it out)."""
    level = exercise.difficulty.level
    return "".join(unified_diff(names.path(f), names.text(f, told_code(exercise.buggy[f], level)),
                                names.text(f, told_code(exercise.reference[f], level)))
                   for f in sorted(exercise.buggy))


def solution(exercise: Exercise, roles: Mapping[str, str] | None = None, names: HandoutNames = KEEP) -> str:
    """The instructor's solution: what each bug is, why it is realistic, and the fix, with files
    named as `names` hands them out."""
    return render("solution.md.j2", exercise=exercise, patch=reverse_patch(exercise, names),
                  hints=hints(exercise, roles, names), names=names)
