"""The ways a grade is written out: text for a person, JSON, Gradescope's results.json, JUnit XML,
an HTML page for the interviewer.

`GRADE_FORMATS` is the one table of them: the CLI's `bugsmith grade --format` choices come from
it. Each format renders a `Grade`; a format that a grader platform reads on its own (Gradescope)
also renders a run that produced no grade at all (no sandbox here, a submission that cannot be
read), so that the platform shows a failed run with the reason rather than nothing.

The formats for a platform (Gradescope, JUnit) take the candidate's process summary as text
lines (`FormatOptions.process_lines`, from `grade_text.process_lines`, which the CLI passes): how
they worked, from the record of their attempt. Text, JSON and the page render the grade's own
process record.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bugsmith.harness.exercises.judge.grade_page import grade_page
from bugsmith.harness.exercises.judge.grade_text import grade_text
from bugsmith.harness.exercises.judge.gradescope import gradescope_failure, gradescope_results
from bugsmith.harness.exercises.judge.grading import Grade
from bugsmith.harness.exercises.judge.junit_grade import junit_failure, junit_grade
from bugsmith.harness.exercises.records import ExerciseError

__all__ = ["GRADE_FORMATS", "FormatOptions", "GradeFormat", "grade_format"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatOptions:
    """What a format may need besides the grade; each format reads only its own."""

    verbose: bool = False  # text: every test, not only the failing ones
    points: float = 1.0  # gradescope: what a passing submission scores (all or nothing)
    process_lines: Sequence[str] = ()  # the candidate's process summary, one line each (instructor's eyes)


class GradeRenderer(Protocol):
    def __call__(self, grade: Grade, options: FormatOptions) -> str: ...


class FailureRenderer(Protocol):
    def __call__(self, exercise_id: str, message: str, options: FormatOptions) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class GradeFormat:
    """One output format of `bugsmith grade --format NAME`."""

    name: str
    description: str
    render: GradeRenderer
    failure: FailureRenderer | None = None  # a run with no grade, for formats a platform reads alone


def _text(grade: Grade, options: FormatOptions) -> str:
    # The summary renders the grade's own process record: the lines would only repeat it.
    return grade_text(grade, verbose=options.verbose)


def _json(grade: Grade, options: FormatOptions) -> str:
    return json.dumps(grade.to_dict(), indent=2)  # the whole record, its process among it


def _gradescope(grade: Grade, options: FormatOptions) -> str:
    return json.dumps(gradescope_results(grade, points=options.points, process_lines=options.process_lines),
                      indent=2, ensure_ascii=False)


def _gradescope_failure(exercise_id: str, message: str, options: FormatOptions) -> str:
    return json.dumps(gradescope_failure(exercise_id, message), indent=2, ensure_ascii=False)


def _junit(grade: Grade, options: FormatOptions) -> str:
    return junit_grade(grade, process_lines=options.process_lines)


def _junit_failure(exercise_id: str, message: str, options: FormatOptions) -> str:
    return junit_failure(exercise_id, message)


def _page(grade: Grade, options: FormatOptions) -> str:
    return grade_page(grade)  # the process, the timeline included, from the grade's own record


# Every format of `bugsmith grade`, the default first. A new format is one entry here.
GRADE_FORMATS: tuple[GradeFormat, ...] = (
    GradeFormat(name="text", render=_text, description="a summary for a person (every test with --verbose)"),
    GradeFormat(name="json", render=_json, description="the whole grade record as JSON"),
    GradeFormat(name="gradescope", render=_gradescope, failure=_gradescope_failure,
                description="Gradescope's autograder results.json (held-back tests shown after grades publish)"),
    GradeFormat(name="junit", render=_junit, failure=_junit_failure,
                description="JUnit XML: one test case per test, held-back ones included, and the verdict"),
    GradeFormat(name="html", render=_page,
                description="one HTML page for the interviewer: the verdict, the process and the attempt's test"
                            " runs as a timeline (names held-back tests)"),
)


def grade_format(name: str) -> GradeFormat:
    """The format called `name`, or ExerciseError naming the ones there are."""
    for entry in GRADE_FORMATS:
        if entry.name == name:
            return entry
    raise ExerciseError(f"no grade format {name!r}; choose one of {', '.join(f.name for f in GRADE_FORMATS)}")
