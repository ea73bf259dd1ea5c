"""Progress in a log: a line when a stage starts, then at most one per interval, and the last."""

from __future__ import annotations

from bugsmith.harness.terminal import ProgressLines


def test_lines_are_throttled_but_the_start_and_the_end_are_always_said() -> None:
    """With a 5 s interval, verdicts every second give the stage's first line, one line per
    5 s, and the final line even when it comes early."""
    now = [0.0]
    lines = ProgressLines(every=5.0, clock=lambda: now[0])
    said = [lines.line("baseline", 0, 0, {}, None)]
    for done in range(0, 13):
        now[0] = float(done)
        said.append(lines.line("mutants", done, 12, {"killed": done}, 1.0 * (12 - done) or None))
    shown = [line for line in said if line is not None]
    assert shown[0] == "bugsmith: collecting the tests and running them once under coverage"
    assert shown[1].startswith("bugsmith: mutants 0/12 (0%)")
    assert [line.split()[2] for line in shown[2:]] == ["5/12", "10/12", "12/12"]
    assert shown[-1] == "bugsmith: mutants 12/12 (100%), score so far 100.0%"


def test_the_score_so_far_counts_only_what_the_score_counts() -> None:
    """Errors and equivalents are left out of the running score, timeouts count as detected."""
    lines = ProgressLines(every=0.0, clock=lambda: 0.0)
    line = lines.line("mutants", 5, 10, {"killed": 2, "timeout": 1, "survived": 1, "error": 1}, 3.0)
    assert line == "bugsmith: mutants 5/10 (50%), score so far 75.0%, ETA 3 s"


def test_the_eta_comes_from_the_mutant_phase_own_pace() -> None:
    """Verdicts found in the store cost nothing and the baseline is over: 100 stored, then 10
    verdicts in 5 s leave 90 mutants, so 45 s; before any fresh verdict there is no ETA."""
    from bugsmith.harness.mutation_run.progress import Progress

    start = Progress(done=100, total=200, counts={"killed": 100}, elapsed=0.0, first=100)
    assert start.eta is None
    later = Progress(done=110, total=200, counts={"killed": 110}, elapsed=5.0, first=100)
    assert later.eta == 45.0


def test_a_budgeted_runs_round_says_its_estimate_and_the_time_left() -> None:
    """After each round of `--budget`, the estimate of the sample so far with its interval: the
    score any time, as the final summary will give it."""
    from bugsmith.harness.outcome import Outcome, RunResult, Status
    from bugsmith.harness.terminal import round_line

    outcomes = tuple(Outcome(mutant_id=str(i), status=Status.KILLED if i % 4 else Status.SURVIVED) for i in range(200))
    result = RunResult(root="/p", started="", duration=1.0, mutants=(), outcomes=outcomes, tests=(),
                       options={"sample": {"seed": 3, "population": 2000, "size": 200}})
    line = round_line(result, 41.6)
    assert line.startswith("bugsmith: so far, a sample of 200 of 2000 mutants (seed 3): the full score is 75.0% +- ")
    assert "95% interval" in line and line.endswith("; 42 s of the budget left")


def test_the_sample_a_big_full_run_takes_first_says_its_estimate_and_what_runs_next() -> None:
    from bugsmith.harness.outcome import Outcome, RunResult, Status
    from bugsmith.harness.terminal import sample_first_line

    outcomes = tuple(Outcome(mutant_id=str(i), status=Status.KILLED) for i in range(100))
    result = RunResult(root="/p", started="", duration=1.0, mutants=(), outcomes=outcomes, tests=(),
                       options={"sample": {"seed": 0, "population": 1000, "size": 100}})
    line = sample_first_line(result)
    assert line.startswith("bugsmith: so far, a sample of 100 of 1000 mutants (seed 0): the full score is ")
    assert line.endswith("; the other 900 mutants run now (Ctrl-C keeps this estimate)")


def test_ctrl_c_after_a_big_runs_sample_prints_its_estimate_and_exits_130(tmp_path, monkeypatch) -> None:
    """`bugsmith run` on a big project: the sample's estimate is printed as it comes in, Ctrl-C
    during the rest keeps it as the summary with a warning, and the exit status says the run
    was stopped (130), ahead of --fail-under's 1."""
    from click.testing import CliRunner

    from bugsmith.harness import budget, mutation_run
    from bugsmith.harness.cli import cli
    from bugsmith.harness.outcome import Outcome, RunResult, Status
    from bugsmith.mutators.mutant import Family, Mutant, Span

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_f.py").write_text("from pkg import f\n\n\ndef test_f():\n    assert f(1) == 2\n")
    (tmp_path / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\n')
    calls = []

    def fake_run(options, **_):
        calls.append(options.sample)
        if options.sample is None:
            raise KeyboardInterrupt
        outcomes = tuple(Outcome(mutant_id=str(i), status=Status.KILLED if i % 2 else Status.SURVIVED)
                         for i in range(40))
        mutants = tuple(Mutant(id=str(i), operator="classic/op", family=Family.CLASSIC, file="pkg/__init__.py",
                               module="pkg", function="f", scope="f",
                               span=Span(line=2, column=11, end_line=2, end_column=16), original="x + 1",
                               mutated="x - 1", explanation="", diff="") for i in range(40))
        return RunResult(root=str(tmp_path), started="", duration=1.0, mutants=mutants, outcomes=outcomes,
                         tests=(), options={"sample": {"seed": 0, "population": 400, "size": 40}})

    # Patched where the run lives, as the other CLI tests do: patching `bugsmith.harness.run`
    # would leave the real function in that module's namespace on undo, ahead of its lazy
    # lookup, and a later test's patch of mutation_run.run would no longer reach the CLI.
    monkeypatch.setattr(mutation_run, "run", fake_run)
    monkeypatch.setattr(budget, "SAMPLE_FIRST_LINES", 1)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["run", "--no-report", "--fail-under", "90"])
    assert [spec.percent if spec else None for spec in calls] == [10.0, None]
    assert "bugsmith: so far, a sample of 40 of 400 mutants (seed 0)" in done.output
    assert budget.INTERRUPTED_AFTER_SAMPLE in done.output and "is under 90" in done.output
    assert done.exit_code == 130, done.output
