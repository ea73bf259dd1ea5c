"""A score from a sample of the mutants, with its 95 % interval (`bugsmith run --sample N`).

A big codebase has more mutants than any suite can run in the time a user waits. A random sample
of about a thousand estimates the full score within a few points (Gopinath, Jensen and Groce,
"How hard does mutation analysis have to be, anyway?", ISSRE 2015), so a run may take one:

- *Stratified*: the mutants are grouped by file and bug family, and each group gives its share of
  the sample (largest remainders), so no file or family is left out by chance.
- *Nested*: within a group the mutants are ranked by a hash of the seed and their id, and the
  sample takes each group's first ones; a larger sample with the same seed holds the smaller one
  (but for a remainder that moves between groups), so a second run with a bigger `--sample`
  re-runs nothing: the store has the first run's verdicts.
- *Interval*: Wilson's score interval at 95 % with continuity correction on the sampled mutants
  that count, with the finite population correction (a sample of every mutant has no width). It
  treats the sample as simple random, which stratification only makes more precise: the interval
  is conservative.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bugsmith.harness.outcome import Outcome, Status
from bugsmith.mutators.mutant import Mutant

Z_95 = 1.959964
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleSpec:
    """How many mutants a run takes: `count`, or `percent` of them; and the seed of the draw."""

    count: int = 0
    percent: float = 0.0
    seed: int = 0

    def size(self, population: int) -> int:
        """The sample's size out of `population` mutants: at least one, at most all."""
        wanted = self.count or math.ceil(population * self.percent / 100)
        return max(1, min(population, wanted)) if population else 0


def parse_sample(text: str, seed: int = 0) -> SampleSpec:
    """`1000` or `10%`; ValueError with a one-line reason for anything else."""
    found = _SIZE.match(text)
    if not found:
        raise ValueError(f"--sample takes a count or a percentage (1000, 10%), not {text!r}")
    number, percent = float(found.group(1)), bool(found.group(2))
    if percent:
        if not 0 < number <= 100:
            raise ValueError(f"--sample {text}: a percentage must be above 0 and at most 100")
        return SampleSpec(percent=number, seed=seed)
    if number < 1 or number != int(number):
        raise ValueError(f"--sample {text}: a count must be a whole number of at least 1")
    return SampleSpec(count=int(number), seed=seed)


def _rank(seed: int, mutant: Mutant) -> str:
    return hashlib.sha256(f"{seed}:{mutant.id}".encode()).hexdigest()


def stratified_sample(mutants: Sequence[Mutant], size: int, seed: int) -> tuple[Mutant, ...]:
    """`size` of `mutants`, each (file, family) group giving its share, in the mutants' order."""
    if size >= len(mutants):
        return tuple(mutants)
    groups: dict[tuple[str, str], list[Mutant]] = defaultdict(list)
    for mutant in mutants:
        groups[(mutant.file, mutant.family.value)].append(mutant)
    shares = {key: size * len(members) / len(mutants) for key, members in groups.items()}
    taken = {key: int(share) for key, share in shares.items()}
    by_remainder = sorted(groups, key=lambda key: (-(shares[key] - taken[key]), key))
    for key in by_remainder[:size - sum(taken.values())]:
        taken[key] += 1
    chosen = {m.id for key, members in groups.items()
              for m in sorted(members, key=lambda m: _rank(seed, m))[:taken[key]]}
    return tuple(m for m in mutants if m.id in chosen)


@dataclass(frozen=True, slots=True, kw_only=True)
class Estimate:
    """The score a sample estimates, and its 95 % interval, in percent."""

    score: float
    low: float
    high: float
    counted: int  # sampled mutants that count (not equivalent, not an error)
    sampled: int
    population: int
    seed: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def sentence(self) -> str:
        """What the summary and the reports say of it."""
        return (f"a sample of {self.sampled} of {self.population} mutants (seed {self.seed}): the full score is"
                f" {self.score:.1f}% +- {self.half_width:.1f} (95% interval {self.low:.1f}% to {self.high:.1f}%)")

    def to_dict(self) -> dict[str, Any]:
        return {"score": round(self.score, 2), "low": round(self.low, 2), "high": round(self.high, 2),
                "confidence": 0.95, "counted": self.counted, "sampled": self.sampled,
                "population": self.population, "seed": self.seed}


def wilson(killed: int, counted: int, sampled: int, population: int) -> tuple[float, float]:
    """Wilson's 95 % interval with continuity correction (Newcombe's 1998 method 4) for `killed`
    of `counted`, as fractions, narrowed by the finite population correction: `sampled` of
    `population` mutants were drawn. The correction keeps the interval honest where scores sit
    near 100 %: one survivor in a sample of a suite with one survivor in all must not make the
    interval miss the full score, as the plain Wilson interval does."""
    if counted == 0:
        return 0.0, 1.0
    share = killed / counted
    remaining = 1 - sampled / population if population else 0.0
    if remaining <= 0:
        return share, share
    n = counted / remaining  # the correction, as a larger effective sample
    z2 = Z_95 * Z_95
    low = 0.0 if share == 0 else (2 * n * share + z2 - 1 - Z_95 * math.sqrt(
        max(0.0, z2 - 2 - 1 / n + 4 * share * (n * (1 - share) + 1)))) / (2 * (n + z2))
    high = 1.0 if share == 1 else (2 * n * share + z2 + 1 + Z_95 * math.sqrt(
        max(0.0, z2 + 2 - 1 / n + 4 * share * (n * (1 - share) - 1)))) / (2 * (n + z2))
    return max(0.0, low), min(1.0, high)


def estimate(outcomes: Sequence[Outcome], population: int, seed: int) -> Estimate | None:
    """The score of a sample of `population` mutants; None when none of it counts."""
    counted = [o for o in outcomes if o.status not in (Status.EQUIVALENT, Status.ERROR)]
    if not counted:
        return None
    killed = sum(o.status in (Status.KILLED, Status.TIMEOUT) for o in counted)
    low, high = wilson(killed, len(counted), len(outcomes), population)
    return Estimate(score=100 * killed / len(counted), low=100 * low, high=100 * high, counted=len(counted),
                    sampled=len(outcomes), population=population, seed=seed)


def run_estimate(options: dict[str, Any], outcomes: Sequence[Outcome]) -> Estimate | None:
    """The estimate of a stored run that took a sample (its options say so), else None."""
    sample = options.get("sample")
    if not sample:
        return None
    return estimate(outcomes, int(sample["population"]), int(sample["seed"]))
