"""A score within a time budget (`bugsmith run --budget 60s`): a sample that grows while time lasts.

The run starts with a small stratified sample (harness.sampling) and grows it, with the same
seed, in rounds: each round is a run of the larger sample, which holds the smaller one, so it
only runs the mutants the store has no verdict for. After each round the time one new mutant
cost says how many more fit in what is left; the last round that finished is the result, a valid
sample with its interval however early the budget ran out, or the run was interrupted (Ctrl-C
during a later round keeps it: its verdicts are in the store, and so are the new round's so far,
for the next run to reuse). A budget big enough for every mutant ends in a full run. Each round's
result goes to `on_round` as it finishes, so a caller can show the estimate while the run goes.

A full run of a big codebase takes its estimate first (`run_sample_first`): a 10 % sample with
the seed `--sample 10%` takes, then every mutant, the sample's verdicts reused from the store. So
a run of 10,000 mutants shows the score within about 3 points after a tenth of its time, and
Ctrl-C after that keeps the sample's estimate.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace

from bugsmith.harness.config import RunOptions
from bugsmith.harness.discovery import lines_to_mutate
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.sampling import SampleSpec

FEWEST = 20  # the first round: enough to price a mutant, and to learn how many there are
SAMPLE_FIRST_LINES = 5000  # lines to mutate from which a full run takes a sample first
SAMPLE_FIRST_PERCENT = 10.0
SAFETY = 0.8  # of the time left a round plans to use: a round's cost is only estimated
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")


def parse_budget(text: str) -> float:
    """Seconds in `90`, `90s`, `2m` or `1.5h`; ValueError with a one-line reason otherwise."""
    found = _DURATION.match(text)
    if not found or float(found.group(1)) <= 0:
        raise ValueError(f"--budget takes a positive duration (90s, 2m, 1h), not {text!r}")
    return float(found.group(1)) * {"s": 1, "m": 60, "h": 3600}[found.group(2) or "s"]


def next_size(done: int, total: int, spent_on_new: float, new: int, left: float) -> int:
    """The next round's sample: what the time left buys at the price the last new mutants cost."""
    if new <= 0 or spent_on_new <= 0:
        return min(total, 2 * done)
    affordable = int(SAFETY * left * new / spent_on_new)
    return min(total, done + affordable)


INTERRUPTED = "interrupted during a round: the score is the last finished round's sample"
INTERRUPTED_AFTER_SAMPLE = "interrupted after the sample: the score is the sample's estimate"
CUT_SHORT = (INTERRUPTED, INTERRUPTED_AFTER_SAMPLE)  # a result that stands for a run that did not end


def cut_short(result: RunResult) -> bool:
    """Whether `result` is the sample or round kept when Ctrl-C stopped the run after it."""
    return any(warning in CUT_SHORT for warning in result.warnings)


def run_within(options: RunOptions, seconds: float, run: Callable[[RunOptions], RunResult], seed: int = 0,
               clock: Callable[[], float] = time.monotonic,
               on_round: Callable[[RunResult, float], None] | None = None) -> RunResult:
    """The largest sample `run` decides within `seconds` (one round at least, whatever the budget:
    a run must give a score). The first round is FEWEST mutants, which also tells how many the
    options select. `on_round` gets each finished round and the seconds left."""
    deadline = clock() + seconds
    size, done = FEWEST, 0
    finished: RunResult | None = None
    while True:
        started = clock()
        try:
            result = run(replace(options, sample=SampleSpec(count=size, seed=seed)))
        except KeyboardInterrupt:
            if finished is None:
                raise
            return replace(finished, warnings=(*finished.warnings, INTERRUPTED))
        finished = result
        if on_round is not None:
            on_round(result, max(0.0, deadline - clock()))
        population = int(result.options.get("sample", {}).get("population", 0)) or len(result.outcomes)
        spent, new, done = clock() - started, min(size, population) - done, min(size, population)
        left = deadline - clock()
        if done >= population or left <= 0:
            return result
        grown = next_size(done, population, spent, new, left)
        if grown <= done:
            return result
        size = grown


def run_sample_first(options: RunOptions, run: Callable[[RunOptions], RunResult], lines: int, *, seed: int = 0,
                     on_sample: Callable[[RunResult], None] | None = None) -> RunResult:
    """A full run that, when its files hold SAMPLE_FIRST_LINES lines or more, first runs the
    sample `--sample 10%` with `seed` would, tells it to `on_sample`, then runs every mutant;
    Ctrl-C during the second part keeps the sample as the result. Smaller runs, and runs of a
    few mutants chosen (`--since`, ids), run at once: a second round would cost them more than
    it tells."""
    if lines < SAMPLE_FIRST_LINES or options.sample is not None or options.since or options.mutant_ids:
        return run(options)
    sampled = run(replace(options, sample=SampleSpec(percent=SAMPLE_FIRST_PERCENT, seed=seed)))
    if on_sample is not None:
        on_sample(sampled)
    try:
        return run(options)
    except KeyboardInterrupt:
        return replace(sampled, warnings=(*sampled.warnings, INTERRUPTED_AFTER_SAMPLE))


def run_sized(options: RunOptions, run: Callable[[RunOptions], RunResult], *, budget: float | None = None,
              seed: int = 0, on_round: Callable[[RunResult, float], None] | None = None,
              on_sample: Callable[[RunResult], None] | None = None) -> RunResult:
    """`bugsmith run` as its options size it: within a time `budget` (`run_within`), the sample
    the options hold, or every mutant (`run_sample_first`, which takes a big run's sample first)."""
    if budget is not None:
        return run_within(options, budget, run, seed=seed, on_round=on_round)
    if options.sample is not None:
        return run(options)
    return run_sample_first(options, run, lines_to_mutate(options), seed=seed, on_sample=on_sample)
