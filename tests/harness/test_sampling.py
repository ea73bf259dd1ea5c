"""A score from a sample of the mutants: stratified, nested, and an interval that covers the
full score as often as it says."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from bugsmith.harness.outcome import Outcome, Status
from bugsmith.harness.sampling import SampleSpec, estimate, parse_sample, stratified_sample, wilson
from bugsmith.mutators.mutant import Family, Mutant, Span

FAMILIES = (Family.CLASSIC, Family.BEYOND, Family.WINDOW)


def mutant(ident: str, file: str, family: Family) -> Mutant:
    return Mutant(id=ident, operator=f"{family.value}/op", family=family, file=file, module="m", function="f",
                  scope="f", span=Span(line=1, column=0, end_line=1, end_column=1), original="a", mutated="b",
                  explanation="", diff="")


def population(size: int, seed: int = 1) -> list[Mutant]:
    """Mutants over 7 files and 3 families, the groups of uneven sizes."""
    rng = random.Random(seed)
    return [mutant(f"m{i:05d}", f"f{rng.randrange(7)}.py", FAMILIES[rng.randrange(3)] if i % 5 else Family.CLASSIC)
            for i in range(size)]


def test_each_file_and_family_gives_its_share_and_the_order_is_kept() -> None:
    mutants = population(3000)
    sample = stratified_sample(mutants, 300, seed=4)
    assert len(sample) == 300
    groups = Counter((m.file, m.family) for m in mutants)
    taken = Counter((m.file, m.family) for m in sample)
    for key, size in groups.items():
        assert abs(taken[key] - 300 * size / 3000) < 1, key
    positions = {m.id: i for i, m in enumerate(mutants)}
    assert [positions[m.id] for m in sample] == sorted(positions[m.id] for m in sample)
    assert stratified_sample(mutants, 300, seed=4) == sample
    assert stratified_sample(mutants, 300, seed=5) != sample


def test_a_larger_sample_with_the_same_seed_holds_the_smaller_one() -> None:
    """A second run with a bigger --sample re-runs nothing: the store has the first one's
    verdicts. Only a remainder that moves from one group to another can fall out."""
    mutants = population(3000)
    small = {m.id for m in stratified_sample(mutants, 300, seed=2)}
    large = {m.id for m in stratified_sample(mutants, 900, seed=2)}
    assert len(small - large) <= len({(m.file, m.family) for m in mutants})
    assert stratified_sample(mutants, 5000, seed=2) == tuple(mutants)


def outcomes_of(mutants: list[Mutant], rng: random.Random) -> dict[str, Outcome]:
    """A full run's verdicts: files differ in how well they are tested; some equivalents."""
    strength = {f"f{i}.py": 0.55 + 0.06 * i for i in range(7)}
    statuses = {}
    for m in mutants:
        draw = rng.random()
        status = (Status.EQUIVALENT if draw > 0.97 else Status.KILLED if draw < strength[m.file]
                  else Status.SURVIVED)
        statuses[m.id] = Outcome(mutant_id=m.id, status=status)
    return statuses


def test_the_interval_covers_the_full_score_at_least_as_often_as_it_says() -> None:
    """200 seeds of a 10 % sample of 10,000 mutants: the 95 % interval holds the full run's score
    in at least 93 % of them, and is at most 3 points either side."""
    mutants = population(10_000, seed=7)
    full = outcomes_of(mutants, random.Random(3))
    counted = [o for o in full.values() if o.status is not Status.EQUIVALENT]
    truth = 100 * sum(o.status is Status.KILLED for o in counted) / len(counted)
    covered, widest = 0, 0.0
    for seed in range(200):
        sample = stratified_sample(mutants, 1000, seed)
        found = estimate([full[m.id] for m in sample], population=len(mutants), seed=seed)
        assert found is not None
        covered += found.low <= truth <= found.high
        widest = max(widest, found.half_width)
    assert covered >= 0.93 * 200, covered
    assert widest <= 3.0, widest


def test_one_survivor_in_a_sample_still_holds_a_score_near_one_hundred() -> None:
    """The corpus has one survivor in 1,444 mutants: a 10 % sample that draws it must not call
    the full score out of reach (the plain Wilson interval did, for 4 seeds in 30)."""
    mutants = population(1444, seed=2)
    full = {m.id: Outcome(mutant_id=m.id, status=Status.KILLED) for m in mutants}
    full[mutants[100].id] = Outcome(mutant_id=mutants[100].id, status=Status.SURVIVED)
    truth = 100 * 1443 / 1444
    drew_it = 0
    for seed in range(200):
        sample = stratified_sample(mutants, 145, seed)
        found = estimate([full[m.id] for m in sample], population=1444, seed=seed)
        assert found is not None and found.low <= truth <= found.high, seed
        drew_it += mutants[100] in sample
    assert drew_it >= 5  # the case happened


def test_a_sample_of_every_mutant_has_no_width_and_nothing_counted_says_nothing() -> None:
    assert wilson(80, 100, 100, 100) == (0.8, 0.8)
    low, high = wilson(80, 100, 100, 1000)
    assert low < 0.8 < high
    assert estimate([Outcome(mutant_id="a", status=Status.EQUIVALENT)], population=10, seed=0) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("1000", SampleSpec(count=1000)), ("10%", SampleSpec(percent=10.0)), (" 2.5 % ", SampleSpec(percent=2.5)),
])
def test_a_sample_is_a_count_or_a_percentage(text: str, expected: SampleSpec) -> None:
    assert parse_sample(text) == expected


@pytest.mark.parametrize("text", ["abc", "0", "0%", "101%", "2.5", "-3", ""])
def test_anything_else_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError, match="--sample") as refused:
        parse_sample(text)
    assert "\n" not in str(refused.value)


def test_a_percentage_rounds_up_and_a_sample_never_exceeds_the_mutants() -> None:
    assert SampleSpec(percent=10).size(1001) == 101
    assert SampleSpec(count=50).size(20) == 20
    assert SampleSpec(percent=0.01).size(50) == 1


@pytest.mark.slow
def test_run_with_a_sample_runs_that_many_and_reports_the_interval(tmp_path: Path) -> None:
    """`bugsmith run --sample 6` on a small project: six mutants run, and the summary and
    `--json` carry the estimate of the full score with its interval."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text(textwrap.dedent('''\
        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x


        def mean(xs):
            return sum(xs) / len(xs) if xs else 0.0
        '''))
    (root / "tests" / "test_pkg.py").write_text(
        "from pkg import clamp, mean\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n\n\n"
        "def test_mean():\n    assert mean([1, 3]) == 2\n")
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\njobs = 1\n')
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--no-preload", "--sample", "6",
                           "--json"], cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["mutants"] == 6
    sample = summary["sample"]
    assert sample["sampled"] == 6 and sample["population"] > 6 and sample["seed"] == 0
    assert sample["low"] <= sample["score"] <= sample["high"] and sample["high"] - sample["low"] > 0
    text = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--no-preload", "--sample", "6"],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False).stdout
    assert f"a sample of 6 of {sample['population']} mutants (seed 0)" in text
    budgeted = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--no-preload", "--budget",
                               "10m", "--json"], cwd=root, capture_output=True, text=True, timeout=600, check=False)
    assert budgeted.returncode == 0, budgeted.stderr
    whole = json.loads(budgeted.stdout)["sample"]  # ten minutes buy every mutant: a full run
    assert whole["sampled"] == whole["population"] == sample["population"] and whole["low"] == whole["high"]
    # Each round said its estimate while the run went; the last one is the whole population.
    assert f"bugsmith: so far, a sample of {whole['population']} of {whole['population']} mutants" in budgeted.stderr


def test_the_estimate_is_a_record_of_plain_values() -> None:
    found = estimate([Outcome(mutant_id="a", status=Status.KILLED), Outcome(mutant_id="b", status=Status.SURVIVED)],
                     population=10, seed=3)
    assert found is not None and dataclasses.is_dataclass(found)
    assert found.to_dict()["confidence"] == 0.95 and found.to_dict()["population"] == 10
