"""Three candidates on one exercise, through real pytest runs in the handed-out folder, then graded.

(a) runs the tests, runs the one failing test alone, fixes the line, runs them again; (b) edits
and rewrites the whole function without running anything, then runs once at the end (or never);
(c) deletes the log, or forges a line of it. The grade reports each process beside a verdict that
the end state alone decides.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bugsmith.harness.cli import cli
from bugsmith.harness.config import builtin_root
from bugsmith.harness.exercises import ExerciseOptions, build_exercises
from bugsmith.harness.exercises.judge.attempt_log import LOG, in_project_names, read_attempt
from bugsmith.harness.exercises.judge.grade_text import grade_text
from bugsmith.harness.exercises.judge.grading import grade, grade_schema
from bugsmith.harness.exercises.judge.process import judge
from bugsmith.harness.exercises.judge.submission import submitted_code
from bugsmith.harness.exercises.pack.pack import export
from bugsmith.harness.exercises.records import is_hidden_test
from bugsmith.harness.exercises.sources.handout_names import corpus_names
from bugsmith.harness.exercises.sources.problems import corpus_layout
from tests.grading.submissions import requires_bwrap

pytestmark = [pytest.mark.slow, requires_bwrap]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One auc exercise and its pack as trees: `bugsmith pack export --problem auc --count 1 --seed 0`."""
    options = ExerciseOptions(problems=("auc",), count=1, seed=0)
    exercises = build_exercises(options, root=builtin_root(), jobs=2)
    pack = export(exercises, tmp_path_factory.mktemp("pack") / "pack", root=builtin_root(), options=options)
    return exercises[0], pack


def _copy(built, folder: Path) -> Path:
    exercise, pack = built
    return Path(shutil.copytree(pack.candidate / exercise.id, folder))


def _pytest(folder: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=folder, env=env, capture_output=True,
                   timeout=300)


def _rewritten(source: str, function: str) -> str:
    """`source` with the top-level `function` written anew: its locals renamed, the whole of it reformatted."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    local = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for name in ast.walk(node):
        if isinstance(name, ast.Name) and name.id in local:
            name.id = f"{name.id}_value"
    lines = source.splitlines(keepends=True)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return "".join(lines[:first - 1]) + ast.unparse(node) + "\n" + "".join(lines[node.end_lineno:])


def _process_line(result) -> list[str]:
    return [line for line in grade_text(result).splitlines() if line.startswith("  process")]


@pytest.fixture(scope="module")
def candidates(built, tmp_path_factory):
    """The three candidates' folders, each worked on with real pytest runs (in the folder's own
    names: `auc/...`, where the records say `reference/auc/...`)."""
    exercise, _ = built
    names = corpus_names(exercise.problem)
    root = tmp_path_factory.mktemp("candidates")
    failing = sorted(names.test_id(t) for t in exercise.fail_to_pass if not is_hidden_test(t))
    mutant = exercise.mutants[0]

    careful = _copy(built, root / "careful")
    _pytest(careful)
    _pytest(careful, failing[0])
    for path, text in exercise.reference.items():
        (careful / names.path(path)).write_text(text, encoding="utf-8")
    _pytest(careful)

    hasty, never = _copy(built, root / "hasty"), _copy(built, root / "never")
    for folder in (hasty, never):
        target = folder / names.path(mutant.file)
        target.write_text(exercise.buggy[mutant.file].replace("\n\n\ndef ", "\n\n\n# was it here?\ndef ", 1))
        target.write_text(_rewritten(exercise.reference[mutant.file], mutant.function))
    _pytest(hasty)

    deleted, forged = _copy(built, root / "deleted"), _copy(built, root / "forged")
    for folder in (deleted, forged):
        shutil.copytree(careful, folder, dirs_exist_ok=True)
    (deleted / LOG).unlink()
    rows = [json.loads(row) for row in (forged / LOG).read_text().splitlines()]
    rows[0]["outcomes"] = {test: "passed" for test in rows[0]["outcomes"]}  # "it passed from the start"
    (forged / LOG).write_text("".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))
    return {"careful": careful, "hasty": hasty, "never": never, "deleted": deleted, "forged": forged}


def test_the_careful_candidate_is_reported_tests_first_rerun_and_minimal(built, candidates):
    """Graded through `bugsmith grade --json`: passed, and the process as the format recommends; the JSON
    matches its schema, and the grader's own runs add nothing to the log."""
    exercise, pack = built
    folder = candidates["careful"]
    before = (folder / LOG).read_text()
    done = CliRunner().invoke(cli, ["grade", str(pack.instructor), exercise.id, str(folder), "--json"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    jsonschema.validate(record, grade_schema(), format_checker=jsonschema.FormatChecker())
    process = record["process"]
    assert record["passed"] and record["fix"] == "reference"
    assert process["log"] == "ok" and process["note"] == ""
    assert process["tests_first"] is True and process["rerun_after_each_change"] is True
    assert process["narrowed"] is True and process["narrowest"] == 1
    assert [run["green"] for run in process["runs"]] == [False, False, True]
    assert process["runs"][1]["selected"] == [sorted(t for t in exercise.fail_to_pass if not is_hidden_test(t))[0]]
    assert process["minutes_to_green"] is not None and process["minutes_to_green"] <= process["minutes_total"]
    assert process["code_states"] == 2 and process["runs"][2]["diff"].startswith("--- a/")
    assert process["change"]["verdict"] == "minimal" and process["change"]["lines"] == record["diff_lines"]
    assert process["change"]["functions"] == [f"{exercise.mutants[0].file}::{exercise.mutants[0].function}"]
    assert (folder / LOG).read_text() == before


def test_the_hasty_candidate_passes_but_is_reported_untested_and_a_rewrite(built, candidates):
    """Correct code, so it passes; no tests before the first edit, changes not re-run, a rewrite; and the
    same when the tests never ran at all (the log then ends before the code: stale)."""
    exercise, pack = built
    result = grade(pack.instructor, exercise.id, candidates["hasty"], timeout=300)
    assert result.passed and result.fix == "different"
    process = result.process
    assert process.log == "ok" and len(process.runs) == 1 and process.runs[0].green
    assert process.tests_first is False and process.rerun_after_each_change is False
    assert process.change.verdict == "rewrite" and process.change.rewritten
    folder = pack.instructor / exercise.id / "handout"
    names = corpus_names(exercise.problem)
    handed = {p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*.py")}
    handout = names.project_files(handed)
    never = candidates["never"]
    code = submitted_code(never, exercise, corpus_layout(exercise.problem), handout, names)
    untried = judge(in_project_names(read_attempt(never, handed), names), handout=handout, code=code,
                    solution={**handout, **exercise.reference},
                    visible=[t for t in exercise.fail_to_pass if not is_hidden_test(t)], fill=False)
    assert untried.log == "stale" and untried.runs == () and untried.tests_first is False
    assert untried.rerun_after_each_change is False and untried.change.verdict == "rewrite"


def test_a_deleted_or_forged_log_is_one_line_and_the_end_state_is_graded_as_ever(built, candidates):
    """The careful candidate's code with the log deleted or a line forged: still passes; missing, broken."""
    exercise, pack = built
    with ThreadPoolExecutor(2) as pool:
        deleted, forged = pool.map(lambda name: grade(pack.instructor, exercise.id, candidates[name], timeout=300),
                                   ["deleted", "forged"])
    assert deleted.passed and forged.passed
    assert deleted.process.log == "missing" and deleted.process.runs == ()
    assert forged.process.log == "broken" and "line 1 was edited" in forged.process.note
    for result, word in ((deleted, "missing"), (forged, "broken")):
        assert result.process.tests_first is None and result.process.change.verdict == "minimal"
        lines = _process_line(result)
        assert len(lines) == 1 and lines[0].startswith(f"  process    log {word}: ")
