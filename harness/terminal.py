"""What the CLI shows in a terminal: a progress bar and the end-of-run tables. Pure strings."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from bugsmith.harness.outcome import Outcome, RunResult, Status, mutation_score
from bugsmith.harness.sampling import run_estimate

BAR_WIDTH = 28


def progress_line(done: int, total: int, counts: dict[str, int], eta: float | None) -> str:
    filled = int(BAR_WIDTH * done / total) if total else BAR_WIDTH
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    parts = ", ".join(f"{counts[s]} {s}" for s in Status if counts.get(s))
    eta_text = f" ETA {eta:.0f}s" if eta is not None else ""
    return f"[{bar}] {done}/{total} {parts}{eta_text}"


def round_line(result: RunResult, left: float) -> str:
    """After a round of a budgeted run: the estimate its sample gives, and the budget left."""
    sampled = run_estimate(result.options, result.outcomes)
    told = sampled.sentence() if sampled is not None else f"{len(result.outcomes)} mutants judged"
    return f"bugsmith: so far, {told}; {left:.0f} s of the budget left"


def sample_first_line(result: RunResult) -> str:
    """After the sample a big full run takes first: its estimate, and that the rest runs now."""
    sampled = run_estimate(result.options, result.outcomes)
    if sampled is None:
        return f"bugsmith: {len(result.outcomes)} mutants judged; every other mutant runs now"
    return (f"bugsmith: so far, {sampled.sentence()}; the other {sampled.population - sampled.sampled}"
            " mutants run now (Ctrl-C keeps this estimate)")


def score_so_far(counts: dict[str, int]) -> float | None:
    """The mutation score of the verdicts in so far (same rule as `mutation_score`)."""
    detected = counts.get(Status.KILLED, 0) + counts.get(Status.TIMEOUT, 0)
    counted = sum(n for status, n in counts.items()
                  if status not in (Status.EQUIVALENT, Status.ERROR))
    return 100.0 * detected / counted if counted else None


class ProgressLines:
    """Append-only progress for a log (CI, a pipe): a line when a stage starts, then at most
    one every `every` seconds, and one at the end, so a long run is never silent and a log
    is never flooded."""

    def __init__(self, every: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._last: float | None = None
        self._stage = ""

    def line(self, stage: str, done: int, total: int, counts: dict[str, int],
             eta: float | None) -> str | None:
        now = self.clock()
        new_stage = stage != self._stage
        finished = total > 0 and done >= total
        if not new_stage and not finished and self._last is not None and now - self._last < self.every:
            return None
        self._stage, self._last = stage, now
        if stage == "baseline":
            return "bugsmith: collecting the tests and running them once under coverage"
        score = score_so_far(counts)
        percent = f" ({100 * done / total:.0f}%)" if total else ""
        return (f"bugsmith: {stage} {done}/{total}{percent}"
                + (f", score so far {score:.1f}%" if score is not None else "")
                + (f", ETA {eta:.0f} s" if eta is not None else ""))


def _score_text(outcomes: Iterable[Outcome]) -> str:
    score = mutation_score(list(outcomes))
    return "   n/a" if score is None else f"{score:5.1f}%"


def _table(title: str, groups: dict[str, list[Outcome]]) -> list[str]:
    width = max([len(title)] + [len(name) for name in groups])
    lines = [f"{title:<{width}}  score   killed survived  timeout    error no-cover equiv"]
    for name in sorted(groups):
        outcomes = groups[name]
        counts = {s: sum(o.status is s for o in outcomes) for s in Status}
        lines.append(
            f"{name:<{width}}  {_score_text(outcomes)} "
            + " ".join(f"{counts[s]:>8}" for s in Status)
        )
    return lines


def summary(result: RunResult, survivors_shown: int = 30) -> str:
    by_id = {m.id: m for m in result.mutants}
    by_file: dict[str, list[Outcome]] = defaultdict(list)
    by_family: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in result.outcomes:
        mutant = by_id[outcome.mutant_id]
        by_file[mutant.file].append(outcome)
        by_family[mutant.family.value].append(outcome)
    lines = [*_table("file", by_file), "", *_table("family", by_family), ""]
    survivors = [o for o in result.outcomes if o.status in (Status.SURVIVED, Status.NO_COVERAGE)]
    if survivors:
        lines.append(f"{len(survivors)} mutant(s) not caught (see `bugsmith show ID`):")
        for outcome in survivors[:survivors_shown]:
            mutant = by_id[outcome.mutant_id]
            lines.append(
                f"  {mutant.id}  {outcome.status.value:<11} {mutant.file}:{mutant.span.line}"
                f"  {mutant.operator}: {code_in_one_line(mutant.original)} -> {code_in_one_line(mutant.mutated)}"
            )
        if len(survivors) > survivors_shown:
            lines.append(f"  ... and {len(survivors) - survivors_shown} more (see the report)")
        lines.append("")
    counts = result.counts()
    total = len(result.outcomes)
    score = result.score
    lines.append(
        f"mutation score {'n/a' if score is None else f'{score:.1f}%'}: "
        f"{counts[Status.KILLED] + counts[Status.TIMEOUT]} of "
        f"{total - counts[Status.EQUIVALENT] - counts[Status.ERROR]} counted mutants detected "
        f"({total} mutants, {result.duration:.1f} s)"
    )
    sampled = run_estimate(result.options, result.outcomes)
    if sampled is not None:
        lines.append(sampled.sentence())
    if total and counts[Status.NO_COVERAGE] == total:
        lines.append(NOTHING_COVERED)
    return "\n".join(lines)


# The usual cause, as mutmut's and cosmic-ray's users also find: the tests import the package
# from site-packages, so the copy bugsmith mutates never runs.
NOTHING_COVERED = (
    "no test ran any line of the mutated files: if the tests import an installed copy of the "
    "package, install it in editable mode (pip install -e .) or check [tool.bugsmith] paths"
)


def code_in_one_line(text: str, limit: int = 50) -> str:
    """A mutant's original or mutated code on one line of at most `limit` characters."""
    text = " ".join(text.split()) or "(deleted)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def mutant_details(mutant, outcome: Outcome | None) -> str:
    lines = [
        f"{mutant.id}  {mutant.operator}  ({mutant.family.value})",
        f"{mutant.file}:{mutant.span.line}:{mutant.span.column + 1}"
        + (f" in {mutant.scope}" if mutant.scope else ""),
        mutant.explanation,
    ]
    if outcome is not None:
        status = outcome.status.value
        if outcome.killed_by:
            status += f" by {outcome.killed_by[0]}"
        if outcome.failure:
            status += f" ({outcome.failure.value}: {outcome.exception})"
        if outcome.detail:
            status += f" ({outcome.detail})"
        lines.append(f"status: {status}")
    lines += ["", mutant.diff.rstrip("\n")]
    return "\n".join(lines)


def summary_record(result: RunResult, reports: Iterable[Path], fail_under: float | None) -> dict[str, object]:
    """`bugsmith run --json`: the summary as data, for CI scripts."""
    counts = result.counts()
    survivors = [o for o in result.outcomes if o.status in (Status.SURVIVED, Status.NO_COVERAGE)]
    by_id = {m.id: m for m in result.mutants}
    return {
        "root": result.root,
        "started": result.started,
        "duration": round(result.duration, 3),
        "score": None if result.score is None else round(result.score, 2),
        "fail_under": fail_under,
        "passed": fail_under is None or (result.score or 0.0) >= fail_under,
        "mutants": len(result.outcomes),
        "counts": {status.value: counts[status] for status in Status},
        "not_caught": [
            {"id": o.mutant_id, "status": o.status.value, "file": by_id[o.mutant_id].file,
             "line": by_id[o.mutant_id].span.line, "operator": by_id[o.mutant_id].operator}
            for o in survivors
        ],
        "reports": [str(path) for path in reports],
        "warnings": list(result.warnings),
        "sample": None if (sampled := run_estimate(result.options, result.outcomes)) is None else sampled.to_dict(),
    }
