"""The `bugsmith` command: parse arguments, call the library, render, exit.

Exit statuses (bugsmith.errors): 0 ok; 1 the score is under `--fail-under` or a graded
submission fails; 2 usage or configuration error; 3 red baseline; 4 internal error; 130
interrupted. No traceback reaches the user: an internal error is one line, and the traceback
goes to a file the line names.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import traceback
from dataclasses import replace
from pathlib import Path

import click

from bugsmith.errors import BugsmithError, ConfigError, UnknownMutantError
from bugsmith.harness import config, terminal
from bugsmith.harness.executors.table import LOCAL, executor_choices, executor_factory
from bugsmith.harness.outcome import RunResult, Status
from bugsmith.harness.store import last_run, stored_mutant
from bugsmith.mutators.family import Family

FAMILIES = click.Choice([family.value for family in Family])
INTERNAL_ERROR = 4
INTERRUPTED = 130


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bugsmith")
def cli() -> None:
    """Inject realistic bugs, prove your tests catch them, and turn them into exercises."""


def _progress(interactive: bool):
    """A redrawn bar on a terminal; append-only lines every few seconds in a log or CI."""
    if not interactive:
        lines = terminal.ProgressLines()

        def log(event) -> None:
            line = lines.line(event.stage, event.done, event.total, event.counts, event.eta)
            if line is not None:
                click.echo(line, err=True)

        return log

    def show(event) -> None:
        if event.stage == "baseline":
            click.echo("collecting the tests and running them once under coverage ...", err=True)
            return
        line = terminal.progress_line(event.done, event.total, event.counts, event.eta)
        click.echo("\r" + line + "\x1b[K", nl=False, err=True)  # clear what a longer line left
        if event.done >= event.total:
            click.echo("", err=True)

    return show


_BUILTIN = click.option("--builtin", is_flag=True,
                        help="The built-in reference corpus instead of the current project.")


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--tests", "tests", multiple=True, help="Test files or folders (default: the project's).")
@click.option("--family", "families", multiple=True, type=FAMILIES, help="Only these bug families.")
@click.option("--operator", "operators", multiple=True, help="Only these operators.")
@click.option("--jobs", type=int, help="Worker processes (default: one per core).")
@click.option("--timeout-factor", type=float, help="Limit = factor x covering tests' time + 1 s.")
@click.option("--fail-under", type=click.FloatRange(0, 100), help="Exit 1 below this score (%).")
@click.option("--since", help="Only lines changed since this git ref.")
@click.option("--isolation", type=click.Choice(config.ISOLATIONS), help="fork (fast) or subprocess.")
@click.option("--executor", type=click.Choice(executor_choices()), default=LOCAL, show_default=True)
@click.option("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786.")
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the reports (default: [tool.bugsmith] reports, else .bugsmith/reports/).")
@click.option("--no-report", is_flag=True, help="Do not write reports.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on standard output.")
@click.option("--preload/--no-preload", default=None,
              help="Leave a process with the suite's imports for the next run (default: on; BUGSMITH_PRELOAD=0: off).")
@click.option("--sample", metavar="N|P%",
              help="Run a stratified random sample of the mutants (a count, or a percentage) and report the"
                   " score with its 95% interval.")
@click.option("--sample-seed", type=int, default=0, show_default=True,
              help="The sample's seed: a larger --sample with the same seed holds the smaller one.")
@click.option("--budget", metavar="DURATION",
              help="Grow a sample of the mutants while this time lasts (90s, 2m, 1h) and report the score"
                   " with its 95% interval.")
@_BUILTIN
def run(paths, tests, families, operators, jobs, timeout_factor, fail_under, since, isolation,
        executor, scheduler, report_dir, no_report, as_json, preload, sample, sample_seed, budget,
        builtin) -> None:
    """Run the test suite against every mutant (or a sample of them) and score it."""
    from bugsmith import harness
    from bugsmith.harness.budget import cut_short, parse_budget, run_sized
    from bugsmith.harness.sampling import parse_sample

    if sample is not None and budget is not None:
        raise ConfigError("--sample and --budget both size the sample: choose one")
    try:
        spec = None if sample is None else parse_sample(sample, sample_seed)
        seconds = None if budget is None else parse_budget(budget)
    except ValueError as error:
        raise ConfigError(str(error)) from None

    options = config.resolve(
        Path.cwd(), tuple(paths), builtin=builtin, tests=tuple(tests), families=tuple(families),
        operators=tuple(operators), jobs=jobs, timeout_factor=timeout_factor, since=since,
        isolation=isolation, preload=True,
    )
    if preload is not None or os.environ.get("BUGSMITH_PRELOAD") == "0":  # the flag, then the variable
        options = replace(options, preload=bool(preload))
    options = replace(options, sample=spec)
    factory = executor_factory(executor, scheduler)

    def run_once(chosen: config.RunOptions) -> RunResult:
        return harness.run(chosen, progress=_progress(sys.stderr.isatty()), executor_factory=factory)

    def each_round(finished: RunResult, left: float) -> None:
        click.echo(terminal.round_line(finished, left), err=True)

    def sampled_first(finished: RunResult) -> None:
        click.echo(terminal.sample_first_line(finished), err=True)

    result = run_sized(options, run_once, budget=seconds, seed=sample_seed, on_round=each_round,
                       on_sample=sampled_first)
    for warning in result.warnings:
        click.echo(f"bugsmith: warning: {warning}", err=True)
    reports: list[Path] = []
    if not no_report:
        reports = _write_reports(result, report_dir or options.root / options.reports)
    below = fail_under is not None and (result.score or 0.0) < fail_under
    if as_json:
        click.echo(json.dumps(terminal.summary_record(result, reports, fail_under), indent=2))
    else:
        click.echo(terminal.summary(result))
        for path in reports:
            click.echo(f"report: {path}")
    if below:
        click.echo(f"bugsmith: mutation score {result.score or 0:.1f}% is under {fail_under}%", err=True)
    # A run stopped by Ctrl-C says so first, whatever its estimate: it did not end on its own.
    if cut_short(result):
        sys.exit(INTERRUPTED)
    if below:
        sys.exit(1)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--tests", "tests", multiple=True, help="Test files or folders (default: the project's).")
@click.option("--jobs", type=int, help="Worker processes (default: one per core).")
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the reports after each round (default: [tool.bugsmith] reports, else"
                   " .bugsmith/reports/).")
@click.option("--no-report", is_flag=True, help="Do not write reports.")
@_BUILTIN
def watch(paths, tests, jobs, report_dir, no_report, builtin) -> None:
    """Judge the mutants again on every save of the code or the tests, until Ctrl-C."""
    from bugsmith import harness
    from bugsmith.harness.shared.preload import end_left
    from bugsmith.harness.watch import rounds

    options = replace(config.resolve(Path.cwd(), tuple(paths), builtin=builtin, tests=tuple(tests), jobs=jobs),
                      preload=True)
    click.echo("bugsmith: watching the code and the tests; Ctrl-C stops", err=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` ends it as Ctrl-C does, preloader too
    try:
        for change in rounds(options, lambda chosen: harness.run(chosen)):
            click.echo(change.summary())
            if not no_report:
                _write_reports(change.result, report_dir or options.root / options.reports)
    except KeyboardInterrupt:
        click.echo("", err=True)
    finally:
        end_left()  # the preloader the rounds kept warm goes with them


def _triage_findings(result: RunResult):
    from bugsmith.harness.triage import report_findings

    survivors = {o.mutant_id for o in result.outcomes if o.status is Status.SURVIVED}
    return report_findings(Path(result.root), survivors) or None


def _write_reports(result: RunResult, folder: Path) -> list[Path]:
    from bugsmith.harness.report import default_targets, write_reports

    return write_reports(result, triage=_triage_findings(result), **default_targets(folder))


def _report_options(function):
    """`--html PATH`, `--json PATH`, ...: one option per format in the report table."""
    from bugsmith.harness.report import FORMATS

    for fmt in reversed(FORMATS):
        function = click.option(f"--{fmt.name}", f"{fmt.name}_path", metavar="PATH",
                                help=f"{fmt.description.capitalize()} (- for standard output).")(function)
    return function


@cli.command()
@_report_options
@_BUILTIN
def report(builtin, **paths) -> None:
    """Write reports of the last run in this project (default: HTML and JSON in its reports folder)."""
    from bugsmith.harness.report import default_targets, render, write_reports

    root = config.project_root(Path.cwd(), builtin)
    result = last_run(root)
    targets = {name.removesuffix("_path"): path for name, path in paths.items() if path}
    to_stdout = [name for name, path in targets.items() if path == "-"]
    if len(to_stdout) > 1:
        raise click.UsageError("only one report can go to standard output (-)")
    triage = _triage_findings(result)
    if not targets:
        targets = dict(default_targets(root / _reports_folder(root)))
    files = {name: Path(path) for name, path in targets.items() if path != "-"}
    for path in write_reports(result, triage=triage, **files):
        click.echo(f"report: {path}", err=bool(to_stdout))
    for name in to_stdout:
        click.echo(render(result, name, triage=triage), nl=False)


def _reports_folder(root: Path) -> str:
    table = config.read_table(root / "pyproject.toml") if (root / "pyproject.toml").is_file() else None
    return config.from_table(root, table or {}).reports


@cli.command()
@click.option("--prune", is_flag=True, help="Evict the least recently used entries now (to 90% of the cap).")
@click.option("--to-mb", type=click.FloatRange(min=0), help="With --prune: down to this many MB instead.")
@click.option("--check", is_flag=True, help="Read every page of the store; a damaged store is set aside.")
@click.option("--json", "as_json", is_flag=True, help="The store's size, and what was pruned or checked, as JSON.")
@_BUILTIN
def cache(prune, to_mb, check, as_json, builtin) -> None:
    """How big this project's store of verdicts is (rows and last uses per table); prune or check it.

    After each run, the least recently used entries are evicted while the store is over its cap
    (`store-cap-mb` in [tool.bugsmith], default 200).
    """
    from dataclasses import asdict

    from bugsmith.harness import store_cap

    if to_mb is not None and not prune:
        raise click.UsageError("--to-mb goes with --prune")
    root = config.project_root(Path.cwd(), builtin)
    table = config.read_table(root / "pyproject.toml") if (root / "pyproject.toml").is_file() else None
    cap_mb = config.from_table(root, table or {}).store_cap_mb
    checked = store_cap.check_project(root) if check else None
    pruned = store_cap.prune_project(root, cap_mb * store_cap.LOW_WATER if to_mb is None else to_mb) if prune else None
    size = store_cap.measure(root, cap_mb)
    if as_json:
        click.echo(json.dumps({name: asdict(record) if record else None for name, record in
                               (("store", size), ("pruned", pruned), ("checked", checked))}, indent=2))
        return
    if checked:
        click.echo(f"checked every page of {checked.path}: sound")
    if pruned:
        click.echo(store_cap.pruned_text(pruned))
    click.echo(store_cap.size_text(size) if size else f"no store in {root} yet")


@cli.command()
@click.option("--dry-run", is_flag=True, help="Show the table without writing it.")
def init(dry_run) -> None:
    """Write a [tool.bugsmith] table for the project in this folder, guessed from its layout."""
    from bugsmith.harness.project_setup import guess_table, table_text, write_table

    root = Path.cwd().resolve()
    table = guess_table(root)
    if table is None:
        raise BugsmithError(f"found no package or module to mutate in {root}: write [tool.bugsmith]"
                            " paths and tests in pyproject.toml by hand")
    if dry_run:
        click.echo(table_text(table), nl=False)
        return
    pyproject = write_table(root, table)
    click.echo(f"wrote to {pyproject}:\n{table_text(table)}", nl=False)
    click.echo("next: `bugsmith run` (bugsmith must be installed where the project's tests run)", err=True)


@cli.command()
@click.argument("mutant_ids", nargs=-1)
@click.option("--seconds", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="Search time per survivor.")
@click.option("--jobs", type=int, help="Worker processes (default: one per core).")
@click.option("--write", "write_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the verified tests into this file (each checked again: passes on the original,"
                   " fails on its mutant).")
@click.option("--force", is_flag=True, help="With --write: replace the file if it exists.")
@_BUILTIN
def triage(mutant_ids, seconds, jobs, write_path, force, builtin) -> None:
    """Classify the last run's survivors and suggest the missing tests (all by default)."""
    from bugsmith.harness.triage import TriageOptions, triage_text
    from bugsmith.harness.triage import triage as run_triage
    from bugsmith.harness.triage.found_tests import refuse_overwrite, write_tests

    if write_path is not None:
        refuse_overwrite(write_path, force)  # before the search, not after it
    options = config.resolve(Path.cwd(), builtin=builtin, jobs=jobs)
    result = run_triage(options, tuple(mutant_ids), settings=TriageOptions(search_seconds=seconds),
                        progress=_triage_progress(sys.stderr.isatty()))
    click.echo(triage_text(result))
    if write_path is not None:
        click.echo(write_tests(options, result.findings, write_path, force=force).summary())


def _triage_progress(interactive: bool):
    """Triage's own counts: a redrawn line on a terminal, a line every few seconds in a log."""
    from bugsmith.harness.triage.display import TriageProgress

    lines = TriageProgress(every=0.0 if interactive else 5.0)

    def show(event) -> None:
        line = lines.line(event)
        if line is None:
            return
        if not interactive:
            click.echo(line, err=True)
            return
        click.echo("\r" + line + "\x1b[K", nl=False, err=True)
        if event.done >= event.total:
            click.echo("", err=True)

    return show


@cli.command()
def operators() -> None:
    """List every mutator with its family and what bug it models."""
    from bugsmith.mutators.registry import all_mutators

    for mutator in all_mutators():
        click.echo(f"{mutator.name:<36} {mutator.family.value:<11} {_first_sentence(mutator.__doc__)}")


def _first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").split())
    return text.split(". ")[0].rstrip(".") + "." if text else ""


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--family", "families", multiple=True, type=FAMILIES)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per mutant.")
@_BUILTIN
def mutants(paths, families, as_json, builtin) -> None:
    """List the mutants of files or folders without running anything."""
    from bugsmith.harness.discovery import discover
    from bugsmith.mutators import registry
    from bugsmith.mutators.engine import enumerate_mutants

    options = config.resolve(Path.cwd(), tuple(paths), builtin=builtin, families=tuple(families))
    files, skipped = discover(options)
    found = enumerate_mutants(files, root=options.root,
                              mutators=registry.select(options.families, options.operators))
    for left_out in (*skipped, *found.skipped):
        click.echo(f"bugsmith: warning: skipped {left_out.file}: {left_out.reason}", err=True)
    for mutant in found.mutants:
        if as_json:
            click.echo(json.dumps(mutant.to_dict()))
        else:
            click.echo(f"{mutant.id}  {mutant.file}:{mutant.span.line}  {mutant.operator}: "
                       f"{terminal.code_in_one_line(mutant.original)} -> {terminal.code_in_one_line(mutant.mutated)}")
    click.echo(
        f"{len(found.mutants)} mutants in {len(found.files)} files ({found.seconds:.2f} s); dropped "
        f"{found.dropped_duplicates} duplicates, {found.dropped_equivalent} trivially equivalent",
        err=True,
    )


@cli.command()
@click.argument("mutant_id")
@_BUILTIN
def show(mutant_id: str, builtin: bool) -> None:
    """Show a mutant: what bug it is, its diff, and its verdict in the last run."""
    root = config.project_root(Path.cwd(), builtin)
    mutant, outcome = stored_mutant(root, mutant_id)
    if mutant is None:
        mutant = _enumerate_one(mutant_id, builtin)
    click.echo(terminal.mutant_details(mutant, outcome))
    from bugsmith.harness.triage import describe, load_findings

    finding = load_findings(root).get(mutant_id)
    if finding is not None and outcome is not None and outcome.status is Status.SURVIVED:
        click.echo("\n" + describe(finding))


def _enumerate_one(mutant_id: str, builtin: bool):
    from bugsmith.harness.discovery import source_files
    from bugsmith.mutators import registry
    from bugsmith.mutators.engine import enumerate_mutants

    options = config.resolve(Path.cwd(), builtin=builtin)
    found = enumerate_mutants(source_files(options), root=options.root, mutators=registry.select())
    for mutant in found.mutants:
        if mutant.id == mutant_id:
            return mutant
    raise UnknownMutantError(f"no mutant with id {mutant_id!r} (see `bugsmith mutants`)")


_PROJECT = click.option(
    "--project", type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A project whose pyproject.toml has [tool.bugsmith.exercises] (default: the current folder's"
         " project if it has one, else the built-in reference problems).")


def _selection(function):
    """The options that choose exercises, shared by `exercises` and `pack export`."""
    options = [
        click.option("--problem", "problems", multiple=True, help="Only these problems (default: all)."),
        click.option("--count", type=click.IntRange(1), default=20, show_default=True, help="Exercises."),
        click.option("--bugs", type=click.IntRange(1),
                     help="Bugs per exercise, each in a different function (default: 2 that share a"
                          " failing test for --difficulty hard, else 1)."),
        click.option("--family", "families", multiple=True, type=FAMILIES, help="Only these bug families."),
        click.option("--silent-only", is_flag=True, help="Only bugs that fail by a wrong answer."),
        click.option("--difficulty", type=click.Choice(["easy", "medium", "hard"]),
                     help="Only exercises of this level (how hard the bug is to find; see the README)."),
        click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same exercises."),
        click.option("--jobs", type=int, help="Worker processes (default: one per core)."),
        _PROJECT,
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _build(root, problems, count, bugs, families, silent_only, seed, jobs, difficulty=None):
    from bugsmith.harness.exercises import ExerciseOptions, build_exercises

    options = ExerciseOptions(problems=tuple(problems), count=count, bugs=bugs or 0, families=tuple(families),
                              silent_only=silent_only, seed=seed, difficulty=difficulty or "")
    return options, build_exercises(options, root=root, jobs=jobs,
                                    progress=_exercise_progress(sys.stderr.isatty()),
                                    notice=lambda text: click.echo(f"\nbugsmith: warning: {text}", err=True))


def _pool_stats(root, problems, families, jobs) -> None:
    from bugsmith.harness.exercises import ExerciseOptions
    from bugsmith.harness.exercises.assemble.stats import pool_stats
    from bugsmith.harness.exercises.summary import pool_text

    click.echo("bugsmith: validating every candidate edit (cached: the first time takes minutes)", err=True)
    interactive = sys.stderr.isatty()
    pools = pool_stats(ExerciseOptions(problems=tuple(problems), families=tuple(families)), root=root, jobs=jobs,
                       seen=lambda problem, done, total: click.echo(
                           f"{chr(13) if interactive else 'bugsmith: '}{problem}: {done}/{total} candidates run",
                           nl=not interactive, err=True))
    if interactive:
        click.echo(err=True)
    click.echo(pool_text(pools))


def _exercise_progress(interactive: bool):
    """A line redrawn on a terminal; a line per change of problem or count in a log."""
    if interactive:
        return lambda problem, found, wanted: click.echo(f"\r{problem}: {found}/{wanted} exercises",
                                                          nl=False, err=True)
    return lambda problem, found, wanted: click.echo(f"bugsmith: {problem}: {found}/{wanted} exercises",
                                                      err=True)


@cli.command()
@_selection
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: generated/exercises/).")
@click.option("--stats", is_flag=True,
              help="Print each problem's pool per family (candidates, validated silent and loud bugs)"
                   " instead of building; validates every candidate once (cached).")
def exercises(problems, count, bugs, families, silent_only, difficulty, seed, jobs, project, out, stats) -> None:
    """Build validated debug exercises from the reference problems or a project's
    [tool.bugsmith.exercises] (default output: generated/exercises/, or .bugsmith/exercises/
    in a project)."""
    from bugsmith.harness.exercises.pack.pack import save_exercises
    from bugsmith.harness.exercises.sources.problems import default_output, exercise_root
    from bugsmith.harness.exercises.summary import exercises_text

    root = exercise_root(project, Path.cwd())
    if stats:
        _pool_stats(root, problems, families, jobs)
        return
    options, built = _build(root, problems, count, bugs, families, silent_only, seed, jobs, difficulty)
    for path in save_exercises(built, out or default_output(root, "exercises"), root=root, options=options):
        click.echo(f"wrote {path}")
    click.echo(exercises_text(built))


@cli.group()
def pack() -> None:
    """Challenge packs: a candidate part to hand out and an instructor part to grade with."""


@pack.command("export")
@_selection
@click.option("--from", "source", type=click.Path(exists=True, path_type=Path),
              help="Export exercises saved by `bugsmith exercises` instead of building new ones.")
@click.option("--out", type=click.Path(path_type=Path),
              help="A folder for two trees, or NAME.zip for two archives (default: generated/pack/,"
                   " or .bugsmith/pack/ in a project).")
@click.option("--candidates", type=click.IntRange(1),
              help="One pack per candidate, each with one exercise per problem on its own seeded variant"
                   " of the code (replaces --count).")
def pack_export(problems, count, bugs, families, silent_only, difficulty, seed, jobs, project, source,
                out, candidates) -> None:
    """Export a challenge pack (candidate and instructor parts)."""
    from bugsmith.harness.exercises.pack.candidates import candidate_count, export_candidates
    from bugsmith.harness.exercises.pack.pack import export, load_exercises
    from bugsmith.harness.exercises.sources.problems import default_output, exercise_root

    root = exercise_root(project, Path.cwd())
    if source is not None:
        options, built = None, load_exercises(source)
    else:
        count = candidate_count(root, problems, candidates) if candidates else count
        options, built = _build(root, problems, count, bugs, families, silent_only, seed, jobs, difficulty)
    out = out or default_output(root, "pack")
    if candidates:
        every = export_candidates(built, out, root=root, candidates=candidates, seed=seed, options=options,
                                  progress=lambda done, total: click.echo(f"bugsmith: variants {done}/{total}",
                                                                          err=True))
    else:
        every = [export(built, out, root=root, options=options)]
    for paths in every:
        click.echo(f"candidate: {paths.candidate}")
        click.echo(f"instructor: {paths.instructor}")


@pack.command("autograder")
@click.argument("pack_path", metavar="PACK", type=click.Path(exists=True, path_type=Path))
@click.argument("out", metavar="OUT.zip", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--exercise", help="The exercise to grade (needed when the pack has more than one).")
@click.option("--points", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="The score of a passing submission: the assignment's autograder points.")
@click.option("--timeout", type=click.FloatRange(min=1), default=480, show_default=True,
              help="Seconds for the whole grading: under the assignment's autograder timeout (10 minutes"
                   " unless changed), so that results.json is written.")
@click.option("--test-timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds for one test.")
@click.option("--requirement", "requirements", multiple=True, metavar="SPEC",
              help="A pip requirement the problem's code needs (a project's pack); the built-in problems'"
                   " libraries come with bugsmith[corpus].")
@click.option("--no-sandbox", is_flag=True,
              help="Grade without bubblewrap, where the autograder's container allows no namespaces:"
                   " trusts every submission (the bundle's README.md says what that means).")
def pack_autograder(pack_path, out, exercise, points, timeout, test_timeout, requirements, no_sandbox) -> None:
    """Write a Gradescope autograder bundle (setup.sh, run_autograder, a wheel of this bugsmith and the
    instructor part) that grades one exercise of PACK."""
    from bugsmith.harness.exercises.pack.autograder import AutograderOptions, write_autograder

    options = AutograderOptions(exercise=exercise, points=points, timeout=timeout, test_timeout=test_timeout,
                                sandbox=not no_sandbox, requirements=tuple(requirements))
    click.echo(f"autograder: {write_autograder(pack_path, out, options)}")
    if no_sandbox:
        click.echo("bugsmith: this bundle grades WITHOUT a sandbox: every submission's code runs as root in the"
                   " autograder's container, where it can read the instructor part", err=True)


class _GradeFormats(click.Choice):
    """The names in the grade-format table, read when the option is used or shown: the table imports
    the grader, which every other command would otherwise pay for at start."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from bugsmith.harness.exercises.judge.grade_formats import GRADE_FORMATS

        return tuple(f.name for f in GRADE_FORMATS)

    @choices.setter
    def choices(self, value: object) -> None:
        """click.Choice sets its list on creation; the table is the list."""


@cli.command()
@click.argument("pack_path", metavar="PACK", type=click.Path(exists=True, path_type=Path))
@click.argument("exercise_id")
@click.argument("submission", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds for the whole grading.")
@click.option("--test-timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds for one test; a test that runs longer fails alone.")
@click.option("--verbose", "-v", is_flag=True, help="List every test.")
@click.option("--format", "output_format", type=_GradeFormats(),
              help="How to write the grade (default text; gradescope: results.json; junit: JUnit XML; html: a"
                   " page for the interviewer with the attempt's test runs as a timeline).")
@click.option("--json", "as_json", is_flag=True, help="The grade as JSON (--format json).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the grade in --format there (also when nothing could be graded, for formats a"
                   " platform reads: a failed run with the reason); the text summary goes to standard output.")
@click.option("--points", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="--format gradescope: the score of a passing submission (all or nothing).")
@click.option("--no-sandbox", is_flag=True,
              help="Run the submission without bubblewrap, with your rights: only for code you trust.")
@click.option("--save-attempt", "attempts", metavar="DIR", type=click.Path(file_okay=False, path_type=Path),
              help="Also keep the graded attempt (the --json grade, the exercise's label, the time) as one"
                   " JSON file in this folder, for `bugsmith attempts summarise`.")
@click.option("--candidate", metavar="NAME", help="The candidate's name, kept with the saved attempt.")
@click.option("--hints-given", metavar="N", type=click.IntRange(min=0),
              help="Hints you gave, kept with the saved attempt.")
def grade(pack_path, exercise_id, submission, timeout, test_timeout, verbose, output_format, as_json, output, points,
          no_sandbox, attempts, candidate, hints_given) -> None:
    """Grade a candidate's fix in a sandbox: the tests, canaries and the reference's outputs; exit 1
    unless it passes."""
    from bugsmith.harness.exercises.attempts.saving import save_graded, save_options
    from bugsmith.harness.exercises.judge.grade_formats import FormatOptions, grade_format
    from bugsmith.harness.exercises.judge.grade_text import process_lines
    from bugsmith.harness.exercises.judge.grading import grade as grade_submission
    from bugsmith.harness.exercises.judge.sandbox_probe import check_sandbox

    if as_json and output_format not in (None, "json"):
        raise click.UsageError("--json is --format json: give one of them")
    chosen = grade_format("json" if as_json else output_format or "text")
    options = FormatOptions(verbose=verbose, points=points)
    saving = save_options(attempts, candidate, hints_given)  # checked before minutes of grading
    try:
        if not no_sandbox:  # bwrap installed is not enough: where it cannot start, every test would look tampered
            check_sandbox()
        result = grade_submission(pack_path, exercise_id, submission, timeout=timeout, test_timeout=test_timeout,
                                  sandbox=not no_sandbox)
    except BugsmithError as error:
        if chosen.failure is not None:  # a platform reading the file alone sees a failed run, not nothing
            _emit_grade(chosen.failure(exercise_id, str(error), options), output)
        raise
    options = replace(options, process_lines=tuple(process_lines(result.process)))
    _emit_grade(chosen.render(result, options), output)
    if output is not None:
        click.echo(grade_format("text").render(result, options))
    if no_sandbox:
        click.echo("bugsmith: graded WITHOUT a sandbox (--no-sandbox): the submission's code ran with your"
                   " rights", err=True)
    if saving is not None:
        record = json.loads(grade_format("json").render(result, options))  # the grade exactly as --json prints it
        saved = save_graded(record, saving, pack=pack_path, exercise_id=exercise_id, submission=submission)
        click.echo(f"bugsmith: attempt saved: {saved.path}" + (" (replacing its earlier save)" if saved.replaced
                                                               else ""), err=True)
    if not result.passed:
        sys.exit(1)


def _emit_grade(document: str, output: Path | None) -> None:
    """The grade document on standard output, or in the file `--output` names."""
    if output is None:
        click.echo(document)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(document.rstrip("\n") + "\n", encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{output}: cannot write the grade: {error.strerror or error}") from None


@cli.group()
def attempts() -> None:
    """Graded attempts kept with `bugsmith grade --save-attempt DIR`: what each exercise really takes."""


@attempts.command("summarise")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The summaries, the rule and the skipped files as JSON.")
def attempts_summarise(folder, as_json) -> None:
    """Per pack and exercise: attempts, pass rate, median minutes and runs (from whole logs of test
    runs), median hints, the label, and whether it fits.

    \b
    The verdict, the first rule that applies:
    - fewer than 3 attempts: too few attempts (a median of one or two is one or two people's day);
    - under 50% passed without hints: harder than labelled (the grader decides a pass, no log needed);
    - at least 3 attempts timed by whole logs and a median over the label's limit: harder than labelled;
    - fewer than 3 timed: too few attempts (the pass rate alone cannot confirm the label);
    - a median under a third of the limit and at least 80% passed without hints: easier than
      labelled (limits are generous: 15 minutes to read, then 5 per difficulty point);
    - otherwise: label fits.
    A named candidate counts once per exercise (their latest grading).
    """
    from bugsmith.harness.exercises.attempts.reading import read_attempts
    from bugsmith.harness.exercises.attempts.summarising import summarise
    from bugsmith.harness.exercises.attempts.text import summaries_json, summaries_text

    found = read_attempts(folder)
    for warning in found.warnings:
        click.echo(f"bugsmith: warning: {warning}", err=True)
    summaries = summarise(found.attempts)
    click.echo(json.dumps(summaries_json(summaries, found.warnings), indent=2) if as_json
               else summaries_text(summaries))


@cli.command()
@click.option("--problem", required=True, help="The problem the tests are for.")
@click.option("--tests", "tests", required=True, type=click.Path(exists=True, path_type=Path),
              help="The candidate's test file or folder.")
@click.option("--family", "families", multiple=True, type=FAMILIES, help="Only these bug families.")
@click.option("--jobs", type=int, help="Worker processes (default: one per core).")
@click.option("--no-triage", is_flag=True, help="Do not explain the survivors (faster).")
@click.option("--no-sandbox", is_flag=True,
              help="Run the tests without bubblewrap, with your rights: only for tests you trust.")
@click.option("--verbose", is_flag=True, help="Every suggested test in full, and every missed bug.")
@click.option("--json", "as_json", is_flag=True, help="The score, lessons and missed bugs as JSON.")
@_PROJECT
def score(problem, tests, families, jobs, no_triage, no_sandbox, verbose, as_json, project) -> None:
    """Score a candidate's tests in a sandbox: the share of the problem's mutants they detect, and
    for each bug they missed, the input that shows it and a test that would have caught it."""
    from bugsmith.harness.exercises.judge.scoring import score_tests
    from bugsmith.harness.exercises.sources.problems import exercise_root
    from bugsmith.harness.exercises.summary import score_text

    result = score_tests(problem, tests.resolve(), root=exercise_root(project, Path.cwd()), families=tuple(families),
                         jobs=jobs, progress=_progress(sys.stderr.isatty()), triage=not no_triage,
                         sandbox=not no_sandbox)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else score_text(result, verbose=verbose))
    if no_sandbox:
        click.echo("bugsmith: scored WITHOUT a sandbox (--no-sandbox): the candidate's tests ran with your rights",
                   err=True)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # `kill` as Ctrl-C: the executors stop their workers on the way out


def main() -> None:
    signal.signal(signal.SIGTERM, _terminated)
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("bugsmith: interrupted", err=True)
        sys.exit(INTERRUPTED)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except BugsmithError as error:
        click.echo(f"bugsmith: error: {error}", err=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        click.echo("bugsmith: interrupted; the next `bugsmith run` resumes", err=True)
        sys.exit(INTERRUPTED)
    except Exception as error:  # a bug in bugsmith: one line here, the traceback in a file
        click.echo(f"bugsmith: internal error: {type(error).__name__}: {error} "
                   f"(traceback in {_save_traceback()}; please report it)", err=True)
        sys.exit(INTERNAL_ERROR)


def _save_traceback() -> str:
    with tempfile.NamedTemporaryFile("w", prefix="bugsmith-crash-", suffix=".txt", delete=False) as file:
        traceback.print_exc(file=file)
    return file.name


if __name__ == "__main__":
    main()
